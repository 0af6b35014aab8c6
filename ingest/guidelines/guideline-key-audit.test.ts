import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { upstreamRules, upstreamVocabularies } from '../../schemas/upstream.js';
import corrections from './corrections.json' with { type: 'json' };
import { ambiguousCharacteristics } from './guideline-pairing.js';
import { loadGuidelines, type Correction, type Guideline } from './guideline-table.js';
import audit from './key-audit.json' with { type: 'json' };

/**
 * The key audit (docs/guidelines.md, "The key audit"): every row of the guideline summary is compared by the
 * CharacteristicName its own name for what it bounds (its Parameter) says. A name and a key that differ by more than
 * case, punctuation and word order must be a reviewed pair of key-audit.json, or the row's correction must quote the
 * name and say why it is keyed otherwise; no row is keyed by an ambiguous characteristic; every key outside
 * DataStream's vocabulary is listed as such.
 */

const guidelines = loadGuidelines();
const kinds = new Set(Object.keys(audit.kinds));
const agreed = new Map(audit.agree.map((a) => [`${a.key}\0${a.name}`, a.why]));
const vocabulary = new Set(upstreamVocabularies.CharacteristicName);

/** Case, punctuation and word order aside: the words and numbers of a name, sorted. */
const words = (s: string) => (s.toLowerCase().match(/[a-z0-9]+/g) ?? []).sort().join(' ');

/** The rows whose key and name disagree with no reviewed pair and no correction that quotes the name. */
function unexplained(rows: readonly Guideline[]): string[] {
  return rows
    .filter((g) => words(g.CharacteristicName) !== words(g.Parameter))
    .filter((g) => !agreed.has(`${g.CharacteristicName}\0${g.Parameter}`) && !(g.Correction ?? '').includes(`'${g.Parameter}'`))
    .map((g) => `row ${g.Id}: keyed '${g.CharacteristicName}', named '${g.Parameter}'`);
}

describe('the key audit of the guideline summary', () => {
  it('finds every row keyed by what its name says, or a reviewed reason why not', () => {
    expect(unexplained(guidelines)).toEqual([]);
  });

  it('fails on a row whose name and key disagree without a correction that says why', () => {
    const csv = readFileSync(new URL('./guidelines.csv', import.meta.url), 'utf8');
    const withoutRekeys = (corrections as Correction[]).filter((c) => c.rekey === undefined);
    const found = unexplained(loadGuidelines(csv, withoutRekeys));
    // The un-ionized ammonia rows keyed by 'Ammonia', the nitrate row keyed by a URL, DNOC keyed by another cresol…
    for (const id of [143, 144, 189, 308, 486, 668, 1436, 1440, 1477]) expect(found.some((f) => f.startsWith(`row ${id}:`)), String(id)).toBe(true);
  });

  it('lists no pair that no row has, each with a kind it names or a sentence', () => {
    const used = new Set(guidelines.map((g) => `${g.CharacteristicName}\0${g.Parameter}`));
    expect(audit.agree.filter((a) => !used.has(`${a.key}\0${a.name}`))).toEqual([]);
    for (const a of audit.agree) expect(kinds.has(a.why) || a.why.length > 40, `${a.key} ← ${a.name}: ${a.why}`).toBe(true);
  });

  it('keys no row by an ambiguous characteristic: the ammonia rows by total or un-ionized ammonia', () => {
    expect(guidelines.filter((g) => Object.hasOwn(ambiguousCharacteristics, g.CharacteristicName)).map((g) => g.Id)).toEqual([]);
    const key = (id: number) => guidelines.find((g) => g.Id === id)!.CharacteristicName;
    for (const id of [143, 144, 189]) expect(key(id), String(id)).toBe('Ammonia, un-ionized');
    for (const id of [75, 76, 98, 106, 187, 1337]) expect(key(id), String(id)).toBe('Ammonia and ammonium');
    // The table of ambiguous names is DataStream's: each is one its quality-control rules warn about.
    for (const name of Object.keys(ambiguousCharacteristics)) expect(upstreamRules.some((r) => r.name === `CharacteristicName-${name}`), name).toBe(true);
    for (const { candidates } of Object.values(ambiguousCharacteristics)) for (const c of candidates) expect(vocabulary.has(c), c).toBe(true);
  });

  it('lists exactly the keys outside DataStream’s vocabulary, which pair with no result', () => {
    const outside = [...new Set(guidelines.map((g) => g.CharacteristicName).filter((c) => !vocabulary.has(c)))].sort();
    expect(outside).toEqual([...audit.outsideVocabulary.keys].sort());
    for (const c of corrections as Correction[]) if (c.rekey) expect(vocabulary.has(c.rekey.CharacteristicName), `row ${c.id}`).toBe(true);
  });

  it('serves the publisher’s name beside the key, and a guideline for one form of a substance keyed by every form is not compared', () => {
    const row = (id: number) => guidelines.find((g) => g.Id === id)!;
    expect(row(143)).toMatchObject({ CharacteristicName: 'Ammonia, un-ionized', Parameter: 'Ammonia (un-ionized)', MethodSpeciation: 'as N', Expression: '0.016' });
    expect(row(143).Correction).toMatch(/deprecates as ambiguous.*Source: http/);
    for (const id of [83, 84, 808, 809, 810, 811]) expect(row(id).formula, String(id)).toBeUndefined();
  });
});
