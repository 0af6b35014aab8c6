/**
 * The filters of the benchmark, discovered from the data so they mean the same at any ROWS: each one as OData
 * text for the API and as a SQL predicate on the observations table (values bound, never inlined) for
 * DuckDB's and PostgreSQL's own queries.
 */
import { RARE_CHARACTERISTIC } from '../sample/generate.js';
import { num, type Duck } from './duck.js';

export type Value = string | number;

/** A predicate on `observations` with `?` placeholders, numbered by `bind`. */
export interface Predicate {
  readonly sql: string;
  readonly params: readonly Value[];
}

export interface Shape {
  readonly key: string;
  readonly label: string;
  /** `$filter` text; undefined for no filter. */
  readonly odata?: string;
  readonly where?: Predicate;
}

/** Numbers the placeholders `$start`, `$start+1`, … (DuckDB and PostgreSQL both take `$n`). */
export function bind(p: Predicate, start = 1): string {
  let n = start;
  return p.sql.replace(/\?/g, () => `$${n++}`);
}

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const col = (c: string) => `"${c}"`;

function eq(field: string, v: Value): Shape['where'] & { odata: string } {
  return { sql: `${col(field)} = ?`, params: [v], odata: `${field} eq ${typeof v === 'string' ? q(v) : v}` };
}

function inList(field: string, vs: readonly string[]) {
  return { sql: `${col(field)} IN (${vs.map(() => '?').join(', ')})`, params: vs, odata: `${field} in (${vs.map(q).join(',')})` };
}

function and(...parts: readonly { sql: string; params: readonly Value[]; odata: string }[]) {
  return { sql: parts.map((p) => `(${p.sql})`).join(' AND '), params: parts.flatMap((p) => p.params), odata: parts.map((p) => p.odata).join(' and ') };
}

function region(id: string) {
  return { sql: `"LocationId" IN (SELECT "LocationId" FROM "location_regions" WHERE "RegionId" = ?)`, params: [id], odata: `RegionId eq ${q(id)}` };
}

function shape(key: string, label: string, p?: { sql: string; params: readonly Value[]; odata: string }): Shape {
  return p ? { key, label, odata: p.odata, where: { sql: p.sql, params: p.params } } : { key, label };
}

const pct = (x: number) => `${Number((x * 100).toPrecision(2))}%`;

export interface Filters {
  readonly totalRows: number;
  /** §2 and §6: page filters. */
  readonly pages: readonly Shape[];
  /** §4: count shapes on Records (observation-level). */
  readonly counts: readonly Shape[];
  /** §4: coarse-by-fine counts on Locations and Metadata, with the raw SQL counting the same thing. */
  readonly coarse: readonly { resource: 'Locations' | 'Metadata'; shape: Shape; rawSql: string }[];
  readonly applyGroupBy: readonly [string, string];
  /** §3: the subset the partitioned extract reads. */
  readonly subset: Shape;
  /** Fraction of all rows each filter matches, by key. */
  readonly share: Record<string, number>;
}

export async function discoverFilters(duck: Duck): Promise<Filters> {
  const total = num((await duck.all(`SELECT sum(n) AS n FROM observation_stats`))[0]!['n']!);
  const chars = await duck.all(`SELECT "CharacteristicName" AS c, sum(n) AS n FROM observation_stats GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 2`);
  const top2 = chars.map((r) => String(r['c']));
  const loc = await duck.all(`SELECT "LocationId" AS id, sum(n) AS n FROM observation_stats GROUP BY 1 ORDER BY abs(sum(n) - ${total} * 0.001), 1 LIMIT 1`);
  const locationId = num(loc[0]!['id']!);
  const dois = (await duck.all(`SELECT DISTINCT "DOI" AS d FROM locations ORDER BY 1 LIMIT 3`)).map((r) => String(r['d']));
  const years = (await duck.all(`SELECT min("ActivityStartYear") AS lo, max("ActivityStartYear") AS hi FROM observation_stats`))[0]!;
  const [lo, hi] = [num(years['lo']!), num(years['hi']!)];
  const y1 = Math.round(lo + (hi - lo) * 0.25);
  const y2 = Math.round(lo + (hi - lo) * 0.75);
  const reg = String((await duck.all(`SELECT "RegionId" AS r FROM location_regions WHERE "RegionId" LIKE 'admin.4.%' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`))[0]!['r']);
  const type = String((await duck.all(`SELECT "MonitoringLocationType" AS t FROM locations GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`))[0]!['t']);

  // §3: whole field/lab datasets (many locations each) until about a tenth of the rows: 1M of the default 10M.
  const perDoi = await duck.all(
    `SELECT l."DOI" AS d, count(DISTINCT l."Id") AS locs, sum(s.n) AS n FROM locations l JOIN observation_stats s ON s."LocationId" = l."Id" GROUP BY 1 HAVING count(DISTINCT l."Id") >= 100 ORDER BY 1`,
  );
  const subsetDois: string[] = [];
  let subsetRows = 0;
  for (const r of perDoi) {
    if (subsetRows >= total * 0.1) break;
    subsetDois.push(String(r['d']));
    subsetRows += num(r['n']!);
  }

  const pages = [
    shape('none', 'no filter'),
    // The issue calls these "~10%" and "~0.1%"; the labels say what they are in this sample.
    shape('char2', `CharacteristicName in (2 most common: ${pct(chars.reduce((a, r) => a + num(r['n']!), 0) / total)})`, inList('CharacteristicName', top2)),
    shape('location', `one LocationId (nearest to 0.1%: ${pct(num(loc[0]!['n']!) / total)})`, eq('LocationId', locationId)),
    shape('rare', `sparse: ${RARE_CHARACTERISTIC}`, eq('CharacteristicName', RARE_CHARACTERISTIC)),
  ];
  const counts = [
    pages[0]!,
    shape('doi3', 'DOI in (3)', inList('DOI', dois)),
    pages[2]!,
    pages[1]!,
    shape('years', `ActivityStartYear ge ${y1} and le ${y2}`, and(
      { sql: `"ActivityStartYear" >= ?`, params: [y1], odata: `ActivityStartYear ge ${y1}` },
      { sql: `"ActivityStartYear" <= ?`, params: [y2], odata: `ActivityStartYear le ${y2}` },
    )),
    shape('region', `RegionId eq ${reg}`, region(reg)),
    shape('type', `MonitoringLocationType eq ${type}`, eq('MonitoringLocationType', type)),
    shape('combo4', 'combination of four', and(eq('CharacteristicName', top2[0]!), { sql: `"ActivityStartYear" >= ?`, params: [y1], odata: `ActivityStartYear ge ${y1}` }, region(reg), eq('MonitoringLocationType', type))),
    pages[3]!,
  ];
  const fine = eq('CharacteristicName', top2[0]!);
  const coarse = [
    { resource: 'Locations' as const, shape: shape('locations-by-char', `CharacteristicName eq (top)`, fine), rawSql: `SELECT count(DISTINCT "LocationId") AS n FROM observations WHERE ${bind(fine)}` },
    { resource: 'Metadata' as const, shape: shape('metadata-by-char', `CharacteristicName eq (top)`, fine), rawSql: `SELECT count(DISTINCT "DOI") AS n FROM observations WHERE ${bind(fine)}` },
  ];
  const subset = shape('subset', `DOI in (${subsetDois.length} datasets, ~10%)`, inList('DOI', subsetDois));

  const share: Record<string, number> = {};
  for (const s of [...counts, subset]) {
    const n = s.where ? num((await duck.all(`SELECT count(*) AS n FROM observations WHERE ${bind(s.where)}`, s.where.params as Value[]))[0]!['n']!) : total;
    share[s.key] = n / total;
  }
  return { totalRows: total, pages, counts, coarse, applyGroupBy: ['CharacteristicName', 'ActivityStartYear'], subset, share };
}
