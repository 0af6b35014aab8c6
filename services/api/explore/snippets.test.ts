/**
 * The "copy as" snippets name their file for the resource they fetch: a guideline-comparisons snippet wrote
 * observations.csv. Every language is checked for its name, and the Node and Python snippets are run for real against
 * the fixture app on a socket, so the file they write is the one they name and holds the rows `$count=true` counts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openFixtureApp, type FixtureApp } from '../testing/fixture-app.js';
import { listen, type TestServer } from '../testing/test-server.js';
import { csvFileName, snippet, SNIPPET_TITLES, type SnippetLanguage } from './snippets.js';

const LANGUAGES = Object.keys(SNIPPET_TITLES) as SnippetLanguage[];
const collection = (resource: string) => `http://127.0.0.1:1/v1/odata/v4/${resource}`;

describe('the file a snippet writes', () => {
  it.each([
    ['Observations', 'observations.csv'],
    ['GuidelineComparisons', 'guideline-comparisons.csv'],
    ['WaterQualityIndex', 'water-quality-index.csv'],
  ])('%s → %s in every language, and no other resource\'s name', (resource, file) => {
    expect(csvFileName(resource)).toBe(file);
    for (const language of LANGUAGES) {
      const code = snippet(language, collection(resource), "Verdict eq 'exceeds'");
      expect([language, code.includes(file)]).toEqual([language, true]);
      if (resource !== 'Observations') expect([language, code.includes('observations')]).toEqual([language, false]);
    }
  });

  it('curl says what it counts', () => {
    expect(snippet('curl', collection('GuidelineComparisons'), '')).toMatch(/^# How many guideline comparisons match:$/m);
    expect(snippet('curl', collection('Observations'), '')).toMatch(/^# How many observations match:$/m);
  });
});

describe('run for real', () => {
  let fixture: FixtureApp;
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    fixture = await openFixtureApp(inject('apiFixtureDb'));
    server = await listen(fixture.app);
    dir = mkdtempSync(join(tmpdir(), 'snippets-'));
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['javascript', 'snippet.mjs', process.execPath],
    ['python', 'snippet.py', 'python3'],
  ] as const)('%s: GuidelineComparisons with a filter is written to guideline-comparisons.csv, every matching row', async (language, script, runtime) => {
    const filter = "Verdict eq 'exceeds'";
    const url = `${server.origin}/v1/odata/v4/GuidelineComparisons`;
    const expected = (await (await fixture.app.request(`/v1/odata/v4/GuidelineComparisons?$count=true&$filter=${encodeURIComponent(filter)}`)).json()).value as number;
    expect(expected).toBeGreaterThan(0);
    const work = mkdtempSync(join(dir, `${language}-`));
    writeFileSync(join(work, script), snippet(language, url, filter));
    const env = { ...process.env };
    delete env['TRIBUTARY_API_KEY'];
    const { stdout } = await promisify(execFile)(runtime, [script], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
    expect(stdout.trim()).toBe(`${expected} rows written to guideline-comparisons.csv`);
    const csv = readFileSync(join(work, 'guideline-comparisons.csv'), 'utf8');
    expect(csv.split('\n')[0]).toContain('Verdict');
  });
});
