/**
 * A clean first run (issue 39, part 5): the environment make gives its recipes holds no `npm_config_*` variable npm
 * does not know (npm 11 prints `npm warn Unknown env config …` for each, on every call, and npm 12 refuses them), yet
 * node-gyp, which builds native addons for npm, still compiles against the pinned Node's headers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const pinned = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

/** A newcomer's shell: the test runner's own npm (npx, npm test) exports npm_config_* variables of its own. */
const shell = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** Runs `command` as a recipe of the Makefile (its exported variables, its PATH), in the repository. */
function underMake(command: string) {
  return spawnSync('make', ['-s', '-C', root, '--eval', `env-check: ; @${command}`, 'env-check'], { encoding: 'utf8', env: shell });
}

describe('npm and node-gyp under make', () => {
  it('an npm call under make prints no warning', () => {
    const r = underMake('npm pkg get name');
    expect(r.stderr).toBe('');
    expect([r.status, r.stdout.trim()]).toEqual([0, '"tributary"']);
  });

  it('make exports no npm_config_* variable (npm warns about every one it does not know)', () => {
    const env = underMake('env').stdout.split('\n');
    expect(env.filter((line) => /^npm_config_/i.test(line))).toEqual([]);
  });

  it("node-gyp, as npm runs it under make, builds against the pinned Node's headers", () => {
    // npm's own copy of node-gyp, the one `npm ci` calls for a dependency with a binding.gyp.
    const npmCli = realpathSync(underMake('command -v npm').stdout.trim()); // <npm>/bin/npm-cli.js
    const nodeGyp = join(dirname(dirname(npmCli)), 'node_modules', 'node-gyp');
    expect(existsSync(nodeGyp), `npm's node-gyp at ${nodeGyp}`).toBe(true);
    const script = 'const g = require(process.argv[1])(); g.parseArgv(["node", "node-gyp", "rebuild"]); console.log(g.opts.nodedir ?? "")';
    const r = underMake(`node -e '${script}' ${nodeGyp}`);
    expect(r.stderr).toBe('');
    const nodedir = r.stdout.trim();
    expect(nodedir).not.toBe('');
    const header = readFileSync(join(nodedir, 'include', 'node', 'node_version.h'), 'utf8');
    const version = ['MAJOR', 'MINOR', 'PATCH'].map((part) => new RegExp(`#define NODE_${part}_VERSION (\\d+)`).exec(header)![1]).join('.');
    expect(version).toBe(pinned);
  });
});
