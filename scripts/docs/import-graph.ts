/**
 * The repository's import graph, read from the source text: each TypeScript file (relative to the root) and the
 * files it imports by relative path (a `.js` specifier names its `.ts` source). Packages are kept by name, so a rule
 * can say which folders may use which library. Used by the architecture test, which pins docs/architecture.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

export interface Imports {
  readonly file: string;
  /** Repository paths of the project files it imports. */
  readonly files: readonly string[];
  /** Package names it imports (`node:` built-ins left out). */
  readonly packages: readonly string[];
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

export function readImports(root: string, folders: readonly string[]): Imports[] {
  return folders.flatMap((folder) => tsFiles(join(root, folder))).map((path) => {
    const file = relative(root, path);
    const files: string[] = [];
    const packages: string[] = [];
    for (const m of readFileSync(path, 'utf8').matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) files.push(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('node:')) packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
    return { file, files, packages };
  });
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'node_modules' ? [] : tsFiles(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}
