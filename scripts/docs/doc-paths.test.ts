// Every repository path README.md and docs/ name exists: a file that moved or never existed is found here, not by a
// reader. Links are links.test.ts's; this covers the paths in backticks and in shell commands.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPaths } from './doc-paths.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Not the repository's own: installed, generated or git-ignored. */
const NOT_OURS = new Set(['node_modules', '.git', 'data', 'coverage', 'test-artifacts']);

function tree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (NOT_OURS.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? [relative(ROOT, path) + '/', ...tree(path)] : [relative(ROOT, path)];
  });
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

describe('docPaths', () => {
  const top = new Set(['ingest', 'services', 'scripts', 'docs']);
  it.each([
    ['`ingest/previous.ts`', [['ingest/previous.ts', 'rooted']]],
    ['`services/api/query/` and `compile-page.ts`', [['services/api/query/', 'rooted'], ['compile-page.ts', 'relative']]],
    ['`db/extract/copy-export.ts`, ends a path', [['db/extract/copy-export.ts', 'relative']]],
    ['`REGIONS_FILE=scripts/sample/hubs.geojson`', [['scripts/sample/hubs.geojson', 'rooted']]],
    ['`node --import tsx scripts/build/upstream-schema.ts <work tree>`', [['scripts/build/upstream-schema.ts', 'rooted']]],
    ['[map](docs/architecture.md#import-rules)', [['docs/architecture.md', 'rooted']]],
    ['`services/api/**/*.ts` `schemas/<resource>-fields.ts` `docs/…` `https://x.org/ingest/a.ts`', []],
    ['`your-script.mjs` `data/bench/` `manifest.json` `tributary.duckdb` `../shared/CONVENTIONS.md` `/tmp/t.duckdb` `e.g.` `1.5`', []],
    ['`ingest/load.ts:42`, then `ingest/`.', [['ingest/load.ts', 'rooted'], ['ingest/', 'rooted']]],
  ])('%s', (md, expected) => {
    expect(docPaths(md, top).map((p) => [p.path, p.kind])).toEqual(expected);
  });

  it('reads commands in shell blocks, rooted paths only, and nothing in other blocks', () => {
    const md = ['```sh', 'python3 docs/recipes/a.py   # see b.ts', '```', '```mermaid', 'a["ingest/x.ts"]', '```', '`y.ts`'].join('\n');
    expect(docPaths(md, top)).toEqual([
      { line: 2, path: 'docs/recipes/a.py', kind: 'rooted' },
      { line: 7, path: 'y.ts', kind: 'relative' },
    ]);
  });
});

describe('paths named in README.md and docs/', () => {
  const paths = tree(ROOT);
  const topLevel = new Set(paths.filter((p) => p.endsWith('/') && p.indexOf('/') === p.length - 1).map((p) => p.slice(0, -1)));
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('each exists in the tree: rooted ones as written, a bare or relative file name at the end of some path', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const { line, path, kind } of docPaths(readFileSync(file, 'utf8'), topLevel)) {
        checked++;
        const found =
          kind === 'rooted'
            ? existsSync(join(ROOT, path)) && (!path.endsWith('/') || statSync(join(ROOT, path)).isDirectory())
            : paths.some((p) => p === path || p.endsWith(`/${path}`));
        if (!found) missing.push(`${relative(ROOT, file)}:${line}: ${path}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
