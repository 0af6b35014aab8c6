/**
 * An extract is one publication (issue 38), on one API over a plain DUCKDB_PATH: clients following OData next links
 * (JSON, CSV, Arrow) and OGC next links while datasets are replaced, removed and added get exactly the rows of the
 * publication their first page came from; a pinned count stays that publication's; a link past the retention is a
 * 410 that names the current publication.
 */
import { tableFromIPC } from 'apache-arrow';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runIngest } from '../../ingest/pipeline.js';
import { runRemove } from '../../ingest/remove.js';
import { query } from '../../ingest/test-support.js';
import { createApp } from '../../services/api/app.js';
import { acquirer, openDatabase, type Database } from '../../services/api/db/database.js';
import { PUBLICATION_HEADER } from '../../services/api/http/paths.js';
import { copyPublished } from '../../services/api/testing/fixture-db.js';
import { listen, type TestServer } from '../../services/api/testing/test-server.js';

let dir: string;
let db: string;
let pool: string;
let names: string[];
/** Serves with the default retention; `strict` (retention 0) serves the same file and forgets what is not among the three newest. */
let kept: Database;
let strict: Database;
let api: TestServer;
let strictApi: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-pinned-'));
  db = join(dir, 'tributary.duckdb');
  const hub = inject('sampleHub');
  copyPublished(hub.duckdbPath, db);
  pool = hub.src;
  names = (await readdir(pool)).filter((n) => !n.startsWith('.')).sort();
  // The first dataset is removed now, so that a later publish can add it.
  await runRemove({ duckdbPath: db, doi: await doiOf(names[0]!) });
  kept = await openDatabase(db);
  strict = await openDatabase(db, { retentionMs: 0 });
  api = await listen(createApp({ acquire: acquirer(kept), links: { trustProxy: false } }));
  strictApi = await listen(createApp({ acquire: acquirer(strict), retentionMs: 0, links: { trustProxy: false } }));
});

afterAll(async () => {
  await api?.close();
  await strictApi?.close();
  await kept?.close();
  await strict?.close();
  await rm(dir, { recursive: true, force: true });
});

async function doiOf(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(pool, name, 'metadata.json'), 'utf8')) as { DOI: string }).DOI;
}

/** A source folder holding one dataset of the pool, its last `drop` rows cut (a new version of it). */
async function sourceOf(name: string, drop = 0): Promise<string> {
  const src = await mkdtemp(join(dir, `src-${name}-`));
  await cp(join(pool, name), join(src, name), { recursive: true });
  if (drop) {
    const csv = join(src, name, (await readdir(join(src, name))).find((f) => f.endsWith('.csv'))!);
    await writeFile(csv, `${(await readFile(csv, 'utf8')).trimEnd().split('\n').slice(0, -drop).join('\n')}\n`);
  }
  return src;
}

/** Publishes and makes both APIs switch, as their poll would. */
async function publish(change: () => Promise<{ published: boolean }>): Promise<void> {
  expect((await change()).published).toBe(true);
  expect(await kept.refresh()).toBe(true);
  expect(await strict.refresh()).toBe(true);
}

/** What a client reads: `Id|DOI` per row, and where the next page is. */
interface Page {
  readonly rows: string[];
  readonly next: string | undefined;
  readonly publication: string | null;
}

type Client = (url: string) => Promise<Page>;

const nextOf = (res: Response) => /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];

const clients: Record<string, { first: (origin: string) => string; read: Client }> = {
  'OData JSON': {
    first: (o) => `${o}/v1/odata/v4/Records?$select=Id,DOI&$top=1000`,
    read: async (url) => {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const body = (await res.json()) as { value: { Id: number; DOI: string }[]; '@odata.nextLink'?: string };
      return { rows: body.value.map((r) => `${r.Id}|${r.DOI}`), next: body['@odata.nextLink'], publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OData CSV': {
    first: (o) => `${o}/v1/odata/v4/Records?$select=Id,DOI&$top=1500&$format=csv`,
    read: async (url) => {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const lines = (await res.text()).trimEnd().split(/\r?\n/).slice(1);
      return { rows: lines.map((l) => l.replaceAll('"', '').replace(',', '|')), next: nextOf(res), publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OData Arrow': {
    first: (o) => `${o}/v1/odata/v4/Records?$select=Id,DOI&$top=2000&$format=arrow`,
    read: async (url) => {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
      return { rows: table.toArray().map((r: { Id: bigint | number; DOI: string }) => `${r.Id}|${r.DOI}`), next: nextOf(res), publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
  'OGC items': {
    first: (o) => `${o}/v1/features/collections/observations/items?limit=1200&properties=DOI`,
    read: async (url) => {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const body = (await res.json()) as { features: { id: number | string; properties: { DOI: string } }[]; links: { rel: string; href: string }[] };
      return { rows: body.features.map((f) => `${f.id}|${f.properties.DOI}`), next: body.links.find((l) => l.rel === 'next')?.href, publication: res.headers.get(PUBLICATION_HEADER) };
    },
  },
};

describe('an extract is one publication', () => {
  it('OData (JSON, CSV, Arrow) and OGC next links give exactly the first page\'s publication through replace, remove and add', async () => {
    const start = (await query(db, "SELECT value FROM tributary_meta WHERE key = 'publication_id'"))[0]!['value'] as string;
    const expected = (await query(db, 'SELECT "Id", "DOI" FROM observations ORDER BY "Id"')).map((r) => `${r['Id']}|${r['DOI']}`);
    const total = expected.length;

    // The count first, as the DataStream clients ask it; its publication is the one the pages are pinned to.
    const counted = await fetch(`${api.origin}/v1/odata/v4/Records?$count=true`);
    expect(counted.headers.get(PUBLICATION_HEADER)).toBe(start);
    expect(((await counted.json()) as { value: number }).value).toBe(total);
    // The CSV client pins its first page to the count's publication; the others start unpinned, as the official
    // clients do, and their first page's next link pins them.
    const first = (name: string, url: string) => (name === 'OData CSV' ? `${url}&publication=${start}` : url);
    const state = Object.entries(clients).map(([name, c]) => ({ name, read: c.read, next: first(name, c.first(api.origin)) as string | undefined, rows: [] as string[], pages: 0 }));
    const step = async () => {
      for (const s of state) {
        if (!s.next) continue;
        const page = await s.read(s.next);
        expect(page.publication, `${s.name} page ${s.pages}`).toBe(start);
        if (s.pages === 0 && s.next) expect(page.next ?? '', s.name).toContain(`publication=${start}`);
        s.rows.push(...page.rows);
        s.next = page.next;
        s.pages++;
      }
    };
    await step();
    await step();
    // Replaced: a new version of a dataset near the start of the Ids is published under new Ids.
    await publish(async () => runIngest({ src: await sourceOf(names[1]!, 10), duckdbPath: db }));
    await step();
    await publish(async () => runRemove({ duckdbPath: db, doi: await doiOf(names[2]!) }));
    await step();
    await publish(async () => runIngest({ src: await sourceOf(names[0]!), duckdbPath: db }));
    while (state.some((s) => s.next)) await step();

    for (const s of state) expect(s.rows, s.name).toEqual(expected);
    // What the current publication holds is not that any more: the test saw a change.
    const now = (await query(db, 'SELECT "Id", "DOI" FROM observations ORDER BY "Id"')).map((r) => `${r['Id']}|${r['DOI']}`);
    expect(now).not.toEqual(expected);

    // A count pinned to the first publication stays its count; unpinned it is the current one's.
    const count = async (pinned?: string) => ((await (await fetch(`${api.origin}/v1/odata/v4/Records?$count=true${pinned ? `&publication=${pinned}` : ''}`)).json()) as { value: number }).value;
    expect(await count(start)).toBe(total);
    expect(await count()).toBe(now.length);

    // Three publishes later, with a retention of 0 the first publication is no longer among the three newest: 410.
    const res = await fetch(`${strictApi.origin}/v1/odata/v4/Records?$top=10&publication=${start}&$skiptoken=Id:10`);
    expect(res.status).toBe(410);
    const current = kept.current;
    expect(res.headers.get(PUBLICATION_HEADER)).toBe(current);
    const body = (await res.json()) as { message: string; errors: { code: string }[] };
    expect(body.errors[0]!.code).toBe('publication_gone');
    expect(body.message).toContain(`Publication ${start} is no longer served`);
    expect(body.message).toContain(`The current publication is ${current}: start again from the first page`);
    // The one before the current is still among the three newest.
    const previous = kept.open.filter((p) => p !== current).sort().at(-1)!;
    expect((await fetch(`${strictApi.origin}/v1/odata/v4/Records?$top=1&publication=${previous}`)).status).toBe(200);
  }, 240_000);

  it('names the publication of every answer, and refuses a publication id of another shape with 400', async () => {
    const res = await fetch(`${api.origin}/v1/features/collections/locations/items?limit=1`);
    expect(res.headers.get(PUBLICATION_HEADER)).toBe(kept.current);
    const bad = await fetch(`${api.origin}/v1/odata/v4/Records?publication=${encodeURIComponent('../x y')}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('is not a publication id');
  });
});
