// Relative links between README.md and docs/ lead somewhere: the file exists and, for `#anchor`, one of its headings
// has that slug (GitHub's rule: lower case, punctuation dropped, spaces to hyphens).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** GitHub's heading anchor: `## Access, limits and operations` → `access-limits-and-operations`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('slug', () => {
  it.each([
    ['Access, limits and operations', 'access-limits-and-operations'],
    ['`$count` and `$apply`', 'count-and-apply'],
    ['§5 memory', '5-memory'],
  ])('%s → %s', (heading, expected) => expect(slug(heading.replace(/`/g, ''))).toBe(expected));
});

describe('links in README.md and docs/', () => {
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('every relative link names an existing file and, with #anchor, an existing heading', () => {
    const broken: string[] = [];
    let links = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        links++;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const dest = path ? join(dirname(file), path) : file;
        const where = `${relative(ROOT, file)} → ${target}`;
        if (!existsSync(dest)) broken.push(`${where}: no such file`);
        else if (anchor && statSync(dest).isFile() && !anchorsOf(readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});
