// Every Mermaid diagram in README.md and docs/ parses and renders with the mermaid library GitHub uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mermaidBlocks, openMermaidParser, type MermaidParser } from './mermaid-blocks.js';

const ROOT = join(import.meta.dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const docs = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].map((path) => relative(ROOT, path));

describe('mermaidBlocks', () => {
  it('finds each mermaid fence with its line and leaves other code blocks alone', () => {
    const md = ['# t', '```sh', 'make test', '```', '```mermaid', 'flowchart LR', '  a --> b', '```', '', '~~~~ mermaid', 'erDiagram', '~~~~'].join('\n');
    expect(mermaidBlocks('x.md', md)).toEqual([
      { file: 'x.md', line: 5, text: 'flowchart LR\n  a --> b' },
      { file: 'x.md', line: 10, text: 'erDiagram' },
    ]);
  });

  it('a block that is never closed is an error naming its line', () => {
    expect(() => mermaidBlocks('x.md', 'text\n```mermaid\nflowchart LR\n')).toThrow('x.md:2: the mermaid block is never closed');
  });
});

describe('the diagrams of README.md and docs/', () => {
  let parser: MermaidParser;
  beforeAll(async () => {
    parser = await openMermaidParser();
  });
  afterAll(async () => {
    await parser?.close();
  });

  it('a broken diagram is reported with what the parser expected; a sound one is not', async () => {
    expect(await parser.check('flowchart LR\n  a["one"] --> b(("two")\n')).toMatch(/Parse error on line 2/);
    expect(await parser.check('erDiagram\n  a ||--o{ b : has\n  a {\n    BIGINT Id PK\n  }\n')).toBeUndefined();
  });

  it('every mermaid block parses and renders', async () => {
    const blocks = docs.flatMap((file) => mermaidBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
    // The request flow, the path of a page, the ingest stages and the storage tables are drawn: none may vanish.
    expect([...new Set(blocks.map((b) => b.file))]).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/ingest.md', 'docs/performance.md', 'docs/storage.md']));
    const failures: string[] = [];
    for (const b of blocks) {
      const problem = await parser.check(b.text);
      if (problem) failures.push(`${b.file}:${b.line}: ${problem}`);
    }
    expect(failures).toEqual([]);
  });
});
