/** What every section of the run shares: settings, the API's address and client, DuckDB, filters, the results. */
import type { Client } from './client.js';
import type { Duck } from './duck.js';
import type { Filters } from './filters.js';
import { summarise } from './stats.js';
import type { Figure } from './table.js';

export interface Settings {
  readonly rows: number;
  readonly seed: number;
  readonly quick: boolean;
  /** Runs of every latency figure (after one warm-up). */
  readonly runs: number;
  /** Runs of each full extract. */
  readonly extractRuns: number;
  readonly skipPostgres: boolean;
  /** CSV and Arrow extracts read every row even at 10M (BENCH_FULL_FORMATS=1). */
  readonly fullFormats: boolean;
}

export interface Context {
  readonly settings: Settings;
  readonly base: string;
  readonly apiPid: number;
  /** HTTP and PostgreSQL, one request at a time, through the measuring client's process (client.ts). */
  readonly client: Client;
  readonly duck: Duck;
  readonly filters: Filters;
  readonly figures: Figure[];
  /** Everything else worth keeping in the JSON (per-run samples, diagnoses). */
  readonly details: Record<string, unknown>;
  readonly log: (line: string) => void;
}

/** `warmups` unmeasured calls, then `runs` measured ones. */
export async function repeat<T>(runs: number, warmups: number, fn: () => Promise<T>): Promise<T[]> {
  for (let i = 0; i < warmups; i++) await fn();
  const out: T[] = [];
  for (let i = 0; i < runs; i++) out.push(await fn());
  return out;
}

export const summary = (xs: readonly number[]) => summarise(xs);
export const ratioOfMedians = (a: readonly number[], b: readonly number[]) => summarise(a).median / summarise(b).median;
