/**
 * The bench's measuring client, in a process of its own (client.ts forks it and says why): HTTP requests and
 * extracts against the API, and PostgreSQL's timed queries, each timed here. It must stay lean: besides the IPC
 * helper it imports only the HTTP client, the extract loops and (for §6, when asked) `pg`, and reports its heap
 * before it answers anything.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { createHttpClient, type Encoding, type GetOptions } from './http-client.js';
import { pagedExtract, partitionedExtract } from './extract.js';
import { connectTimed, type PgPageSql, type PgTimed } from './pg-client.js';
import { serveParent } from './child-rpc.js';

export type ClientRequest =
  | { readonly op: 'get'; readonly url: string; readonly opts?: GetOptions }
  | { readonly op: 'extract'; readonly first: string; readonly format: 'json' | 'csv' | 'arrow'; readonly maxPages?: number; readonly marks?: readonly number[]; readonly encoding?: Encoding }
  | { readonly op: 'partitioned'; readonly base: string; readonly filter: string }
  | { readonly op: 'pgPage' | 'pgCount'; readonly q: PgPageSql }
  | { readonly op: 'pgExtract'; readonly first: PgPageSql; readonly next: PgPageSql; readonly top: number };

/** V8's old generation (what its collector's thresholds look at) after a full collection, in MiB (client.ts: the limit). */
const oldGenerationMB = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  const old = new Set(['old_space', 'code_space', 'large_object_space', 'code_large_object_space']);
  return getHeapSpaceStatistics().reduce((sum, s) => sum + (old.has(s.space_name) ? s.space_used_size : 0), 0) / 2 ** 20;
};

const http = createHttpClient(JSON.parse(process.argv[2] ?? '{}') as Record<string, string>);
let pg: PgTimed | undefined;
const postgres = async () => (pg ??= await connectTimed());

async function answer(req: ClientRequest, progress: (page: number) => void): Promise<unknown> {
  switch (req.op) {
    case 'get': {
      const opts = req.opts?.marker ? { ...req.opts, marker: Buffer.from(req.opts.marker) } : req.opts;
      return http.get(req.url, opts);
    }
    case 'extract':
      return pagedExtract(http, req.first, req.format, {
        maxPages: req.maxPages,
        encoding: req.encoding,
        onPage: (page) => req.marks?.includes(page) && progress(page),
      });
    case 'partitioned':
      return partitionedExtract(http, req.base, req.filter);
    case 'pgPage':
      return (await postgres()).page(req.q);
    case 'pgCount':
      return (await postgres()).count(req.q);
    case 'pgExtract':
      return (await postgres()).extract(req.first, req.next, req.top);
  }
}

serveParent(answer, oldGenerationMB(), () => {
  http.close();
  return pg?.close();
});
