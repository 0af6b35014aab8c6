/**
 * The statistics oracle against the README's published figures (§4.1, §8, §9) and against R's `survival` on random
 * censored samples, so that the oracle the production is tested against is itself proven.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../sample/prng.js';
import { Fraction } from './fraction.js';
import { kmCurve, type UsableValues } from './km-curve.js';
import { kmEdgeCases, kmWorkedExamples, parseReported, type KmExample } from './km-examples.js';
import { kmSummary, type KmRow, type KmSummary } from './km-oracle.js';

/** `<5`, `12`, `>200` from a statistic and its qualifier, as the README's tables write them. */
function reported(value: number | null, qualifier: string | null): { value: number; qualifier: string | null } | null {
  return value === null ? null : { value, qualifier };
}

function expectReported(actual: { value: number; qualifier: string | null } | null, expected: string | null, what: string): void {
  if (expected === null) return void expect(actual, what).toBeNull();
  const e = parseReported(expected);
  expect(actual, what).not.toBeNull();
  expect(actual!.qualifier, what).toBe(e.kind === 'left' ? '<' : e.kind === 'right' ? '>' : null);
  expect(relative(actual!.value, e.value), `${what}: ${actual!.value} against ${e.value}`).toBeLessThan(1e-6);
}

const relative = (a: number, b: number): number => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));

function expectExample(summary: KmSummary, example: KmExample): void {
  const e = example.expected;
  expect(summary.Method).toBe(e.Method);
  expect(summary.MethodReason).toBe(e.MethodReason);
  expectReported(reported(summary.P10, summary.P10Qualifier), e.P10, 'P10');
  expectReported(reported(summary.Median, summary.MedianQualifier), e.Median, 'Median');
  expectReported(reported(summary.P90, summary.P90Qualifier), e.P90, 'P90');
  expectReported(reported(summary.Min, summary.MinQualifier), e.Min, 'Min');
  expectReported(reported(summary.Max, summary.MaxQualifier), e.Max, 'Max');
  if (e.Mean === null) expect(summary.Mean).toBeNull();
  else expect(relative(summary.Mean!, e.Mean), `Mean ${summary.Mean} against ${e.Mean}`).toBeLessThan(1e-6);
}

describe('the README\'s small and edge cases (§8)', () => {
  it.each(kmEdgeCases.map((c) => [c.name, c] as const))('%s', (_, example) => {
    const rows = example.values.map(parseReported);
    const summary = kmSummary(rows);
    expectExample(summary, example);
    expect(summary.Count).toBe(rows.length);
    expect(summary.LeftCensored).toBe(rows.filter((r) => r.kind === 'left').length);
    expect(summary.RightCensored).toBe(rows.filter((r) => r.kind === 'right').length);
    expect(summary.NonDetects).toBe(summary.LeftCensored + summary.RightCensored);
    expect(summary.Unusable).toBe(0);
  });
});

describe('the README\'s worked examples (§9)', () => {
  it.each(kmWorkedExamples.map((c) => [c.name, c] as const))('%s', (_, example) => {
    const rows = example.values.map(parseReported);
    expect(rows).toHaveLength(example.n);
    const summary = kmSummary(rows);
    expect(summary.LeftCensored).toBe(example.censored);
    expectExample(summary, example);
    if (example.detectedOnly === undefined) return;
    // The detected-only figures the README compares with: type 7 median and arithmetic mean, written out here.
    const detected = rows.filter((r) => r.kind === 'detected').map((r) => r.value).sort((a, b) => a - b);
    const h = (detected.length - 1) / 2;
    const median = detected[Math.floor(h)]! + (h - Math.floor(h)) * (detected[Math.ceil(h)]! - detected[Math.floor(h)]!);
    expect(relative(median, example.detectedOnly.Median)).toBeLessThan(1e-6);
    expect(relative(detected.reduce((s, v) => s + v, 0) / detected.length, example.detectedOnly.Mean)).toBeLessThan(1e-6);
  });

  it('walks DFe\'s curve as §4.1\'s table does: F(d−) 4/9, 6/9, 8/9 at 3, 7, 20, and F(d) up to 1', () => {
    const values = usable(kmWorkedExamples[0]!.values.map(parseReported));
    const curve = kmCurve(values);
    expect(curve.steps.map((s) => [s.value, s.Fminus.toString(), s.F.toString()])).toEqual([
      [3, '4/9', '2/3'], [7, '2/3', '8/9'], [20, '8/9', '1/1'],
    ]);
    expect(curve.mLow.toString()).toBe('4/9');
    expect(curve.mHigh.isZero()).toBe(true);
  });

  it('gives both walks the same curve where both apply (separable censoring, §4.2)', () => {
    // 20 … 60 with <10 ×2 and >2419.6: every right limit above everything and every left limit below it.
    const values: UsableValues = { detected: [20, 30, 40, 50, 60], left: [10, 10], right: [2419.6] };
    const fromRight = kmCurve({ ...values, right: [] });
    const curve = kmCurve(values);
    expect(curve.mHigh.toString()).toBe('1/8');
    expect(curve.mLow.toString()).toBe('1/4');
    expect(curve.steps.map((s) => s.F.sub(s.Fminus).toString())).toEqual(Array(5).fill('1/8'));
    expect(fromRight.steps.map((s) => s.value)).toEqual(curve.steps.map((s) => s.value));
  });
});

function usable(rows: readonly KmRow[]): UsableValues {
  const pick = (kind: string) => rows.flatMap((r) => (r.kind === kind && 'value' in r ? [r.value] : []));
  return { detected: pick('detected'), left: pick('left'), right: pick('right') };
}

describe('Fraction, the oracle\'s arithmetic', () => {
  it('holds a double exactly and gives it back', () => {
    const random = createRandom(7);
    for (let i = 0; i < 1000; i++) {
      const x = (random.next() - 0.5) * 10 ** random.int(12);
      expect(Fraction.fromNumber(x).toNumber()).toBe(x);
    }
    expect(Fraction.fromNumber(0.1).toString()).toBe('3602879701896397/36028797018963968');
  });

  it('decides the ε comparisons of §5.1 exactly: 1/2 is within ε of 1/2 − 1e-10, not of 1/2 − 1e-8', () => {
    const eps = Fraction.of(1, 1_000_000_000);
    const half = Fraction.of(1, 2);
    expect(half.le(half.sub(Fraction.of(1, 10_000_000_000)).add(eps))).toBe(true);
    expect(half.le(half.sub(Fraction.of(1, 100_000_000)).add(eps))).toBe(false);
  });
});

/** A random left- or right-censored sample for survival: several limits, ties with detected values, 0–80 % censored. */
function randomSample(random: Random, kind: 'left' | 'right'): KmRow[] {
  for (;;) {
    const n = 2 + random.int(59);
    const censoring = random.next() * 0.8;
    // A coarse grid (tenths up to 20) so that values tie with each other and with limits.
    const grid = () => (1 + random.int(200)) / 10;
    const limits = Array.from({ length: 1 + random.int(4) }, grid);
    const rows: KmRow[] = Array.from({ length: n }, () =>
      random.next() < censoring ? { kind, value: random.pick(limits) } : { kind: 'detected', value: grid() });
    if (kmSummary(rows).Method === 'km') return rows;
  }
}

interface SurvivalAnswer {
  readonly d: number | number[];
  readonly F: number | number[];
  readonly Fminus: number | number[];
  readonly percentiles: { value: number; qualifier?: string }[];
  readonly mean: number | null;
}

const list = (v: number | number[]): number[] => (Array.isArray(v) ? v : [v]);

/** One Rscript run for every sample (scripts/testing/km-survival.R). */
function survival(samples: { kind: 'left' | 'right'; rows: KmRow[] }[]): SurvivalAnswer[] {
  const input = join(dir, 'in.json');
  const output = join(dir, 'out.json');
  writeFileSync(input, JSON.stringify(samples.map(({ kind, rows }) => ({
    kind, x: rows.map((r) => ('value' in r ? r.value : NaN)), detected: rows.map((r) => r.kind === 'detected'),
  }))));
  execFileSync('Rscript', [join(import.meta.dirname, 'km-survival.R'), input, output], { stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(output, 'utf8')) as SurvivalAnswer[];
}

const dir = mkdtempSync(join(tmpdir(), 'km-survival-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('against R survival on random censored samples', () => {
  const random = createRandom(52);
  const samples = [
    ...Array.from({ length: 300 }, () => ({ kind: 'left' as const, rows: randomSample(random, 'left') })),
    ...Array.from({ length: 100 }, () => ({ kind: 'right' as const, rows: randomSample(random, 'right') })),
  ];

  it('agrees on the curve, the percentiles of §5.1 and the mean of §5.3 for every sample', () => {
    const answers = survival(samples);
    expect(answers).toHaveLength(samples.length);
    samples.forEach(({ rows }, i) => {
      const r = answers[i]!;
      const curve = kmCurve(usable(rows));
      const at = `sample ${i}: ${JSON.stringify(rows)}`;
      expect(curve.steps.map((s) => s.value), at).toEqual(list(r.d));
      curve.steps.forEach((s, j) => {
        expect(Math.abs(s.F.toNumber() - list(r.F)[j]!), at).toBeLessThan(1e-12);
        expect(Math.abs(s.Fminus.toNumber() - list(r.Fminus)[j]!), at).toBeLessThan(1e-12);
      });
      const summary = kmSummary(rows);
      const ours = [reported(summary.P10, summary.P10Qualifier), reported(summary.Median, summary.MedianQualifier), reported(summary.P90, summary.P90Qualifier)];
      expect(ours, at).toEqual(r.percentiles.map((p) => ({ value: p.value, qualifier: p.qualifier ?? null })));
      if (r.mean === null) expect(summary.Mean, at).toBeNull();
      else expect(relative(summary.Mean!, r.mean), at).toBeLessThan(1e-9);
    });
    // The samples reach what they are for: ties of a limit with a detected value, several limits, heavy censoring.
    const tied = samples.filter(({ rows }) => rows.some((a) => a.kind !== 'detected' && rows.some((b) => b.kind === 'detected' && 'value' in a && 'value' in b && a.value === b.value)));
    expect(tied.length).toBeGreaterThan(50);
    expect(samples.filter(({ rows }) => kmSummary(rows).LeftCensored + kmSummary(rows).RightCensored > 0.6 * rows.length).length).toBeGreaterThan(30);
    expect(answers.filter((a) => a.mean === null).length).toBeGreaterThan(0);
  });
});
