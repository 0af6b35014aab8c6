/**
 * The runtime pin: package.json's engines.node names one exact Node version; scripts/node.sh (which every make
 * target runs through) installs it or takes a matching node from PATH, and refuses another major line; the suite
 * itself runs on it; docker-compose.yml's image is of its line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
const pinned = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const major = pinned.split('.')[0]!;
const scratch = mkdtempSync(join(tmpdir(), 'tributary-node-pin-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder whose `node` answers `--version` with `version`, and node.sh run with it first on PATH. */
function nodeSh(version: string, env: Record<string, string> = {}) {
  const bin = mkdtempSync(join(scratch, 'bin-'));
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(join(bin, 'node'), 0o755);
  // An empty cache: were node.sh to download, it would have to say so (and would find no npm on this PATH).
  const run = spawnSync('bash', [join(root, 'scripts/node.sh')], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: scratch, TRIBUTARY_NODE_CACHE: join(scratch, 'empty-cache'), ...env },
    encoding: 'utf8',
  });
  return { bin, status: run.status, stdout: run.stdout.trim(), stderr: run.stderr };
}

describe('the Node.js pin', () => {
  it('package.json engines.node is one exact version of an LTS (even) major line', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Number(major) % 2).toBe(0);
  });

  it('the suite runs on the pinned major line (make test set it up)', () => {
    expect(process.versions.node.split('.')[0]).toBe(major);
  });

  it('node.sh takes the node on PATH, with no download, when it is the pinned version', () => {
    const r = nodeSh(`v${pinned}`);
    expect([r.status, r.stdout]).toEqual([0, r.bin]);
  });

  it('USE_SYSTEM_NODE=1 takes any node of the pinned line, and refuses another line naming both versions', () => {
    const same = nodeSh(`v${major}.0.0`, { USE_SYSTEM_NODE: '1' });
    expect([same.status, same.stdout]).toEqual([0, same.bin]);
    const old = nodeSh('v20.20.2', { USE_SYSTEM_NODE: '1' });
    expect(old.status).toBe(1);
    expect(old.stdout).toBe('');
    expect(old.stderr).toContain('v20.20.2');
    expect(old.stderr).toContain(`Tributary runs on Node ${major}`);
  });

  it('make refuses to run any target when no Node of the pinned line can be had', () => {
    const r = spawnSync('make', ['-C', root, '-n', 'install'], {
      env: { PATH: `${nodeSh('v20.20.2').bin}:/usr/bin:/bin`, HOME: scratch, USE_SYSTEM_NODE: '1' },
      encoding: 'utf8',
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`Tributary runs on Node ${major}`);
    expect(r.stderr).toMatch(/no Node\.js to run on/);
  });

  it('make runs its recipes on the pinned Node', () => {
    const out = execFileSync('make', ['-s', '-C', root, '--eval', 'node-version: ; @node --version', 'node-version'], { encoding: 'utf8' });
    expect(out.trim()).toBe(`v${pinned}`);
  });

  it("docker-compose.yml's Node image is of the pinned line", () => {
    const doc = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
    expect(doc.services.api.image).toBe(`node:${major}-bookworm-slim`);
  });
});
