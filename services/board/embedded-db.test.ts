// The embedded database is reachable only by the board's own user: PGlite takes any user name as a superuser.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedDb } from './embedded-db.js';

describe('embedded PGlite', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('listens on a Unix socket in a 0700 folder of its own user, and removes the folder when closed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'board-embedded-'));
    dirs.push(dataDir);
    const db = await startEmbeddedDb({ dataDir, maxConnections: 2 });
    const folder = statSync(db.host);
    expect(folder.isDirectory()).toBe(true);
    expect(folder.mode & 0o777).toBe(0o700);
    expect(folder.uid).toBe(process.getuid!());
    expect(statSync(join(db.host, `.s.PGSQL.${db.port}`)).isSocket()).toBe(true);
    const client = new pg.Client({ host: db.host, port: db.port, user: 'postgres', database: 'postgres' });
    await client.connect();
    expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
    await db.close();
    expect(existsSync(db.host)).toBe(false);
  });
});
