import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import correctionsJson from './corrections.json' with { type: 'json' };
import { parseCsv } from '../csv-text.js';
import { ExpressionError, inputsOf, parseExpression, type Expr, type InputName } from './guideline-expression.js';

/**
 * DataStream's guideline summary (ingest/guidelines/guidelines.csv, vendored from gordonfn/guidelines, MIT; commit
 * and attribution in that folder's README) with the reviewed corrections (corrections.json) applied: one row per
 * guideline as `/Guidelines` serves it, plus what the comparisons stage needs to pair and evaluate it.
 */

/**
 * The vendored CSV is read from the repository's ingest/guidelines/, found by walking up from this module: it runs
 * from ingest/ (tsx), from the compiled build under node_modules/.cache/ and from test bundles under
 * test-artifacts/, all inside the repository. (The corrections are imported as JSON, so every build carries them.)
 */
function findCsv(): string {
  const relative = join('ingest', 'guidelines', 'guidelines.csv');
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) === dir) throw new Error(`${relative} not found above ${fileURLToPath(import.meta.url)}: run the ingest from a checkout of the repository`);
  }
}

export interface Correction {
  /** The guideline's Id: its data row number in guidelines.csv (1 = the first row after the header). */
  readonly id: number;
  /** What the row must say, so that a new version of the summary cannot silently shift a correction. */
  readonly key: { readonly CharacteristicName: string; readonly Publisher: string; readonly ProtectionLevel: string; readonly Region: string };
  /** The corrected expression in the summary's notation, or null: the row is served but not compared; absent: as published. */
  readonly expression?: string | null;
  /** The characteristic the row is compared by, where the summary keys it by another (the key audit, docs/guidelines.md). */
  readonly rekey?: { readonly CharacteristicName: string };
  readonly wrong: string;
  readonly source: string;
}

export type Bound = 'maximum' | 'minimum' | 'range';

export interface Guideline {
  readonly Id: number;
  readonly CharacteristicName: string;
  /** The publisher's own name for what it bounds, as the summary gives it. */
  readonly Parameter: string;
  readonly ResultSampleFraction: string | null;
  readonly MethodSpeciation: string | null;
  readonly Publisher: string;
  readonly Jurisdictions: readonly string[];
  readonly MediaName: string;
  readonly Ecosystem: string | null;
  readonly ProtectionLevel: string;
  readonly Status: string | null;
  readonly Bound: Bound;
  readonly Expression: string;
  readonly Unit: string | null;
  readonly Inputs: readonly InputName[];
  readonly Source: string | null;
  readonly Correction: string | null;
  /** Not served: the fractions it pairs with (empty: any), and the parsed expression it is compared with (none: not compared). */
  readonly fractions: readonly string[];
  readonly formula?: Expr;
}

const blank = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const orNull = (s: string | undefined) => blank(s) || null;
/** The summary spells the US EPA two ways; one name, so that a filter or an index by publisher finds all its rows. */
const publisherNames: Readonly<Record<string, string>> = { USEPA: 'US EPA' };

/** Reads the summary and the corrections; throws naming the row when a correction does not match or an expression does not parse. */
export function loadGuidelines(csvText = readFileSync(findCsv(), 'utf8'), corrections: readonly Correction[] = correctionsJson as Correction[]): Guideline[] {
  const [header, ...rows] = parseCsv(csvText);
  const col = (name: string) => {
    const i = header!.findIndex((h) => h.trim() === name);
    if (i < 0) throw new Error(`guidelines.csv has no column '${name}': the summary's layout changed; update ingest/guideline-table.ts`);
    return i;
  };
  const c = {
    characteristic: col('Characteristic Name'), speciation: col('Method Speciation'), fraction: col('Sample Fraction'), parameter: col('Parameter'),
    region: col('Region'), publisher: col('Publisher'), status: col('Status'), media: col('Media Name'), ecosystem: col('Ecosystem'),
    level: col('Protection Level'), value: col('Value'), unit: col('Unit'), notes: col('Notes'), source: col('Documentation/Spec Sheet Url'),
  };
  const byId = new Map(corrections.map((x) => [x.id, x]));
  const out = rows.filter((r) => r.some((f) => f.trim() !== '')).map((r, i): Guideline => {
    const Id = i + 1;
    const correction = byId.get(Id);
    if (correction) {
      const actual = { CharacteristicName: blank(r[c.characteristic]), Publisher: blank(r[c.publisher]), ProtectionLevel: blank(r[c.level]), Region: blank(r[c.region]) };
      const expected = { CharacteristicName: blank(correction.key.CharacteristicName), Publisher: blank(correction.key.Publisher), ProtectionLevel: blank(correction.key.ProtectionLevel), Region: blank(correction.key.Region) };
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        throw new Error(`corrections.json: row ${Id} is ${JSON.stringify(actual)}, the correction was written for ${JSON.stringify(expected)}: review the corrections against this version of guidelines.csv`);
      }
    }
    const published = blank(r[c.value]);
    const served = correction?.expression !== undefined ? correction.expression : published || null;
    let formula: Expr | undefined;
    if (served !== null) {
      try {
        formula = parseExpression(served);
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        throw new Error(`guidelines.csv row ${Id} (${blank(r[c.characteristic])}, ${blank(r[c.publisher])} ${blank(r[c.level])}): '${served}' does not parse: ${err.message}; add a reviewed correction to ingest/guidelines/corrections.json`);
      }
    }
    const fractions = blank(r[c.fraction]).split(',').map(blank).filter(Boolean);
    const characteristic = correction?.rekey?.CharacteristicName ?? (blank(r[c.characteristic]) || blank(r[c.parameter]));
    const notes = blank(r[c.notes]);
    const publisher = blank(r[c.publisher]);
    const Bound: Bound = formula && isRange(formula) ? 'range' : /oxygen/i.test(characteristic) || /\bminim/i.test(notes) ? 'minimum' : 'maximum';
    return {
      Id, CharacteristicName: characteristic, Parameter: blank(r[c.parameter]), ResultSampleFraction: fractions.length > 0 ? fractions.join(', ') : null, MethodSpeciation: orNull(r[c.speciation]),
      Publisher: publisherNames[publisher] ?? publisher, Jurisdictions: blank(r[c.region]).split(',').map(blank).filter(Boolean),
      MediaName: blank(r[c.media]), Ecosystem: orNull(r[c.ecosystem]), ProtectionLevel: blank(r[c.level]) || 'Unspecified', Status: orNull(r[c.status]),
      Bound, Expression: published, Unit: orNull(r[c.unit]), Inputs: formula ? inputsOf(formula) : [], Source: orNull(r[c.source]),
      Correction: correction ? `${correction.wrong} Source: ${correction.source}` : null, fractions, ...(formula ? { formula } : {}),
    };
  });
  for (const x of corrections) if (x.id < 1 || x.id > out.length) throw new Error(`corrections.json: row ${x.id} is not in guidelines.csv (${out.length} rows)`);
  if (out.length >= 4096) throw new Error(`guidelines.csv has ${out.length} rows: comparison Ids (ObservationId × 4096 + GuidelineId) hold fewer than 4096`);
  return out;
}

let served: readonly Guideline[] | undefined;
/** The vendored summary with its corrections, loaded once per process (each publish compares with the same one). */
export function servedGuidelines(): readonly Guideline[] {
  served ??= loadGuidelines();
  return served;
}

function isRange(e: Expr): boolean {
  if (e.kind === 'range') return true;
  if (e.kind === 'if') return e.branches.some((b) => isRange(b.then)) || (e.otherwise !== undefined && isRange(e.otherwise));
  return false;
}
