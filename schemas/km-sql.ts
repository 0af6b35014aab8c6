/**
 * Statistics over results with non-detects (../shared/statistics/README.md, the contract; docs/statistics.md): each
 * row's kind and number (§2.1–§2.3), each group's Method (§3), its Kaplan–Meier curve (§4) and what a group reports
 * (§5), as DuckDB SQL. ingest's `location_summaries` and the API's `$apply` km methods both build their statistics
 * here, so a summary row and the `$apply` over the same rows give the same numbers.
 *
 * Catalogue → SQL text only: the caller hands in its qualified columns and its quoting (`KmNames`, each side's one
 * sql.ts), so this file escapes nothing itself. The conversion factors come from `unit_conversions`, which ingest
 * writes through UCUM (`ingest/unit-conversion.ts`): the units library never enters schemas/ or the API.
 */
import type { SqlNames } from './row-sql.js';

export type KmNames = Pick<SqlNames, 'ident' | 'constant'>;

/** §2.1: the conditions of a left-censored row ("below L") and of a right-censored one ("above R"). */
export const LEFT_CENSORED_CONDITIONS = ['Below Detection/Quantification Limit', 'Not Detected'] as const;
export const RIGHT_CENSORED_CONDITION = 'Above Detection/Quantification Limit';

/**
 * A usable row's kind as the SQL carries it. The order is the tie rule of Min and Max (§5.4): at the minimum a `<`
 * limit wins over a detected value, which wins over a `>` limit; at the maximum the reverse.
 */
export const KM_KIND = { left: 0, detected: 1, right: 2 } as const;

export type KmMethod = 'exact' | 'km' | 'none';

/** §3's seven MethodReason phrases, verbatim: clients may test them. */
export const METHOD_REASONS = {
  noUsable: 'no usable results',
  tooCensored: 'more than 80 % of results censored',
  exact: 'no censored results',
  overlap: 'left- and right-censored results overlap',
  left: 'left-censored results',
  right: 'right-censored results',
  both: 'left- and right-censored results',
} as const;

/** ε of §4.4: the curve's levels are products of fractions, and a double does not hit 0.5 exactly. */
export const KM_EPSILON = 1e-9;

/** Significant digits a converted limit keeps (§2.3), so 5 µg/L ties with a detected 0.005 mg/L. */
export const CONVERTED_LIMIT_DIGITS = 12;

/** A row's columns as the caller's query reads them (qualified SQL). */
export interface KmRowColumns {
  readonly value: string;
  readonly unit: string;
  readonly condition: string;
  readonly limit: string;
  readonly limitUnit: string;
}

/** The conversion joined to the row (`unit_conversions`: limit unit → result unit), qualified columns. */
export interface KmConversionColumns {
  readonly fromUnit: string;
  readonly toUnit: string;
  readonly factor: string;
  readonly offset: string;
}

/** The `unit_conversions` table's columns (schemas/storage.ts). */
export const UNIT_CONVERSION_COLUMNS = { fromUnit: 'from_unit', toUnit: 'to_unit', factor: 'factor', offset: 'offset' } as const;

/** The join condition of a row and its limit's conversion into its ResultUnit. */
export function kmConversionOn(row: KmRowColumns, conv: KmConversionColumns): string {
  return `${conv.fromUnit} = ${row.limitUnit} AND ${conv.toUnit} = ${row.unit}`;
}

/** Each row's group unit (§2.2), kind (§2.1; null when unusable) and number in the group's unit (§2.3). */
export interface KmRowSql {
  readonly unit: string;
  readonly kind: string;
  readonly number: string;
}

/**
 * The SQL of a row's unit, kind and number. A censored row is one of the three conditions with a limit and its unit;
 * without a ResultUnit it takes its limit's unit, with one its limit converts into it (rounded to 12 significant
 * digits) or the row is unusable.
 */
export function kmRowSql(row: KmRowColumns, conv: KmConversionColumns, names: KmNames): KmRowSql {
  const c = names.constant;
  const withLimit = `${row.value} IS NULL AND ${row.limit} IS NOT NULL AND ${row.limitUnit} IS NOT NULL`;
  const left = `${row.condition} IN (${LEFT_CENSORED_CONDITIONS.map(c).join(', ')})`;
  const right = `${row.condition} = ${c(RIGHT_CENSORED_CONDITION)}`;
  const asStored = `(${row.unit} IS NULL OR ${row.unit} = ${row.limitUnit})`;
  const converts = `(${asStored} OR ${conv.factor} IS NOT NULL)`;
  const kind =
    `CASE WHEN ${row.value} IS NOT NULL THEN ${KM_KIND.detected} ` +
    `WHEN ${withLimit} AND ${left} AND ${converts} THEN ${KM_KIND.left} ` +
    `WHEN ${withLimit} AND ${right} AND ${converts} THEN ${KM_KIND.right} END`;
  const converted = `CAST(printf('%.${CONVERTED_LIMIT_DIGITS - 1}e', ${row.limit} * ${conv.factor} + ${conv.offset}) AS DOUBLE)`;
  const number = `CASE WHEN ${row.value} IS NOT NULL THEN ${row.value} WHEN ${asStored} THEN ${row.limit} ELSE ${converted} END`;
  const unit = `coalesce(${row.unit}, CASE WHEN ${withLimit} AND (${left} OR ${right}) THEN ${row.limitUnit} END)`;
  return { unit, kind, number };
}

/** The statistics a group reports, as `kmSummarySql`'s output columns (beside the keys and carried aggregates). */
export const KM_OUTPUT = [
  'km_n', 'km_left', 'km_right', 'km_method', 'km_reason', 'km_min', 'km_min_q', 'km_max', 'km_max_q', 'km_mean',
  'km_p10', 'km_p10_q', 'km_median', 'km_median_q', 'km_p90', 'km_p90_q',
] as const;
export type KmOutput = (typeof KM_OUTPUT)[number];

export interface KmSummaryInput {
  /** A relation (a table, or a parenthesised query) with the keys, `km_k` (KM_KIND or null: unusable) and `km_x`. */
  readonly input: string;
  /** Its group columns, by name (quoted with `names.ident`); at least one (a constant for a single group). */
  readonly keys: readonly string[];
  /** Further aggregates over each group's rows, carried to the output under their names. */
  readonly carry?: Readonly<Record<string, string>>;
  readonly names: KmNames;
}

/**
 * One row per group of `input`: the keys, the carried aggregates and KM_OUTPUT. One aggregate pass over every row
 * (counts, extremes, the exact groups' type-7 percentiles); the Kaplan–Meier curve (running counts over each group's
 * distinct numbers, then a running product) over the rows of the `km` groups alone (§4.4).
 */
export function kmSummarySql(spec: KmSummaryInput): string {
  const keys = spec.keys.map(spec.names.ident);
  const same = (a: string, b: string) => keys.map((key) => `${a}.${key} IS NOT DISTINCT FROM ${b}.${key}`).join(' AND ');
  const carried = Object.entries(spec.carry ?? {}).map(([name, sql]) => `${sql} AS ${spec.names.ident(name)}`);
  // Each group numbered once (km_gid): the curve's rows join their group by its keys once, then partition by the number.
  const ctes = [
    `km_g AS (${groupPass(spec.input, keys, carried)})`,
    `km_m AS (SELECT *, ${methodSql(spec.names)}, row_number() OVER () AS km_gid FROM km_g)`,
    `km_c AS (${curveSql(spec.input, same)})`,
    `km_a AS (${curveSummarySql()})`,
  ];
  const outKeys = keys.map((key) => `m.${key}`);
  const carriedOut = Object.keys(spec.carry ?? {}).map((name) => `m.${spec.names.ident(name)}`);
  return `WITH ${ctes.join(',\n')}\nSELECT ${[...outKeys, ...carriedOut, ...reportSql(spec.names)].join(', ')} FROM km_m m LEFT JOIN km_a a ON a.gid = m.km_gid`;
}

/** Every group's counts and extremes, and the exact statistics of its detected values. */
function groupPass(input: string, keys: readonly string[], carried: readonly string[]): string {
  const d = `km_k = ${KM_KIND.detected}`;
  const l = `km_k = ${KM_KIND.left}`;
  const r = `km_k = ${KM_KIND.right}`;
  const items = [
    'count(km_k) AS n', `count(*) FILTER (WHERE ${l}) AS nl`, `count(*) FILTER (WHERE ${r}) AS nr`,
    `min(km_x) FILTER (WHERE ${d}) AS dmin`, `max(km_x) FILTER (WHERE ${d}) AS dmax`,
    `min(km_x) FILTER (WHERE ${l}) AS lmin`, `max(km_x) FILTER (WHERE ${l}) AS lmax`,
    `min(km_x) FILTER (WHERE ${r}) AS rmin`, `max(km_x) FILTER (WHERE ${r}) AS rmax`,
    // §5.2: Hyndman & Fan type 7 over the detected values, as every group without censored rows always had.
    `quantile_cont(km_x, [0.1, 0.5, 0.9]) FILTER (WHERE ${d}) AS q7`, `avg(km_x) FILTER (WHERE ${d}) AS mean7`,
  ];
  return `SELECT ${[...keys, ...items, ...carried].join(', ')} FROM ${input} GROUP BY ${keys.join(', ')}`;
}

/** §3, in its order: the first condition that applies. `down` is §4.1's walk (case L), else §4.2's (case R). */
function methodSql(names: KmNames): string {
  const c = names.constant;
  // (a) every right limit ≥ every detected value and every left limit; (b) every left limit ≤ every detected value and every right limit.
  const a = '(nr > 0 AND rmin >= dmax AND (nl = 0 OR rmin >= lmax))';
  const b = '(nl > 0 AND lmax <= dmin AND (nr = 0 OR lmax <= rmin))';
  const method =
    `CASE WHEN n = 0 THEN ${c('none')} WHEN 5 * (nl + nr) > 4 * n THEN ${c('none')} WHEN nl + nr = 0 THEN ${c('exact')} ` +
    `WHEN nl > 0 AND nr > 0 AND NOT ${a} AND NOT ${b} THEN ${c('none')} ELSE ${c('km')} END AS method`;
  const R = METHOD_REASONS;
  const reason =
    `CASE WHEN n = 0 THEN ${c(R.noUsable)} WHEN 5 * (nl + nr) > 4 * n THEN ${c(R.tooCensored)} WHEN nl + nr = 0 THEN ${c(R.exact)} ` +
    `WHEN nl > 0 AND nr > 0 AND NOT ${a} AND NOT ${b} THEN ${c(R.overlap)} ` +
    `WHEN nr = 0 THEN ${c(R.left)} WHEN nl = 0 THEN ${c(R.right)} ELSE ${c(R.both)} END AS reason`;
  // §5.4: the extremes as reported, ties broken by KM_KIND's order (`<` first at the minimum, `>` first at the maximum).
  const lo = 'least(lmin, dmin, rmin)';
  const hi = 'greatest(lmax, dmax, rmax)';
  const extremes =
    `${lo} AS lo, CASE ${lo} WHEN lmin THEN ${KM_KIND.left} WHEN dmin THEN ${KM_KIND.detected} WHEN rmin THEN ${KM_KIND.right} END AS lo_k, ` +
    `${hi} AS hi, CASE ${hi} WHEN rmax THEN ${KM_KIND.right} WHEN dmax THEN ${KM_KIND.detected} WHEN lmax THEN ${KM_KIND.left} END AS hi_k`;
  return `${method}, ${reason}, (nr = 0 OR ${a}) AS down, ${extremes}`;
}

/**
 * §4 per distinct detected value d of each `km` group: F(d) and F(d−), with the group's L* (the largest left limit
 * ≤ d₁) and R* (the smallest right limit ≥ d_k). The group's rows are first counted per distinct number (detected
 * values e, left and right limits there), so the running counts run over distinct numbers: at risk at d are the
 * detected values and left limits ≤ d walking down (r), the detected values and right limits ≥ d walking up (s), a
 * limit equal to d among them (§4.3).
 */
function curveSql(input: string, same: (a: string, b: string) => string): string {
  // Running sums and products in one ascending order, or over the whole group: DuckDB sorts each stage once and keeps
  // a cumulative frame streaming (a frame that runs to the end would build a segment tree per group).
  const group = '(PARTITION BY gid)';
  const window = (frame: string) => `(PARTITION BY gid ORDER BY x ROWS BETWEEN ${frame})`;
  const upTo = window('UNBOUNDED PRECEDING AND CURRENT ROW');
  const counted = (kind: number) => `count(*) FILTER (WHERE i.km_k = ${kind})`;
  const numbers =
    `SELECT m.km_gid AS gid, i.km_x AS x, ${counted(KM_KIND.detected)} AS e, ${counted(KM_KIND.left)} AS el, ${counted(KM_KIND.right)} AS er, ` +
    `any_value(m.n) AS n, any_value(m.nl) AS nl, any_value(m.nr) AS nr, any_value(m.down) AS down, any_value(m.dmin) AS dmin, any_value(m.dmax) AS dmax ` +
    `FROM ${input} i JOIN km_m m ON ${same('i', 'm')} WHERE m.method = 'km' AND i.km_k IS NOT NULL GROUP BY m.km_gid, i.km_x`;
  // r: detected values and left limits ≤ x; s: detected values and right limits ≥ x (the group's, less those below x).
  const atRisk =
    `SELECT *, sum(e + el) OVER ${upTo} AS r, sum(e + er) OVER ${group} - sum(e + er) OVER ${upTo} + e + er AS s, ` +
    `max(CASE WHEN el > 0 AND x <= dmin THEN x END) OVER ${group} AS l_star, min(CASE WHEN er > 0 AND x >= dmax THEN x END) OVER ${group} AS r_star FROM (${numbers})`;
  const steps = `SELECT gid, x, n, nl, nr, down, l_star, r_star, CASE WHEN down THEN 1 - e / r ELSE 1 - e / s END AS f FROM (${atRisk}) WHERE e > 0`;
  // Case L: F(d_j) = (1 − n_R/n) Π_{i>j} f_i, F(d_j−) = F(d_j) f_j. Case R: S(d_j) = (1 − n_L/n) Π_{i≤j} f_i, F = 1 − S.
  const product = (frame: string) => `product(f) OVER ${window(frame)}`;
  const top = '(n - nr) / n';
  const bottom = '(n - nl) / n';
  return (
    `SELECT gid, x AS d, l_star, r_star, ` +
    `CASE WHEN down THEN ${top} * coalesce(${product('1 FOLLOWING AND UNBOUNDED FOLLOWING')}, 1) ELSE 1 - ${bottom} * ${product('UNBOUNDED PRECEDING AND CURRENT ROW')} END AS F, ` +
    `CASE WHEN down THEN ${top} * ${product('CURRENT ROW AND UNBOUNDED FOLLOWING')} ELSE 1 - ${bottom} * coalesce(${product('UNBOUNDED PRECEDING AND 1 PRECEDING')}, 1) END AS Fm ` +
    `FROM (${steps})`
  );
}

/** Per `km` group: the mass below d₁ and F(d_k), L* and R*, the smallest d with F(d) ≥ p − ε, and §5.3's mean. */
function curveSummarySql(): string {
  const at = (p: number) => `min(d) FILTER (WHERE F >= ${p} - ${KM_EPSILON}) AS ${percentColumn(p)}`;
  return (
    `SELECT gid, arg_min(Fm, d) AS m_low, arg_max(F, d) AS f_top, any_value(l_star) AS l_star, any_value(r_star) AS r_star, ` +
    `${at(0.1)}, ${at(0.5)}, ${at(0.9)}, sum(d * (F - Fm)) + min(d) * arg_min(Fm, d) AS mean FROM km_c GROUP BY gid`
  );
}

/** The curve summary's column of the smallest detected value at level p. */
const percentColumn = (p: number) => `d${Math.round(p * 100)}`;

/** KM_OUTPUT from the group `m` and its curve `a` (§5). */
function reportSql(names: KmNames): string[] {
  const c = names.constant;
  const qualifier = (kind: string) => `CASE ${kind} WHEN ${KM_KIND.left} THEN ${c('<')} WHEN ${KM_KIND.right} THEN ${c('>')} END`;
  const percentile = (p: number, i: number) => {
    const below = `a.m_low + ${KM_EPSILON} >= ${p}`;
    const above = `${p} > a.f_top + ${KM_EPSILON}`;
    const value = `CASE m.method WHEN 'exact' THEN m.q7[${i}] WHEN 'km' THEN CASE WHEN ${below} THEN a.l_star WHEN ${above} THEN a.r_star ELSE a.${percentColumn(p)} END END`;
    const q = `CASE WHEN m.method = 'km' THEN CASE WHEN ${below} THEN ${c('<')} WHEN ${above} THEN ${c('>')} END END`;
    return [value, q];
  };
  const [p10, p10q] = percentile(0.1, 1);
  const [median, medianq] = percentile(0.5, 2);
  const [p90, p90q] = percentile(0.9, 3);
  const columns: Record<KmOutput, string> = {
    km_n: 'm.n', km_left: 'm.nl', km_right: 'm.nr', km_method: 'm.method', km_reason: 'm.reason',
    km_min: 'm.lo', km_min_q: qualifier('m.lo_k'), km_max: 'm.hi', km_max_q: qualifier('m.hi_k'),
    // §5.3: no mean above an open top (a right limit at or above the largest detected value).
    km_mean: `CASE m.method WHEN 'exact' THEN m.mean7 WHEN 'km' THEN CASE WHEN a.r_star IS NULL THEN a.mean END END`,
    km_p10: p10!, km_p10_q: p10q!, km_median: median!, km_median_q: medianq!, km_p90: p90!, km_p90_q: p90q!,
  };
  return KM_OUTPUT.map((name) => `${columns[name]} AS ${name}`);
}
