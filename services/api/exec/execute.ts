/**
 * The execution stage: a plan and a snapshot → what the plan asks for, as values or as a row stream. The one
 * stage that sequences queries (routes call it once; it compiles and runs, possibly several times for a page):
 * - count: one query, one number;
 * - apply: its estimate (the rows it reads, its groups: exec/apply-estimate.ts), then one query over the statistics
 *   tables or the observations, the groups as values (another only to name the units of a refused aggregate);
 * - page: phase one finds the page's Ids by a window strategy (exec/page-window.ts), phase two reads its rows by
 *   a row source (below): typed columns for Arrow, text from the page's window or from a cursor for JSON and CSV
 *   (exec/page-text.ts).
 *
 * A page's rows are a generator that starts only when first read: the caller can still refuse the page (its size)
 * or frame it before any query of phase two runs.
 */
import type { ColumnChunk, Snapshot } from '../db/snapshot.js';
import { isTextFormat } from '../formats.js';
import { ApiError } from '../errors.js';
import { compileApply, compileMixedUnits, unitChecks } from '../query/compile-apply.js';
import { KM_VALUE, type Measure } from '../query/measures.js';
import { compileCount } from '../query/compile-count.js';
import type { ApplyPlan, CountPlan, Key, PagePlan, Plan } from '../query/plan.js';
import { cursorText, windowText, type TextPageRequest } from './page-text.js';
import { findPage, type PageWindow } from './page-window.js';
import { resolveLocations } from './resolve-locations.js';
import { estimateApply, tooManyGroups } from './apply-estimate.js';
import { assertNever } from '../assert-never.js';

export interface ExecuteOptions {
  /** Operational notes: a faster path that failed and was replaced (the client still got its page). */
  readonly log?: (msg: string) => void;
  /** MAX_APPLY_GROUPS: an `$apply` estimated to make more groups is refused before it runs; unlimited when left out. */
  readonly maxApplyGroups?: number | undefined;
}

export interface CountResult {
  readonly kind: 'count';
  readonly plan: CountPlan;
  readonly count: number;
}

/** One group of an `$apply` page: one value per grouped dimension, and one per aggregate (in the plan's order). */
export interface ApplyGroup {
  readonly keys: readonly unknown[];
  /** Numbers (counts, sums, means, percentiles), `YYYY-MM-DD` text (first and last dates) or null (no value). */
  readonly values: readonly (number | string | null)[];
}

export interface ApplyResult {
  readonly kind: 'apply';
  readonly plan: ApplyPlan;
  /** Up to `top` groups in their sort order. */
  readonly groups: readonly ApplyGroup[];
  readonly hasNext: boolean;
  /** The rows it read (exec/apply-estimate.ts): what the request is charged by. */
  readonly rowsRead: number;
}

/** A page's rows: JSON and CSV as the text DuckDB's COPY wrote (returns the row count), Arrow as typed chunks. */
export type PageRows =
  | { readonly kind: 'text'; readonly chunks: AsyncGenerator<Uint8Array, number> }
  | { readonly kind: 'columns'; readonly chunks: AsyncGenerator<ColumnChunk> };

export interface PageResult {
  readonly kind: 'page';
  readonly plan: PagePlan;
  /** The page's Ids in ascending order (at most `top`). */
  readonly ids: readonly Key[];
  /** A further row matched: the page gets a next link after its last Id. */
  readonly hasNext: boolean;
  readonly rows: PageRows;
  /** Every row the filter matches, when the plan asks for it (`withCount`). */
  readonly total?: number;
}

export type Execution = CountResult | ApplyResult | PageResult;

/**
 * @example
 * const result = await execute(planQuery(parseQuery('$top=10'), getResource('Records')!), snapshot, signal);
 * // result.kind === 'page': result.ids (10 Ids), result.hasNext, result.rows.chunks (the JSON text of the rows)
 */
export function execute(plan: PagePlan, snapshot: Snapshot, signal: AbortSignal, opts?: ExecuteOptions): Promise<PageResult>;
export function execute(plan: CountPlan, snapshot: Snapshot, signal: AbortSignal, opts?: ExecuteOptions): Promise<CountResult>;
export function execute(plan: Plan, snapshot: Snapshot, signal: AbortSignal, opts?: ExecuteOptions): Promise<Execution>;
export async function execute(given: Plan, snapshot: Snapshot, signal: AbortSignal, opts: ExecuteOptions = {}): Promise<Execution> {
  const plan = await resolveLocations(given, snapshot, signal);
  switch (plan.kind) {
    case 'count':
      return count(plan, snapshot, signal);
    case 'apply':
      return apply(plan, snapshot, signal, opts);
    case 'page':
      return page(plan, snapshot, signal, opts);
    default:
      return assertNever(plan);
  }
}

async function count(plan: CountPlan, snapshot: Snapshot, signal: AbortSignal): Promise<CountResult> {
  const cols = await snapshot.columns(compileCount(plan), signal);
  return { kind: 'count', plan, count: Number(cols['n']?.[0] ?? 0) };
}

/**
 * The groups of one page, `top + 1` asked so a next page is known. First its estimate (exec/apply-estimate.ts): past
 * MAX_APPLY_GROUPS it is refused before its GROUP BY runs. Values of more than one unit aggregated together are
 * refused, for the whole result: the query carries, on every row, the most units any group has (compile-apply.ts).
 */
async function apply(plan: ApplyPlan, snapshot: Snapshot, signal: AbortSignal, opts: ExecuteOptions): Promise<ApplyResult> {
  const estimate = await estimateApply(plan, snapshot, signal);
  if (opts.maxApplyGroups !== undefined && estimate.groups > opts.maxApplyGroups) throw tooManyGroups(plan, estimate, opts.maxApplyGroups);
  const cols = await snapshot.columns(compileApply(plan), signal);
  const checks = unitChecks(plan);
  for (const [i, measure] of checks.entries()) {
    if (Number(cols[`x${i}`]?.[0] ?? 0) > 1) throw await mixedUnits(plan, measure, snapshot, signal);
  }
  const rows = (cols['g0'] ?? cols['a0'] ?? []).length;
  const groups = Array.from({ length: Math.min(rows, plan.top) }, (_, row) => ({
    keys: plan.groupBy.map((_, i) => cols[`g${i}`]![row]),
    values: plan.aggregates.map((_, i) => aggregateValue(cols[`a${i}`]![row])),
  }));
  // $top=0 asks for no group: no next link either, or a client following it would loop.
  return { kind: 'apply', plan, groups, hasNext: plan.top > 0 && rows > plan.top, rowsRead: estimate.rowsRead };
}

function aggregateValue(v: unknown): number | string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return Number(v);
  return String(v);
}

/** The refusal of an aggregate over several units, naming the first such group and its units. */
async function mixedUnits(plan: ApplyPlan, measure: Measure, snapshot: Snapshot, signal: AbortSignal): Promise<ApiError> {
  const cols = await snapshot.columns(compileMixedUnits(plan, measure), signal);
  const found = JSON.parse(String(cols['units']?.[0] ?? '[]')) as string[];
  const units = found.map((u) => (u === '' ? '(no unit)' : `'${u}'`));
  const one = found.find((u) => u !== '');
  // A LocationId or a year arrives as a bigint, which JSON.stringify refuses.
  const shown = (v: unknown) => (typeof v === 'bigint' ? v.toString() : JSON.stringify(v ?? null));
  const group = plan.groupBy.map((d, i) => `${d.name} ${shown(cols[`g${i}`]?.[0])}`).join(', ');
  const where = group ? ` in the group ${group}` : '';
  if (measure === KM_VALUE) return kmMixedUnits(units, where, one);
  return new ApiError(
    'mixed_units',
    `${measure.name} is in more than one ${measure.unit}${where} (${units.join(', ')}): values in different units are never aggregated together. ` +
      `Add ${measure.unit} to groupby, e.g. groupby((${[...plan.groupBy.map((d) => d.name), measure.unit].join(',')}),aggregate(…)), or filter to one unit, e.g. $filter=${measure.unit} eq ${one === undefined ? 'null' : `'${one.replaceAll("'", "''")}'`}.`,
    { parameter: '$apply' },
  );
}

/**
 * The km methods' refusal: their unit is a row's ResultUnit or a non-detect's limit unit, so grouping by ResultUnit
 * does not separate them; the filter that selects one unit's rows does (../shared/statistics/README.md §7).
 */
function kmMixedUnits(units: readonly string[], where: string, one: string | undefined): ApiError {
  const unit = `'${(one ?? 'ug/L').replaceAll("'", "''")}'`;
  return new ApiError(
    'mixed_units',
    `The km methods' results are in more than one unit${where} (${units.join(', ')}; a non-detect without a ResultUnit is in its limit's unit): values in different units are never aggregated together. ` +
      `Filter to one unit, e.g. $filter=ResultUnit eq ${unit} or (ResultUnit eq null and ResultDetectionQuantitationLimitUnit eq ${unit}).`,
    { parameter: '$apply' },
  );
}

async function page(plan: PagePlan, snapshot: Snapshot, signal: AbortSignal, opts: ExecuteOptions): Promise<PageResult> {
  if (plan.top === 0) return emptyPage(plan, snapshot, signal);
  const window = await findPage(snapshot, plan, signal);
  const hasNext = window.ids.length > plan.top;
  const ids = hasNext ? window.ids.slice(0, plan.top) : window.ids;
  const req: RowsRequest = { snapshot, plan, window, ids, hasNext, signal, log: opts.log ?? (() => {}) };
  return { kind: 'page', plan, ids, hasNext, rows: ROW_SOURCES[chooseRowSource(plan, snapshot)](req) };
}

/** `$top=0`: no row is read and no next link is due; the count, when asked, is the CountPlan's. */
async function emptyPage(plan: PagePlan, snapshot: Snapshot, signal: AbortSignal): Promise<PageResult> {
  const total = plan.withCount ? (await count({ kind: 'count', resource: plan.resource, where: plan.where }, snapshot, signal)).count : undefined;
  const rows: PageRows = isTextFormat(plan.format) ? { kind: 'text', chunks: noText() } : { kind: 'columns', chunks: nothing<ColumnChunk>() };
  return { kind: 'page', plan, ids: [], hasNext: false, rows, ...(total === undefined ? {} : { total }) };
}

async function* noText(): AsyncGenerator<Uint8Array, number> {
  return 0;
}

interface RowsRequest extends Omit<TextPageRequest, 'plan'> {
  readonly plan: PagePlan;
}

export type RowSourceKind = 'columns' | 'window-text' | 'cursor-text';

/** The one decision of phase two: where this page's rows come from. */
export function chooseRowSource(plan: PagePlan, snapshot: Pick<Snapshot, 'cursors'>): RowSourceKind {
  if (!isTextFormat(plan.format)) return 'columns';
  // Cursors continue plain-filter scans of the one large table (its `pages` door says so); the rest is small enough per page.
  return snapshot.cursors && plan.resource.pages.cursors ? 'cursor-text' : 'window-text';
}

const ROW_SOURCES: { readonly [K in RowSourceKind]: (req: RowsRequest) => PageRows } = {
  /** Arrow: `id, c0, c1, …` of the window as typed values (collection.test.ts 'Arrow'). */
  columns: ({ snapshot, plan, window, ids, signal }) => ({
    kind: 'columns',
    chunks: ids.length ? snapshot.streamColumns(window.rows(plan.format, ids.length), signal) : nothing<ColumnChunk>(),
  }),
  'window-text': (req) => ({ kind: 'text', chunks: windowText(textRequest(req)) }),
  'cursor-text': (req) => ({ kind: 'text', chunks: cursorText(textRequest(req)) }),
};

function textRequest(req: RowsRequest): TextPageRequest {
  const { plan } = req;
  const format = plan.format;
  if (!isTextFormat(format)) throw new Error(`a ${format} page is read as columns, not as text`);
  return { ...req, plan: { ...plan, format } };
}

async function* nothing<T>(): AsyncGenerator<T> {}
