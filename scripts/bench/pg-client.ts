/**
 * The PostgreSQL side of §6 as the measuring client runs it (client-child.ts): connection settings and the timed
 * queries. It lives in the lean client process (client.ts says why), which loads `pg` only when §6 begins: `pg`
 * grows a heap that must stay small.
 */
import type pg from 'pg';

/** `BENCH_PG_DATABASE` (default `tributary_bench`): the database §6 loads and queries; a plain name (it is put in DDL). */
export const PG_DATABASE = databaseName(process.env.BENCH_PG_DATABASE || 'tributary_bench');

function databaseName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`BENCH_PG_DATABASE must be a plain lower-case name (letters, digits, _), got ${JSON.stringify(name)}`);
  return name;
}

export const PG_CONNECTION = { host: process.env.PGHOST || '127.0.0.1', port: Number(process.env.PGPORT || 5432), user: process.env.PGUSER || 'postgres' };

export type PgValue = string | number | boolean | null;

/** A keyset page's SQL, selecting `"Id"` and the row's JSON text `j`; when paging on, the last Id is bound as its last parameter. */
export interface PgPageSql {
  readonly text: string;
  readonly values: readonly PgValue[];
}

export interface PgPage {
  readonly ms: number;
  readonly rows: number;
  readonly bytes: number;
  readonly last?: number;
}

export interface PgTimed {
  page(q: PgPageSql): Promise<PgPage>;
  /** Every page of `first`, then of `next` with the last Id appended to its values, until a page has fewer than `top` rows. */
  extract(first: PgPageSql, next: PgPageSql, top: number): Promise<{ ms: number; rows: number; bytes: number }>;
  count(q: PgPageSql): Promise<{ ms: number; n: number }>;
  close(): Promise<void>;
}

export async function connectTimed(): Promise<PgTimed> {
  const { default: Pg } = await import('pg');
  // row_to_json text is kept as text (the API's body is not parsed either).
  const client = new Pg.Client({ ...PG_CONNECTION, database: PG_DATABASE, types: { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig });
  await client.connect();
  const page = async (q: PgPageSql): Promise<PgPage> => {
    const started = performance.now();
    const res = await client.query({ text: q.text, values: [...q.values], rowMode: 'array' });
    const ms = performance.now() - started;
    let bytes = 0;
    for (const r of res.rows as [string, string][]) bytes += Buffer.byteLength(r[1]);
    const lastRow = res.rows[res.rows.length - 1] as [string, string] | undefined;
    return { ms, rows: res.rows.length, bytes, last: lastRow ? Number(lastRow[0]) : undefined };
  };
  return {
    page,
    async extract(first, next, top) {
      const started = performance.now();
      let rows = 0;
      let bytes = 0;
      for (let p = await page(first); ; ) {
        rows += p.rows;
        bytes += p.bytes;
        if (p.rows < top) break;
        p = await page({ text: next.text, values: [...next.values, p.last!] });
      }
      return { ms: performance.now() - started, rows, bytes };
    },
    async count(q) {
      const started = performance.now();
      const res = await client.query({ text: q.text, values: [...q.values] });
      return { ms: performance.now() - started, n: Number((res.rows[0] as Record<string, string>)['n']) };
    },
    close: () => client.end(),
  };
}
