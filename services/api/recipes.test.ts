/**
 * The runnable recipes of docs/recipes/, run as a user would run them against a real server on loopback.
 * R (httr2), datastreamjs and Excel/Power BI are documented only: none is installable from the registries CI
 * uses (datastreamjs is not published on npm, and its host is fixed to api.datastream.org).
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from './app.js';
import { listen, type TestServer } from './testing/test-server.js';
import { openDatabase, type Database } from './db/database.js';
import { REPO_ROOT } from './testing/fixture-db.js';

const RECIPES = join(REPO_ROOT, 'docs', 'recipes');
let db: Database;
let server: TestServer;
let url: string;

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  const app = createApp({ acquire: () => db.acquire(), links: { trustProxy: false } });
  server = await listen(app);
  url = server.origin;
});
afterAll(async () => {
  await server.close();
  await db.close();
});

/** Runs a recipe asynchronously: the server answering it lives in this process. */
function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, TRIBUTARY_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('docs/recipes', () => {
  it('curl.sh: discovery, citation, a filtered page, a count, an aggregate, a CSV extract', async () => {
    const { status, stdout, stderr } = await run('bash', [join(RECIPES, 'curl.sh')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(`"@odata.context":"${url}/v1/odata/v4/$metadata"`);
    expect(stdout).toContain('"Citation"');
    expect(stdout).toMatch(/"CharacteristicName":"pH"|"ResultValue"/);
    expect(stdout).toMatch(/\{"value":\d+\}/);
    expect(stdout).toMatch(/"Count":\d+/);
    // A CSV page with more pages: next first, then the dataset's DOI.
    expect(stdout).toMatch(/^link: <http:\/\/127\.0\.0\.1:\d+\/v1\/odata\/v4\/Records\?[^>]+>; rel="next", <https:\/\/doi\.org\/[^>]+>; rel="cite-as"\r?$/im);
    expect(stdout).toContain('DOI,MonitoringLocationID,ActivityStartDate,CharacteristicName,ResultValue,ResultUnit');
  });

  it('python_pandas_export.py: pandas reads a whole filtered result as Parquet from the export URL, as many rows as X-Total-Count', async () => {
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_pandas_export.py'), 'pH']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const [, rows, total] = /^(\d+) pH rows \(X-Total-Count (\d+)\)/.exec(stdout) ?? [];
    expect(Number(rows)).toBeGreaterThan(0);
    expect(rows).toBe(total);
    expect(stdout).toMatch(/^ActivityStartDate\s*$/m);
  });

  it('python_urllib.py: pages a whole dataset by @odata.nextLink and matches $count', async () => {
    const { status, stdout, stderr } = await run('python3', [join(RECIPES, 'python_urllib.py')]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const m = /(\d+) rows paged, \$count (\d+)/.exec(stdout);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(1000); // more than one page
    expect(m![1]).toBe(m![2]);
    expect(stdout).toMatch(/cite as: https:\/\/doi\.org\/\S+/);
    expect(stdout).toMatch(/licence: /);
  });

  it('the recipes are syntactically valid even where their tool is not run', () => {
    execFileSync('bash', ['-n', join(RECIPES, 'curl.sh')]);
    execFileSync(process.execPath, ['--check', join(RECIPES, 'datastreamjs.mjs')]);
  });
});
