// The names users depend on are findable: every make target in the README, every setting of both services and of
// ingest in docs/configuration.md (the one reference page the README points to), every error code of the data API
// in docs/api.md; and what the docs list exists: every code they list is declared and raised by some code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestSettings } from '../../ingest/settings.js';
import { apiSettings } from '../../services/api/config.js';
import { API_ERROR_CODES } from '../../services/api/errors.js';
import { SETTINGS as boardSettings } from '../../services/board/config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configuration = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
/** One `## heading` section of the configuration page, up to the next heading: the services share some names (DUCKDB_PATH). */
const section = (heading: string) => configuration.split(/^(?=#{2,3} )/m).find((s) => s.startsWith(`## ${heading}\n`)) ?? '';
/** A table row of a variable, e.g. "| `API_PORT` | `3000` | TCP port … |", in `text`. */
const rowOf = (name: string, text: string) => text.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));

describe('README.md', () => {
  it('names every make target', () => {
    const phony = /^\.PHONY:(.*)$/m.exec(readFileSync(join(ROOT, 'Makefile'), 'utf8'))![1]!.trim().split(/\s+/);
    expect(phony.length).toBeGreaterThan(10);
    // `make key-list`, or `key-list` in the row of `make key-issue … / key-list / key-revoke …`.
    expect(phony.filter((target) => !new RegExp(`(make |\`)${target}[\\s\`]`).test(readme))).toEqual([]);
  });

  it('points to the configuration page', () => {
    expect(readme).toContain('](docs/configuration.md)');
  });
});

describe('docs/configuration.md', () => {
  it('has a row for every data API setting, with its default, in the data API table', () => {
    const api = section('Data API');
    const missing = Object.entries(apiSettings).filter(([name, s]) => {
      const row = rowOf(name, api);
      return !row || (s.default !== undefined && s.default !== '' && !row.includes(`\`${s.default}\``));
    });
    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it('has a row for every ingest setting, with its default, in the ingest table', () => {
    const ingest = section('Ingest and sample data');
    const missing = Object.entries(ingestSettings).filter(([name, s]) => {
      const row = rowOf(name, ingest);
      return !row || (s.default !== undefined && !row.includes(`\`${s.default}\``));
    });
    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it('has a row for every board setting, with its default, in the board table', () => {
    const board = section('Message board');
    const missing = Object.values(boardSettings).filter((s) => {
      const row = rowOf(s.env, board);
      return !row || (s.default !== '' && !row.includes(`\`${s.default}\``));
    });
    expect(missing.map((s) => s.env)).toEqual([]);
  });
});

describe('docs/api.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');

  it('lists every error code with its status', () => {
    const missing = Object.entries(API_ERROR_CODES).filter(([code, status]) => !doc.includes(`| \`${code}\` | ${status} |`));
    expect(missing.map(([code]) => code)).toEqual([]);
  });

  it('lists only codes the API declares, with their status', () => {
    const listed = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(listed.length).toBeGreaterThan(10);
    const codes: Record<string, number> = API_ERROR_CODES;
    expect(listed.filter(([code, status]) => codes[code] !== status)).toEqual([]);
  });

  it('every declared code is raised by some code of the API, not only declared', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
      );
    // The tables that declare the codes do not count as raising them.
    const declaring = /\/(errors|odata-error|plan-error)\.ts$/;
    const code = sources(join(ROOT, 'services', 'api'))
      .filter((f) => !declaring.test(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(Object.keys(API_ERROR_CODES).filter((c) => !code.includes(`'${c}'`))).toEqual([]);
  });
});
