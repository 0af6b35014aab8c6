import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternativesSql, governingSql, termSql } from './governing.js';

/**
 * The governing verdicts on generated comparisons (several publishers, terms, bounds and verdicts per result),
 * against the rule written here from its definition: per result, publisher and term, the most protective guideline
 * among those with a verdict of meets or exceeds (the lowest maximum, else the highest minimum), else among all; and
 * the alternatives each row stands among.
 */

interface Row {
  readonly ObservationId: number;
  readonly GuidelineId: number;
  readonly Publisher: string;
  readonly ProtectionLevel: string;
  readonly Verdict: 'meets' | 'exceeds' | 'indeterminate';
  readonly L: number | null;
  readonly U: number | null;
}

/** A small seeded generator (mulberry32), so that a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const levels = ['Acute', 'Chronic', 'Chronic - cold water biota, early life stage', 'Chronic - warm water biota, other life stage', 'Acute - Larvae', 'Probable Effect Level', 'Threshold Effect Level'];
const verdicts = ['meets', 'exceeds', 'indeterminate'] as const;

function generate(n: number, next: () => number): Row[] {
  const rows: Row[] = [];
  for (let o = 1; o <= n; o++) {
    const seen = new Set<number>();
    for (let k = 1 + Math.floor(next() * 6); k > 0; k--) {
      const GuidelineId = 1 + Math.floor(next() * 40);
      if (seen.has(GuidelineId)) continue;
      seen.add(GuidelineId);
      const bound = next();
      const value = Math.round(next() * 5) + 1; // ties on purpose
      const verdict = verdicts[Math.floor(next() * 3)]!;
      rows.push({
        ObservationId: o, GuidelineId, Publisher: next() < 0.7 ? 'CCME' : 'BC Gov', ProtectionLevel: levels[Math.floor(next() * levels.length)]!, Verdict: verdict,
        // A minimum, a range or a maximum.
        L: bound < 0.4 ? value : bound < 0.6 ? value - 1 : null,
        U: bound >= 0.4 ? value + (bound < 0.6 ? 3 : 0) : null,
      });
    }
  }
  return rows;
}

const termOf = (level: string) => (level.startsWith('Acute') ? 'short-term' : level.startsWith('Chronic') ? 'long-term' : level);

/** The definition: the governing row of each result, publisher and term, and what each row stands among. */
function expected(rows: readonly Row[]): Map<string, { governing: boolean; term: string; alternatives: string | null }> {
  const groups = Map.groupBy(rows, (r) => `${r.ObservationId}|${r.Publisher}|${termOf(r.ProtectionLevel)}`);
  const out = new Map<string, { governing: boolean; term: string; alternatives: string | null }>();
  const moreProtective = (a: Row, b: Row) =>
    (a.U ?? Infinity) - (b.U ?? Infinity) || (b.L ?? -Infinity) - (a.L ?? -Infinity) || a.GuidelineId - b.GuidelineId;
  for (const group of groups.values()) {
    const determinate = group.filter((r) => r.Verdict !== 'indeterminate');
    const governing = [...(determinate.length > 0 ? determinate : group)].sort(moreProtective)[0];
    for (const r of group) {
      const others = group.filter((x) => x !== r).sort((a, b) => a.GuidelineId - b.GuidelineId).map((x) => `${x.GuidelineId} ${x.ProtectionLevel}`);
      out.set(`${r.ObservationId}|${r.GuidelineId}`, { governing: r === governing, term: termOf(r.ProtectionLevel), alternatives: others.length > 0 ? others.join('; ') : null });
    }
  }
  return out;
}

let instance: DuckDBInstance;
let conn: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});
afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

async function governed(rows: readonly Row[]) {
  await conn.run('CREATE OR REPLACE TEMP TABLE cmp (ObservationId BIGINT, GuidelineId BIGINT, Publisher VARCHAR, ProtectionLevel VARCHAR, Verdict VARCHAR, L DOUBLE, U DOUBLE)');
  const appender = await conn.createAppender('cmp', 'main', 'temp');
  for (const r of rows) {
    appender.appendBigInt(BigInt(r.ObservationId));
    appender.appendBigInt(BigInt(r.GuidelineId));
    appender.appendVarchar(r.Publisher);
    appender.appendVarchar(r.ProtectionLevel);
    appender.appendVarchar(r.Verdict);
    for (const v of [r.L, r.U]) if (v === null) appender.appendNull(); else appender.appendDouble(v);
    appender.endRow();
  }
  appender.closeSync();
  const reader = await conn.runAndReadAll(
    `WITH t AS (SELECT cmp.*, ${termSql('ProtectionLevel')} AS Term FROM cmp)
     SELECT ObservationId, GuidelineId, Term, ${governingSql} AS Governing, ${alternativesSql('ObservationId, Publisher, Term')} AS Alternatives FROM t`,
  );
  return reader.getRowObjectsJS().map((r) => ({ key: `${Number(r.ObservationId)}|${Number(r.GuidelineId)}`, term: r.Term, governing: r.Governing, alternatives: r.Alternatives }));
}

describe('the governing step', () => {
  it('marks, per result, publisher and term, the most protective comparison with a verdict (else of all), and names the others', async () => {
    const rows = generate(400, random(52));
    const want = expected(rows);
    const got = await governed(rows);
    expect(got).toHaveLength(rows.length);
    for (const g of got) expect({ term: g.term, governing: g.governing, alternatives: g.alternatives }, g.key).toEqual(want.get(g.key));
    // The generated comparisons exercise each case: ties, groups of one, groups all indeterminate.
    expect(rows.filter((r) => want.get(`${r.ObservationId}|${r.GuidelineId}`)!.alternatives === null).length).toBeGreaterThan(50);
    expect(got.filter((g) => g.governing).length).toBe(new Set(rows.map((r) => `${r.ObservationId}|${r.Publisher}|${termOf(r.ProtectionLevel)}`)).size);
  });

  it('chooses the cold-water early life stage among CCME’s four dissolved-oxygen minima, and the lower of two maxima whatever their order', async () => {
    const stage = (GuidelineId: number, level: string, L: number): Row => ({ ObservationId: 1, GuidelineId, Publisher: 'CCME', ProtectionLevel: `Chronic - ${level}`, Verdict: 'exceeds', L, U: null });
    const got = await governed([
      stage(621, 'warm water biota, early life stage', 6), stage(622, 'warm water biota, other life stage', 5.5),
      stage(623, 'cold water biota, early life stage', 9.5), stage(624, 'cold water biota, other life stage', 6.5),
      { ObservationId: 2, GuidelineId: 9, Publisher: 'CCME', ProtectionLevel: 'Acute', Verdict: 'meets', L: null, U: 30 },
      { ObservationId: 2, GuidelineId: 3, Publisher: 'CCME', ProtectionLevel: 'Acute', Verdict: 'indeterminate', L: null, U: 2 },
      { ObservationId: 2, GuidelineId: 5, Publisher: 'CCME', ProtectionLevel: 'Acute', Verdict: 'exceeds', L: null, U: 10 },
    ]);
    expect(got.filter((g) => g.governing).map((g) => g.key).sort()).toEqual(['1|623', '2|5']);
    expect(got.find((g) => g.key === '1|621')!.alternatives).toBe(
      '622 Chronic - warm water biota, other life stage; 623 Chronic - cold water biota, early life stage; 624 Chronic - cold water biota, other life stage',
    );
  });
});
