/**
 * The execution stage: a plan and a snapshot → what the plan asks for, as values or as a row stream. The one
 * stage that sequences queries (routes call it once; it compiles and runs, possibly several times for a page):
 * - count: one query, one number;
 * - apply: one query over the statistics tables, the groups as values;
 * - page: phase one finds the page's Ids by a window strategy (exec/page-window.ts), phase two reads its rows by
 *   a row source (below): typed columns for Arrow, text from the page's window or from a cursor for JSON and CSV
 *   (exec/page-text.ts).
 *
 * A page's rows are a generator that starts only when first read: the caller can still refuse the page (its size)
 * or frame it before any query of phase two runs.
 */
import type { ColumnChunk, Snapshot } from '../db/snapshot.js';
import { isTextFormat } from '../formats.js';
import { compileApply } from '../query/compile-apply.js';
import { compileCount } from '../query/compile-count.js';
import type { ApplyPlan, CountPlan, Key, PagePlan, Plan } from '../query/plan.js';
import { cursorText, windowText, type TextPageRequest } from './page-text.js';
import { findPage, type PageWindow } from './page-window.js';
import { resolveLocations } from './resolve-locations.js';
import { assertNever } from '../assert-never.js';

export interface ExecuteOptions {
  /** Operational notes: a faster path that failed and was replaced (the client still got its page). */
  readonly log?: (msg: string) => void;
}

export interface CountResult {
  readonly kind: 'count';
  readonly plan: CountPlan;
  readonly count: number;
}

/** One group of an `$apply` page: one value per grouped dimension, and its count. */
export interface ApplyGroup {
  readonly keys: readonly unknown[];
  readonly count: number;
}

export interface ApplyResult {
  readonly kind: 'apply';
  readonly plan: ApplyPlan;
  /** Up to `top` groups in their sort order. */
  readonly groups: readonly ApplyGroup[];
  readonly hasNext: boolean;
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
export function execute(plan: Plan, snapshot: Snapshot, signal: AbortSignal, opts?: ExecuteOptions): Promise<Execution>;
export async function execute(given: Plan, snapshot: Snapshot, signal: AbortSignal, opts: ExecuteOptions = {}): Promise<Execution> {
  const plan = await resolveLocations(given, snapshot, signal);
  switch (plan.kind) {
    case 'count':
      return count(plan, snapshot, signal);
    case 'apply':
      return apply(plan, snapshot, signal);
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

/** Aggregates are small (the statistics table is): `top + 1` groups say whether a next page exists. */
async function apply(plan: ApplyPlan, snapshot: Snapshot, signal: AbortSignal): Promise<ApplyResult> {
  const cols = await snapshot.columns(compileApply(plan), signal);
  const n = cols['n'] ?? [];
  const groups = Array.from({ length: Math.min(n.length, plan.top) }, (_, row) => ({
    keys: plan.groupBy.map((_, i) => cols[`g${i}`]![row]),
    count: Number(n[row]),
  }));
  // $top=0 asks for no group: no next link either, or a client following it would loop.
  return { kind: 'apply', plan, groups, hasNext: plan.top > 0 && n.length > plan.top };
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
  // Cursors continue plain-filter scans of the one large table; everything else is small enough per page.
  return snapshot.cursors && plan.resource.table === 'observations' ? 'cursor-text' : 'window-text';
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
