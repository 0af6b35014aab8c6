/** docker-compose.yml is never run here (no engine), so a test keeps it valid and in step with the code. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
const file = join(root, 'docker-compose.yml');

describe('docker-compose.yml', () => {
  const doc = parse(readFileSync(file, 'utf8'), { merge: true });

  it('has PostgreSQL, the board, the data API and a one-off ingest sharing a DuckDB volume', () => {
    expect(Object.keys(doc.services).sort()).toEqual(['api', 'board', 'ingest', 'postgres']);
    for (const name of ['api', 'ingest']) expect(doc.services[name].volumes).toContain('duckdb:/app/data');
    expect(doc.volumes).toHaveProperty('duckdb');
    expect(doc.services.board.environment).toMatchObject({ DB_SERVICE: 'postgres', PORT: '8080' });
  });

  it('starts only entry points that exist', () => {
    const board = (doc.services.board.command as string[]).find((a) => a.endsWith('.ts'))!;
    expect(existsSync(join(root, board)), board).toBe(true);
    // The API runs as compiled JS: the file it starts is what `npm run build` makes of services/api/main.ts.
    const api = (doc.services.api.command as string[]).join(' ');
    expect(api).toMatch(/npm run build && exec node node_modules\/\.cache\/tributary\/services\/api\/main\.js/);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.build).toContain('--outDir node_modules/.cache/tributary');
    expect(existsSync(join(root, 'services/api/main.ts'))).toBe(true);
    expect(existsSync(join(root, 'services/board/schema.sql'))).toBe(true);
  });

  it('passes docker-compose config (make test installs Debian\'s docker-compose: scripts/test-deps.sh)', () => {
    execFileSync('docker-compose', ['-f', file, 'config', '--quiet'], { cwd: root, stdio: 'pipe' });
  });
});
