/**
 * §R retention (issue 38): what keeping older publications readable for pinned next links costs the API at the
 * bench's size. One API process over a copy of the hub; two more publications renamed over it as ingest publishes
 * (copies carrying other publication ids), each older one still read by a pinned page. Compared: RSS, open file
 * descriptors and the disk the held files occupy, with three publications held against one.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { BENCH_API_KEY, readRss, startApi } from './api-process.js';
import { summary, type Context } from './context.js';
import { verdict } from './table.js';

export interface RetentionContext extends Pick<Context, 'figures' | 'details' | 'log'> {
  readonly rows: number;
  /** The bench's hub (never written: the section works on copies). */
  readonly hub: string;
  readonly dir: string;
}

interface Held {
  readonly publications: number;
  readonly rssMB: number;
  readonly fds: number;
  readonly diskMB: number;
}

const headers = { 'x-api-key': BENCH_API_KEY };

async function publicationOf(base: string): Promise<string> {
  return ((await (await fetch(`${base}/readyz`, { headers })).json()) as { publication: string }).publication;
}

/** A page of 10,000 Records from `publication` (read to the end), so its snapshot is open and has been read. */
async function readPage(base: string, publication: string): Promise<void> {
  const res = await fetch(`${base}/v1/odata/v4/Records?$top=10000&publication=${publication}`, { headers });
  if (res.status !== 200) throw new Error(`a page pinned to ${publication}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

/** A copy of the hub with its own publication id, renamed over `path` as ingest publishes. */
async function publishCopy(hub: string, path: string, id: string): Promise<void> {
  const tmp = `${path}.tmp-bench`;
  await copyFile(hub, tmp);
  const instance = await DuckDBInstance.create(tmp);
  const conn = await instance.connect();
  await conn.run(`UPDATE tributary_meta SET value = '${id}' WHERE key = 'publication_id'`);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
  await rename(tmp, path);
}

export async function retentionSection(ctx: RetentionContext): Promise<void> {
  const dir = join(ctx.dir, 'retention');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'tributary.duckdb');
  const fileMB = (await stat(ctx.hub)).size / 2 ** 20;
  await publishCopy(ctx.hub, path, '20000101T000000000Z-00000001');
  const api = await startApi(path, { PUBLICATION_RETENTION_MS: String(60 * 60 * 1000) });
  const held: Held[] = [];
  try {
    const ids = [await publicationOf(api.base)];
    const measure = async () => {
      for (const id of ids) await readPage(api.base, id);
      held.push({ publications: ids.length, rssMB: readRss(api.pid)?.rssMB ?? NaN, fds: (await readdir(`/proc/${api.pid}/fd`)).length, diskMB: ids.length * fileMB });
    };
    await measure();
    for (const n of [2, 3]) {
      const id = `20000101T000000000Z-0000000${n}`;
      ctx.log(`§R publishing a ${fileMB.toFixed(0)} MB copy as ${id}`);
      await publishCopy(ctx.hub, path, id);
      for (let i = 0; (await publicationOf(api.base)) !== id; i++) {
        if (i > 300) throw new Error(`the API did not switch to ${id}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      ids.push(id);
      await measure();
    }
  } finally {
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  }
  ctx.details['retention'] = held;
  const one = held[0]!;
  const three = held.at(-1)!;
  ctx.figures.push(
    {
      section: 'R',
      name: `API RSS with 3 publications held (each read by a pinned page) ÷ with 1, ${ctx.rows} rows`,
      unit: '×',
      value: summary([three.rssMB / one.rssMB]),
      verdict: verdict(undefined),
      note: `${one.rssMB.toFixed(0)} → ${three.rssMB.toFixed(0)} MB; open files ${one.fds} → ${three.fds}; disk held ${one.diskMB.toFixed(0)} → ${three.diskMB.toFixed(0)} MB (each publication's file stays allocated while held)`,
    },
  );
}
