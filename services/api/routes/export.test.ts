/**
 * Whole-result exports (`/v1/export/{Records|Observations}`) over a real socket and a real published file. What an
 * export holds is checked against the paged API (every page of the same query, followed to the end) and its count
 * against reference SQL on the observations table; the Parquet file is read back by a separate DuckDB.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC, type Table } from 'apache-arrow';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../app.js';
import { openDatabase, type Database } from '../db/database.js';
import { listen, type TestServer } from '../testing/test-server.js';

let db: Database;
let server: TestServer;
let ref: DuckDBConnection;
let refInstance: DuckDBInstance;
let dir: string;
let characteristic: string;

beforeAll(async () => {
  const path = inject('apiFixtureDb');
  db = await openDatabase(path);
  server = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false } }));
  refInstance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  ref = await refInstance.connect();
  dir = mkdtempSync(join(tmpdir(), 'tributary-export-test-'));
  const top = await ref.runAndReadAll(`SELECT "CharacteristicName" AS c FROM observations GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`);
  characteristic = String(top.getRowObjects()[0]!['c']);
});
afterAll(async () => {
  await server.close();
  ref.closeSync();
  refInstance.closeSync();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const enc = (v: string) => encodeURIComponent(v).replace(/'/g, '%27');
/** Tests that need the COPY still running when the client stops reading ask for the body as it is: gzip (fetch's
 * default Accept-Encoding) shrinks ~45 MB of NDJSON to what the buffers between DuckDB and the client hold. */
const IDENTITY = { 'Accept-Encoding': 'identity' };
const filterOf = (c: string) => `CharacteristicName eq '${c.replaceAll("'", "''")}'`;

async function refCount(where = ''): Promise<number> {
  const r = await ref.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM observations ${where}`, []);
  return Number(r.getRowObjects()[0]!['n']);
}

/** Every page of a paged query, followed through @odata.nextLink (JSON) or Link (CSV). */
async function pages(first: string, format: 'json' | 'csv'): Promise<string[]> {
  const out: string[] = [];
  let next: string | undefined = `${server.origin}${first}`;
  while (next) {
    const res: Response = await fetch(next);
    expect(res.status).toBe(200);
    const text = await res.text();
    out.push(text);
    if (format === 'json') next = (JSON.parse(text) as { '@odata.nextLink'?: string })['@odata.nextLink'];
    else next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return out;
}

describe('a whole result in one response', () => {
  it('CSV: the header once, then exactly the lines of every $format=csv page of the same query, with the count in X-Total-Count', async () => {
    const q = `$filter=${enc(filterOf(characteristic))}&$select=Id,DOI,CharacteristicName,ResultValue,ActivityStartDate`;
    const res = await fetch(`${server.origin}/v1/export/Records?${q}&$format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Records.csv"');
    const expected = await refCount(`WHERE "CharacteristicName" = '${characteristic.replaceAll("'", "''")}'`);
    expect(expected).toBeGreaterThan(1000);
    expect(Number(res.headers.get('x-total-count'))).toBe(expected);
    const body = await res.text();

    const paged = await pages(`/v1/odata/v4/Records?${q}&$format=csv&$top=1000`, 'csv');
    expect(paged.length).toBeGreaterThan(1);
    const [header] = paged[0]!.split('\r\n');
    const lines = paged.flatMap((p) => p.split('\r\n').slice(1).filter(Boolean));
    expect(lines).toHaveLength(expected);
    expect(body).toBe(`${header}\r\n${lines.join('\r\n')}\r\n`);
  });

  it('NDJSON: one object per line, equal to the JSON pages\' value items, in Id order', async () => {
    const q = `$filter=${enc(`${filterOf(characteristic)} and ResultValue gt 5`)}`;
    const res = await fetch(`${server.origin}/v1/export/Observations?${q}`, { headers: { Accept: 'application/x-ndjson' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const rows = (await res.text()).split('\n');
    expect(rows.pop()).toBe('');
    const paged = (await pages(`/v1/odata/v4/Observations?${q}&$top=5000`, 'json')).flatMap((p) => (JSON.parse(p) as { value: unknown[] }).value);
    expect(rows.map((r) => JSON.parse(r))).toEqual(paged);
    expect(Number(res.headers.get('x-total-count'))).toBe(paged.length);
    const ids = rows.map((r) => (JSON.parse(r) as { Id: number }).Id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('Parquet by default: a file DuckDB reads back with the API\'s names and types, the same rows as the pages', async () => {
    const q = `$filter=${enc(filterOf(characteristic))}`;
    const res = await fetch(`${server.origin}/v1/export/Records?${q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(res.headers.get('content-encoding')).toBeNull();
    const file = join(dir, 'records.parquet');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));

    const described = (await ref.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).getRowObjects();
    const types = Object.fromEntries(described.map((r) => [String(r['column_name']), String(r['column_type'])]));
    expect(types).toMatchObject({ Id: 'BIGINT', DOI: 'VARCHAR', ResultValue: 'DOUBLE', ActivityStartDate: 'DATE' });

    const json = (await pages(`/v1/odata/v4/Records?${q}&$top=10000`, 'json')).flatMap((p) => (JSON.parse(p) as { value: Record<string, unknown>[] }).value);
    const fromFile = (await ref.runAndReadAll(`SELECT "Id", "CharacteristicName", "ResultValue", strftime("ActivityStartDate", '%Y-%m-%d') AS d FROM read_parquet('${file}')`)).getRowObjects();
    expect(fromFile.map((r) => [Number(r['Id']), r['CharacteristicName'], r['ResultValue'], r['d']])).toEqual(
      json.map((r) => [r['Id'], r['CharacteristicName'], r['ResultValue'], r['ActivityStartDate']]),
    );
    expect(Number(res.headers.get('x-total-count'))).toBe(json.length);
    expect(fromFile.length).toBe(json.length);
  });

  it('Arrow: one IPC stream of every row, the same schema and values as the $format=arrow pages', async () => {
    const q = `$filter=${enc(filterOf(characteristic))}&$select=Id,LocationId,ActivityStartDate,ResultValue,ResultUnit`;
    const res = await fetch(`${server.origin}/v1/export/Observations?${q}`, { headers: { Accept: 'application/vnd.apache.arrow.stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Observations.arrows"');
    const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
    expect(table.numRows).toBe(Number(res.headers.get('x-total-count')));
    const pagedTables: Table[] = [];
    let next: string | undefined = `${server.origin}/v1/odata/v4/Observations?${q}&$format=arrow&$top=2000`;
    while (next) {
      const page: Response = await fetch(next);
      pagedTables.push(tableFromIPC(new Uint8Array(await page.arrayBuffer())));
      next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    expect(pagedTables.length).toBeGreaterThan(1);
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual(pagedTables[0]!.schema.fields.map((f) => `${f.name}:${String(f.type)}`));
    expect(table.toArray().map((r) => r.toJSON())).toEqual(pagedTables.flatMap((t) => t.toArray().map((r) => r.toJSON())));
  });

  it('HEAD answers the count and the headers without running the COPY', async () => {
    const res = await fetch(`${server.origin}/v1/export/Records?$format=ndjson`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-total-count'))).toBe(await refCount());
    expect(await res.text()).toBe('');
    await expect.poll(() => db.acquire().snapshot.pipesInUse, { timeout: 5000 }).toBe(0);
  });
});

describe('bad requests get the page\'s errors, or the export\'s own', () => {
  it.each([
    ['$top=10', 400, 'unsupported_option', '$top'],
    ['$skiptoken=Id:5', 400, 'unsupported_option', '$skiptoken'],
    ['$count=true', 400, 'unsupported_option', '$count'],
    ['$format=xml', 406, 'not_acceptable', '$format'],
    ['$format=csv&$format=csv', 400, 'duplicate_option', '$format'],
    [`$filter=${enc('NoSuchField eq 1')}`, 400, undefined, '$filter'],
  ])('%s → %i', async (q, status, code, parameter) => {
    const res = await fetch(`${server.origin}/v1/export/Records?${q}`);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { message: string; errors: { code: string; source?: { parameter?: string } }[] };
    if (code) expect(body.errors[0]!.code).toBe(code);
    expect(body.errors[0]!.source?.parameter).toBe(parameter);
    if (status === 406) expect(body.message).toContain('parquet (application/vnd.apache.parquet), csv (text/csv), ndjson (application/x-ndjson), arrow (application/vnd.apache.arrow.stream)');
  });

  it('a filter the pages refuse is refused the same way', async () => {
    const q = `$filter=${enc("ResultValue eq 'x'")}`;
    const page = await fetch(`${server.origin}/v1/odata/v4/Records?${q}`);
    const exported = await fetch(`${server.origin}/v1/export/Records?${q}`);
    expect(exported.status).toBe(page.status);
    // The same error, each with its own request's id.
    const withoutId = async (res: Response) => {
      const { requestId, ...rest } = (await res.json()) as { requestId: string };
      expect(requestId).toBe(res.headers.get('x-request-id'));
      return rest;
    };
    expect(await withoutId(exported)).toEqual(await withoutId(page));
  });

  it('an Accept that names no export format is a 406 listing them; */* is Parquet', async () => {
    const res = await fetch(`${server.origin}/v1/export/Records`, { headers: { Accept: 'application/xml' } });
    expect(res.status).toBe(406);
    expect(((await res.json()) as { message: string }).message).toContain('$format=<name>');
    const any = await fetch(`${server.origin}/v1/export/Records?$select=Id`, { method: 'HEAD', headers: { Accept: '*/*' } });
    expect(any.headers.get('content-type')).toBe('application/vnd.apache.parquet');
  });

  it('Locations and Metadata are not exported (their dataset files are): 404 naming the exports there are', async () => {
    const res = await fetch(`${server.origin}/v1/export/Locations`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain('/v1/export/Observations, /v1/export/Records, /v1/export/LocationSummaries');
  });
});

describe('an export that cannot finish', () => {
  it('a client that disconnects stops the query and gives its pipe back', async () => {
    const controller = new AbortController();
    // NDJSON of every row (~45 MB) cannot all sit in the buffers between DuckDB and the client: the COPY is still running.
    const res = await fetch(`${server.origin}/v1/export/Records?$format=ndjson`, { signal: controller.signal, headers: IDENTITY });
    const reader = res.body!.getReader();
    await reader.read();
    const snapshot = db.acquire().snapshot;
    expect(snapshot.pipesInUse).toBe(1);
    controller.abort();
    await expect.poll(() => snapshot.pipesInUse, { timeout: 10_000 }).toBe(0);
    await expect.poll(() => snapshot.running, { timeout: 10_000 }).toBe(0);
  });

  it('a failure mid-stream (the time limit) cuts the transfer: the client gets an error, never a short file', async () => {
    // Long enough to start on a loaded machine; the client then reads nothing until the clock has stopped the COPY.
    const slow = await listen(createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, exportTimeoutMs: 2000 }));
    try {
      // NDJSON of every Records row (~45 MB) is several times what the pipe's read-ahead, the socket buffers and the
      // client's stream hold together (~20 MB): the COPY cannot finish while the client pauses, whatever the timing.
      // Uncompressed: fetch asks for gzip by default, and ~45 MB of NDJSON gzips small enough to fit those buffers.
      const res = await fetch(`${slow.origin}/v1/export/Records?$format=ndjson`, { headers: IDENTITY });
      expect(res.status).toBe(200);
      const expected = Number(res.headers.get('x-total-count'));
      const reader = res.body!.getReader();
      await reader.read();
      // The reader pauses past the limit: DuckDB's writer blocks, the clock runs out (the passing time is what is tested).
      await new Promise((r) => setTimeout(r, 2500));
      const read = (async () => {
        let lines = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return lines;
          lines += Buffer.from(value).toString('latin1').split('\n').length - 1;
        }
      })();
      await expect(read).rejects.toThrow();
      expect(expected).toBe(await refCount());
      await expect.poll(() => db.acquire().snapshot.pipesInUse, { timeout: 10_000 }).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('a second export of the same key while one streams is 429 with Retry-After (MAX_CONCURRENT_EXPORTS)', async () => {
    const limited = await listen(
      createApp({ acquire: () => db.acquire(), links: { trustProxy: false }, access: { keys: undefined, maxConcurrentPerKey: 4, maxConcurrentExports: 1 } }),
    );
    try {
      const controller = new AbortController();
      // ~45 MB that the first client does not read: its export is still streaming when the second arrives.
      const first = await fetch(`${limited.origin}/v1/export/Records?$format=ndjson`, { signal: controller.signal, headers: IDENTITY });
      expect(first.status).toBe(200);
      const second = await fetch(`${limited.origin}/v1/export/Records?$format=ndjson`);
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('5');
      expect(((await second.json()) as { message: string }).message).toContain('at most 1 per key');
      const page = await fetch(`${limited.origin}/v1/odata/v4/Records?$top=1`);
      expect(page.status).toBe(200);
      await page.text();
      controller.abort();
      await expect.poll(async () => (await fetch(`${limited.origin}/v1/export/Records?$select=Id`, { method: 'HEAD' })).status, { timeout: 10_000 }).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
