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
 * (counts, extremes, the exact groups' type-7 percentiles); the Kaplan–Meier curve (running counts with RANGE
 * frames, then a running product) over the rows of the `km` groups alone (§4.4).
 */
export function kmSummarySql(spec: KmSummaryInput): string {
  const keys = spec.keys.map(spec.names.ident);
  const k = (alias: string) => keys.map((key) => `${alias}.${key}`).join(', ');
  const same = (a: string, b: string) => keys.map((key) => `${a}.${key} IS NOT DISTINCT FROM ${b}.${key}`).join(' AND ');
  const carried = Object.entries(spec.carry ?? {}).map(([name, sql]) => `${sql} AS ${spec.names.ident(name)}`);
  const ctes = [
    `km_g AS (${groupPass(spec.input, keys, carried)})`,
    `km_m AS (SELECT *, ${methodSql(spec.names)} FROM km_g)`,
    `km_c AS (${curveSql(spec.input, keys, k, same)})`,
    `km_a AS (${curveSummarySql(keys)})`,
  ];
  const outKeys = keys.map((key) => `m.${key}`);
  const carriedOut = Object.keys(spec.carry ?? {}).map((name) => `m.${spec.names.ident(name)}`);
  return `WITH ${ctes.join(',\n')}\nSELECT ${[...outKeys, ...carriedOut, ...reportSql(spec.names)].join(', ')} FROM km_m m LEFT JOIN km_a a ON ${same('a', 'm')}`;
}

/** Every group's counts and extremes, and the exact statistics of its detected values. */
function groupPass(input: string, keys: readonly string[], carried: readonly string[]): string {
  const d = `km_k = ${KM_KIND.detected}`;
  const l = `km_k = ${KM_KIND.left}`;
  const r = `km_k = ${KM_KIND.right}`;
  const items = [
    'count(km_k) AS n', `count(*) FILTER (WHERE ${l}) AS nl`, `count(*) FILTER (WHERE ${r}) AS nr`,
    `min(km_x) FILTER (WHERE ${d}) AS dmin`, `max(km_x) FILTER (WHERE ${d}) AS dmax`,
    `max(km_x) FILTER (WHERE ${l}) AS lmax`, `min(km_x) FILTER (WHERE ${r}) AS rmin`,
    // §5.4: the extremes with the kind that gives them, ties broken by KM_KIND's order.
    `min({'x': km_x, 'k': km_k}) FILTER (WHERE km_k IS NOT NULL) AS lo`, `max({'x': km_x, 'k': km_k}) FILTER (WHERE km_k IS NOT NULL) AS hi`,
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
  return `${method}, ${reason}, (nr = 0 OR ${a}) AS down`;
}

/**
 * §4 per distinct detected value d of each `km` group: F(d) and F(d−), with L* (the largest left limit ≤ d) and R*
 * (the smallest right limit ≥ d) read at the ends. At risk at d: detected values and left limits ≤ d walking down
 * (r), detected values and right limits ≥ d walking up (s); RANGE frames count a limit equal to d as at risk (§4.3).
 */
function curveSql(input: string, keys: readonly string[], k: (alias: string) => string, same: (a: string, b: string) => string): string {
  const part = `PARTITION BY ${keys.join(', ')}`;
  const upTo = `(${part} ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;
  const from = `(${part} ORDER BY x RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)`;
  const rows = `SELECT ${k('i')}, i.km_k AS k, i.km_x AS x, m.n, m.nl, m.nr, m.down FROM ${input} i JOIN km_m m ON ${same('i', 'm')} WHERE m.method = 'km' AND i.km_k IS NOT NULL`;
  const atRisk =
    `SELECT ${keys.join(', ')}, k, x, n, nl, nr, down, ` +
    `count(*) FILTER (WHERE k <= ${KM_KIND.detected}) OVER ${upTo} AS r, count(*) FILTER (WHERE k >= ${KM_KIND.detected}) OVER ${from} AS s, ` +
    `max(x) FILTER (WHERE k = ${KM_KIND.left}) OVER ${upTo} AS l_star, min(x) FILTER (WHERE k = ${KM_KIND.right}) OVER ${from} AS r_star FROM (${rows})`;
  const steps =
    `SELECT ${keys.join(', ')}, x AS d, any_value(n) AS n, any_value(nl) AS nl, any_value(nr) AS nr, any_value(down) AS down, any_value(l_star) AS l_star, ` +
    `any_value(r_star) AS r_star, CASE WHEN any_value(down) THEN 1 - count(*) / any_value(r) ELSE 1 - count(*) / any_value(s) END AS f ` +
    `FROM (${atRisk}) WHERE k = ${KM_KIND.detected} GROUP BY ${keys.join(', ')}, x`;
  // Case L: F(d_j) = (1 − n_R/n) Π_{i>j} f_i, F(d_j−) = F(d_j) f_j. Case R: S(d_j) = (1 − n_L/n) Π_{i≤j} f_i, F = 1 − S.
  const above = (frame: string) => `product(f) OVER (${part} ORDER BY d DESC ROWS BETWEEN UNBOUNDED PRECEDING AND ${frame})`;
  const below = (frame: string) => `product(f) OVER (${part} ORDER BY d ROWS BETWEEN UNBOUNDED PRECEDING AND ${frame})`;
  const top = '(n - nr) / n';
  const bottom = '(n - nl) / n';
  return (
    `SELECT ${keys.join(', ')}, d, l_star, r_star, ` +
    `CASE WHEN down THEN ${top} * coalesce(${above('1 PRECEDING')}, 1) ELSE 1 - ${bottom} * ${below('CURRENT ROW')} END AS F, ` +
    `CASE WHEN down THEN ${top} * ${above('CURRENT ROW')} ELSE 1 - ${bottom} * coalesce(${below('1 PRECEDING')}, 1) END AS Fm ` +
    `FROM (${steps})`
  );
}

/**
 * Per `km` group: the mass below d₁ and F(d_k), L* and R*, the smallest d with F(d) ≥ p − ε, and §5.3's mean. L* and
 * R* are read at d₁ and d_k even when null there (`arg_min_null`: plain arg_min skips a null and reads the next row's).
 */
function curveSummarySql(keys: readonly string[]): string {
  const at = (p: number) => `min(d) FILTER (WHERE F >= ${p} - ${KM_EPSILON}) AS ${percentColumn(p)}`;
  return (
    `SELECT ${keys.join(', ')}, arg_min(Fm, d) AS m_low, arg_max(F, d) AS f_top, arg_min_null(l_star, d) AS l_star, arg_max_null(r_star, d) AS r_star, ` +
    `${at(0.1)}, ${at(0.5)}, ${at(0.9)}, sum(d * (F - Fm)) + min(d) * arg_min(Fm, d) AS mean FROM km_c GROUP BY ${keys.join(', ')}`
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
    km_min: 'm.lo.x', km_min_q: qualifier('m.lo.k'), km_max: 'm.hi.x', km_max_q: qualifier('m.hi.k'),
    // §5.3: no mean above an open top (a right limit at or above the largest detected value).
    km_mean: `CASE m.method WHEN 'exact' THEN m.mean7 WHEN 'km' THEN CASE WHEN a.r_star IS NULL THEN a.mean END END`,
    km_p10: p10!, km_p10_q: p10q!, km_median: median!, km_median_q: medianq!, km_p90: p90!, km_p90_q: p90q!,
  };
  return KM_OUTPUT.map((name) => `${columns[name]} AS ${name}`);
}
