/** docker-compose.yml is never run here (no engine), so a test keeps it valid and in step with the code. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeHaproxyConfig } from './ops/replicas/compose.js';

const root = resolve(import.meta.dirname, '..');
const file = join(root, 'docker-compose.yml');

describe('docker-compose.yml', () => {
  const doc = parse(readFileSync(file, 'utf8'), { merge: true });

  it('has PostgreSQL, the board, replicas of the data API behind HAProxy with Redis, and a one-off ingest sharing the publication store', () => {
    expect(Object.keys(doc.services).sort()).toEqual(['api', 'board', 'build', 'haproxy', 'ingest', 'postgres', 'redis']);
    for (const name of ['api', 'ingest', 'build']) expect(doc.services[name].volumes).toContain('duckdb:/app/data');
    for (const name of ['api', 'ingest']) expect(doc.services[name].environment).toMatchObject({ PUBLICATION_STORE: 'data/publications' });
    expect(doc.services.api.environment).toMatchObject({ REDIS_URL: 'redis://redis:6379' });
    expect(doc.services.api.deploy.replicas).toBeGreaterThan(1);
    expect(doc.services.api.ports).toBeUndefined(); // only through the balancer
    expect(doc.services.haproxy.ports).toEqual(['3000:3000']);
    expect(doc.volumes).toHaveProperty('duckdb');
    expect(doc.services.board.environment).toMatchObject({ DB_SERVICE: 'postgres', PORT: '8080' });
  });

  it('starts only entry points that exist', () => {
    const board = (doc.services.board.command as string[]).find((a) => a.endsWith('.ts'))!;
    expect(existsSync(join(root, board)), board).toBe(true);
    // The API runs as compiled JS: the file it starts is what `npm run build` (the build service, once for all
    // replicas) makes of services/api/main.ts.
    expect((doc.services.build.command as string[]).join(' ')).toMatch(/npm ci && npm run build/);
    expect(doc.services.api.depends_on.build.condition).toBe('service_completed_successfully');
    const api = (doc.services.api.command as string[]).join(' ');
    expect(api).toMatch(/exec node node_modules\/\.cache\/tributary\/services\/api\/main\.js/);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.build).toContain('--outDir node_modules/.cache/tributary');
    expect(existsSync(join(root, 'services/api/main.ts'))).toBe(true);
    expect(existsSync(join(root, 'services/board/schema.sql'))).toBe(true);
  });

  it("mounts the balancer's configuration as scripts/ops/replicas/haproxy-config.ts generates it, and HAProxy accepts it", () => {
    expect(doc.services.haproxy.volumes).toContain('./scripts/ops/replicas/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(readFileSync(join(root, 'scripts/ops/replicas/haproxy.cfg'), 'utf8')).toBe(composeHaproxyConfig());
    execFileSync('haproxy', ['-c', '-q', '-f', join(root, 'scripts/ops/replicas/haproxy.cfg')], { stdio: 'pipe' });
  });

  it('passes docker-compose config (make test installs Debian\'s docker-compose: scripts/test-deps.sh)', () => {
    execFileSync('docker-compose', ['-f', file, 'config', '--quiet'], { cwd: root, stdio: 'pipe' });
  });
});
