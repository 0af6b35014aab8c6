/**
 * An extract is one publication across replicas (issue 38): two API replicas behind a real HAProxy, serving a
 * publication store, while datasets are replaced, removed and added. OData (JSON, CSV, Arrow) and OGC clients follow
 * their next links through the balancer and straight to either replica, one replica is killed and restarted (it then
 * holds only the newest publication and must reopen the pinned one from the store), and every client gets exactly
 * the rows of the publication its first page came from.
 */
import { tableFromIPC } from 'apache-arrow';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runIngest } from '../../../ingest/pipeline.js';
import { publishToStore } from '../../../ingest/publish-store.js';
import { runRemove } from '../../../ingest/remove.js';
import { query } from '../../../ingest/test-support.js';
import { PUBLICATION_HEADER } from '../../../services/api/http/paths.js';
import { copyPublished } from '../../../services/api/testing/fixture-db.js';
import { exited, startTopology, waitForOk, type Topology } from './topology.js';

let dir: string;
let store: string;
/** The store's publications in order: the first is served when the clients start. */
const files: string[] = [];
let topology: Topology | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-pinned-replicas-'));
  store = join(dir, 'store');
  const hub = inject('sampleHub');
  const names = (await readdir(hub.src)).filter((n) => !n.startsWith('.')).sort();
  const doiOf = async (name: string) => (JSON.parse(await readFile(join(hub.src, name, 'metadata.json'), 'utf8')) as { DOI: string }).DOI;
  const sourceOf = async (name: string, drop = 0) => {
    const src = await mkdtemp(join(dir, `src-${name}-`));
    await cp(join(hub.src, name), join(src, name), { recursive: true });
    const csv = join(src, name, (await readdir(join(src, name))).find((f) => f.endsWith('.csv'))!);
    if (drop) await writeFile(csv, `${(await readFile(csv, 'utf8')).trimEnd().split('\n').slice(0, -drop).join('\n')}\n`);
    return src;
  };
  // One working file changed step by step, each state kept as a file to publish: without the first dataset (so it
  // can be added), the second replaced, the third removed, the first added.
  const working = join(dir, 'working.duckdb');
  copyPublished(hub.duckdbPath, working);
  const keep = (n: number) => {
    files.push(join(dir, `p${n}.duckdb`));
    copyPublished(working, files[n]!);
  };
  await runRemove({ duckdbPath: working, doi: await doiOf(names[0]!) });
  keep(0);
  await runIngest({ src: await sourceOf(names[1]!, 10), duckdbPath: working });
  keep(1);
  await runRemove({ duckdbPath: working, doi: await doiOf(names[2]!) });
  keep(2);
  await runIngest({ src: await sourceOf(names[0]!), duckdbPath: working });
  keep(3);
  await publishToStore(store, files[0]!);
  topology = await startTopology({
    replicas: 2,
    redisUrl: 'redis://127.0.0.1:6379',
    store,
    // This test is about which rows come, not about limits: its clients share one address.
    env: { REDIS_PREFIX: `tributary-pinned-${process.pid}:`, PAGE_ROWS_PER_SECOND: '1000000000', PAGE_ROWS_BURST: '1000000000', MAX_CONCURRENT_PER_KEY: '50' },
  });
}, 240_000);

afterAll(async () => {
  await topology?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Page {
  readonly rows: string[];
  readonly next: string | undefined;
  readonly publication: string | null;
}

const nextOf = (res: Response) => /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];

async function fetchOk(url: string): Promise<Response> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res;
}

const clients: Record<string, { path: string; read: (url: string) => Promise<Page> }> = {
  'OData JSON': {
    path: '/v1/odata/v4/Records?$select=Id,DOI&$top=2000',
    read: async (url) => {
      const res = await fetchOk(url);
      const body = (await res.json()) as { value: { Id: number; DOI: string }[]; '@odata.nextLink'?: string };
      return { rows: body.value.map((r) => `${r.Id}|${r.DOI}`), next: body['@odata.nextLink'], publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OData CSV': {
    path: '/v1/odata/v4/Records?$select=Id,DOI&$top=2500&$format=csv',
    read: async (url) => {
      const res = await fetchOk(url);
      const lines = (await res.text()).trimEnd().split(/\r?\n/).slice(1);
      return { rows: lines.map((l) => l.replaceAll('"', '').replace(',', '|')), next: nextOf(res), publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OData Arrow': {
    path: '/v1/odata/v4/Records?$select=Id,DOI&$top=3000&$format=arrow',
    read: async (url) => {
      const res = await fetchOk(url);
      const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
      return { rows: table.toArray().map((r: { Id: bigint | number; DOI: string }) => `${r.Id}|${r.DOI}`), next: nextOf(res), publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OGC items': {
    path: '/v1/features/collections/observations/items?limit=2000&properties=DOI',
    read: async (url) => {
      const res = await fetchOk(url);
      const body = (await res.json()) as { features: { id: number | string; properties: { DOI: string } }[]; links: { rel: string; href: string }[] };
      return { rows: body.features.map((f) => `${f.id}|${f.properties.DOI}`), next: body.links.find((l) => l.rel === 'next')?.href, publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
};

/** Every replica serves `id` as its current publication. */
async function switched(id: string): Promise<void> {
  for (const r of topology!.replicas) {
    for (let i = 0; ; i++) {
      const ready = (await (await fetch(`${r.url}/readyz`)).json()) as { publication?: string };
      if (ready.publication === id) break;
      if (i > 100) throw new Error(`${r.name} did not switch to ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('an extract is one publication across replicas', () => {
  it('next links followed through the balancer and onto either replica give the first publication exactly, through publishes and a replica restart', async () => {
    const expected = (await query(files[0]!, 'SELECT "Id", "DOI" FROM observations ORDER BY "Id"')).map((r) => `${r['Id']}|${r['DOI']}`);
    const start = ((await (await fetch(`${topology!.url}/readyz`)).json()) as { publication: string }).publication;
    // Where each page goes: the balancer, then each replica in turn, so that pages change replica.
    const origins = () => [topology!.url, ...topology!.replicas.map((r) => r.url)];
    const state = Object.entries(clients).map(([name, c], i) => ({ name, read: c.read, next: `${origins()[i % 3]}${c.path}` as string | undefined, rows: [] as string[], step: i }));
    const step = async () => {
      for (const s of state) {
        if (!s.next) continue;
        const page = await s.read(s.next);
        expect(page.publication, s.name).toBe(start);
        s.rows.push(...page.rows);
        const next = page.next ? new URL(page.next) : undefined;
        s.step++;
        s.next = next ? `${origins()[s.step % 3]}${next.pathname}${next.search}` : undefined;
      }
    };

    await step();
    for (const [n, file] of files.slice(1).entries()) {
      await switched((await publishToStore(store, file)).id);
      if (n === 1) {
        // Restarted, a replica holds only the newest publication: the pinned one is reopened from the store.
        const r = topology!.replicas[1]!;
        r.process.kill('SIGKILL');
        await exited(r.process);
        await topology!.restart(1);
        await waitForOk(`${r.url}/readyz`, 60_000);
      }
      await step();
    }
    while (state.some((s) => s.next)) await step();

    for (const s of state) expect(s.rows, s.name).toEqual(expected);
    const now = (await query(files[3]!, 'SELECT "Id", "DOI" FROM observations ORDER BY "Id"')).map((r) => `${r['Id']}|${r['DOI']}`);
    expect(now).not.toEqual(expected);
    // A pinned count is the pinned publication's on every replica, whatever is current.
    for (const origin of origins()) {
      const counted = (await (await fetchOk(`${origin}/v1/odata/v4/Records?$count=true&publication=${start}`)).json()) as { value: number };
      expect(counted.value, origin).toBe(expected.length);
    }
  }, 300_000);
});
