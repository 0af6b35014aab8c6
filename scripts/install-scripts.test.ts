/**
 * A fresh clone's `npm ci` prints no warning (issue 46): npm 11 lists every dependency whose install script is not
 * reviewed in package.json's `allowScripts` (npm approve-scripts writes it; npm 12 will block the rest). Every
 * package the lockfile marks `hasInstallScript` is named there, so a new one fails here before it warns a newcomer.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const read = <T>(file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

describe('install scripts', () => {
  it("every dependency with an install script is reviewed in package.json's allowScripts", () => {
    const lock = read<{ packages: Record<string, { hasInstallScript?: boolean }> }>('package-lock.json');
    const scripted = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(scripted.length).toBeGreaterThan(0);
    const { allowScripts = {} } = read<{ allowScripts?: Record<string, boolean> }>('package.json');
    const reviewed = new Set(Object.keys(allowScripts).map((key) => key.replace(/(?<=.)@[^@]*$/, '')));
    expect(scripted.filter((name) => !reviewed.has(name))).toEqual([]);
  });
});
