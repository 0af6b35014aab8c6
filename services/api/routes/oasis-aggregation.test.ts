/**
 * The OASIS Data Aggregation ABNF test cases (../shared/odata/odata-aggregation-testcases.yaml), run over HTTP on the
 * fixture. Each case is classified by the first rule of OUT_OF_DIALECT that matches it (a reason, written from the
 * extension's own terms, and what the API answers), and a case no rule matches is in the dialect: it parses with
 * its own names, and, its model's names read as ours (NAMES), returns its groups with its aliases.
 *
 * The corpus models a sales service (Sales, Customers, Products with navigation); ours has no navigation property,
 * so the cases with paths, hierarchies and joins are out by construction, and say so.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseQuery } from '../odata/index.js';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';

interface Case {
  readonly Name: string;
  readonly Rule: string;
  readonly Input: string;
  readonly FailAt?: number;
}

const CORPUS = path.resolve(import.meta.dirname, '../../../../shared/odata/odata-aggregation-testcases.yaml');

interface Corpus {
  readonly Constraints: Record<string, string[]>;
  readonly TestCases: { Name: unknown; Rule: string; Input: unknown; FailAt?: number }[];
}

function loadCorpus(): Corpus {
  if (!existsSync(CORPUS)) throw new Error(`OASIS aggregation test cases not found at ${CORPUS}: the tests expect shared/odata/ beside the repository.`);
  return parseYaml(readFileSync(CORPUS, 'utf8')) as Corpus;
}

const corpus = loadCorpus();
/** The navigation properties of the corpus' model, as its Constraints list them. */
const NAVIGATION = [...(corpus.Constraints['entityNavigationProperty'] ?? []), ...(corpus.Constraints['entityColNavigationProperty'] ?? [])];

/** What a case out of the dialect gets: a 400 (or 404 for a path that names no resource), or nothing (not a request). */
type Answer = 400 | 404 | 'not a request';

/** Why a case is out of the dialect, first match wins; each reason is one clause of the extension we do not offer. */
const OUT_OF_DIALECT: readonly { readonly reason: string; readonly answer: Answer; readonly matches: (c: Case) => boolean }[] = [
  { reason: 'must fail in OData itself (FailAt)', answer: 400, matches: (c) => c.FailAt !== undefined },
  { reason: 'a context URL, not a request', answer: 'not a request', matches: (c) => c.Input.startsWith('$metadata#') },
  { reason: 'an aggregate function of a common expression, outside $apply', answer: 'not a request', matches: (c) => c.Rule === 'commonExpr' },
  { reason: '$crossjoin: no such resource', answer: 404, matches: (c) => c.Input.startsWith('$crossjoin(') },
  { reason: 'aggregation in $filter, $orderby, $compute or $expand ($these, isdefined, aggregate())', answer: 400, matches: (c) => !/^(\w+\?)?\$apply=/.test(c.Input) },
  { reason: 'hierarchy transformations and functions (rollup, ancestors, descendants, traverse)', answer: 400, matches: (c) => /\b(rollup|rolluprecursive|ancestors|descendants|traverse)\(/.test(c.Input) },
  { reason: 'transformations other than filter, groupby, aggregate, and orderby and top after them', answer: 400, matches: (c) => /\b(topcount|topsum|toppercent|bottomcount|bottomsum|bottompercent|concat|compute|addnested|nest|join|outerjoin|search|skip)\(|\bidentity\b/.test(c.Input) },
  { reason: 'orderby or top on their own: they sort and cut the groups of a groupby or aggregate', answer: 400, matches: (c) => /^\$apply=(orderby|top)\(/.test(c.Input) },
  { reason: 'navigation, type-cast or annotation paths: the resources have no navigation properties', answer: 400, matches: (c) => /[\w$]\/[\w$@]/.test(c.Input.replace(/^\$apply=filter\([^/]*\)\//, '$apply=')) },
  { reason: "a navigation property of the corpus' model (its Constraints): the resources have none", answer: 400, matches: (c) => NAVIGATION.some((n) => new RegExp(`\\b${n}\\b`).test(c.Input)) },
  { reason: 'aggregate … from (aggregation over a nested grouping)', answer: 400, matches: (c) => /\sfrom\s/.test(c.Input) },
  { reason: 'arithmetic or function expressions as the aggregated value', answer: 400, matches: (c) => /\s(add|sub|mul|div|mod)\s|\b(Self|Custom)\./.test(c.Input) },
  { reason: 'custom aggregates (dynamic properties such as Budget, Forecast)', answer: 400, matches: (c) => /\b(Budget|Forecast)\b/.test(c.Input) },
  { reason: 'a filter alone returns entities, not aggregates: use $filter', answer: 400, matches: (c) => /^\$apply=filter\([^/]*\)$/.test(c.Input) },
  { reason: 'a transformation after groupby or aggregate other than orderby and top', answer: 400, matches: (c) => /\)\/(?!orderby\(|top\()\w+\(/.test(c.Input.replace(/^\$apply=filter\([^/]*\)\//, '$apply=')) },
  { reason: 'grouping by a measured value: groups are the dimensions (docs/api.md)', answer: 400, matches: (c) => /groupby\(\([^)]*\bAmount\b/.test(c.Input) },
];

/** The corpus model's names as ours, for running a case on the fixture: a sale's amount is a value, and so on. */
const NAMES: Readonly<Record<string, string>> = { Amount: 'ResultValue', Name: 'CharacteristicName', Year: 'ActivityStartYear' };

function classify(c: Case): { reason: string; answer: Answer } | undefined {
  return OUT_OF_DIALECT.find((r) => r.matches(c));
}

/** The request a case makes on Observations, with the corpus' names read as ours. */
function request(c: Case): string {
  if (c.Input.startsWith('$crossjoin(')) return `/v1/odata/v4/${c.Input.slice(0, c.Input.indexOf('?'))}`;
  const query = c.Input.replace(/^\w+\?/, '');
  const ours = query.replace(/\b(Amount|Name|Year)\b/g, (n) => NAMES[n]!);
  const [option, value] = [ours.slice(0, ours.indexOf('=')), ours.slice(ours.indexOf('=') + 1)];
  return `/v1/odata/v4/Observations?${encodeURIComponent(option)}=${encodeURIComponent(value)}`;
}

const cases: Case[] = corpus.TestCases.map((c) => ({ ...c, Name: String(c.Name), Input: String(c.Input).replace(/\s+/g, ' ') }));
const inDialect = cases.filter((c) => classify(c) === undefined);
const refused = cases.filter((c) => typeof classify(c)?.answer === 'number');

let fx: FixtureApp;
beforeAll(async () => {
  fx = await openFixtureApp(inject('apiFixtureDb'));
});
afterAll(() => fx.close());

describe('OASIS Data Aggregation test cases', () => {
  it('says of every case whether it is in the dialect, and why not', () => {
    const reasons = new Map<string, number>();
    for (const c of cases) {
      const reason = classify(c)?.reason ?? 'in the dialect';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    console.log([...reasons].map(([reason, n]) => `${n} ${reason}`).join('\n'));
    // At the time of writing 8 cases are in the dialect: aggregate and groupby over plain fields with the standard
    // methods and $count, a filter before them, and groupby alone. A drop means the corpus or the dialect changed.
    expect(inDialect.length).toBeGreaterThanOrEqual(8);
    expect(inDialect.map((c) => c.Input)).toEqual(expect.arrayContaining([
      '$apply=aggregate(Amount with sum as Total)',
      '$apply=aggregate($count as SalesCount)',
      'Customers?$apply=groupby((Name))',
      '$apply=groupby((Name),aggregate(Amount with sum as Total))',
      '$apply=filter(Amount le 1)/aggregate(Amount with sum as Total)',
    ]));
  });

  it.each(inDialect.map((c) => [c.Input, c] as const))('in the dialect, parses and runs: %s', async (_input, c) => {
    const query = c.Input.replace(/^\w+\?/, '');
    expect(() => parseQuery(`${query.slice(0, query.indexOf('=') + 1)}${encodeURIComponent(query.slice(query.indexOf('=') + 1))}`)).not.toThrow();
    // One unit, so that a sum or an average of values is answered (values in several units are refused).
    const res = await fx.app.request(`${request(c)}&$filter=${encodeURIComponent("ResultUnit eq 'mg/L'")}`);
    const body = (await res.json()) as { value: Record<string, unknown>[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.value.length).toBeGreaterThan(0);
    const aliases = [...c.Input.matchAll(/\bas (\w+)/g)].map((m) => m[1]!);
    for (const alias of aliases) expect(body.value[0]).toHaveProperty(alias);
  });

  // The corpus' sorting cases (§3.3.1 after a groupby) use navigation paths; read as our plain fields, they must sort
  // the groups as the case asks: the path's last segment is the field, the model's names ours (NAMES).
  const sorting = cases.filter((c) => /^\$apply=groupby\(.*\)\/orderby\([^()]*\)$/.test(c.Input) && classify(c)?.answer === 400);
  it.each(sorting.map((c) => [c.Input, c] as const))('a sorting case with its paths read as our fields sorts as asked: %s', async (_input, c) => {
    const plain = { ...c, Input: c.Input.replace(/\b\w+\/(\w+)/g, '$1') };
    expect(classify(plain), plain.Input).toBeUndefined();
    const [, key, direction] = /orderby\((\w+)( desc)?\)/.exec(plain.Input)!;
    const res = await fx.app.request(`${request(plain)}&$filter=${encodeURIComponent("ResultUnit eq 'mg/L'")}`);
    const body = (await res.json()) as { value: Record<string, number>[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const values = body.value.map((g) => g[key!]!);
    expect(values.length).toBeGreaterThan(1);
    expect(values).toEqual([...values].sort((a, b) => (direction ? b - a : a - b)));
  });

  it.each(refused.map((c) => [`${classify(c)!.reason} · ${c.Input}`, c] as const))('out of the dialect, refused: %s', async (_label, c) => {
    const res = await fx.app.request(request(c));
    expect(res.status).toBe(classify(c)!.answer);
    if (res.status === 400) expect(((await res.json()) as { errors: unknown[] }).errors).toHaveLength(1);
  });
});
