// SIGTERM: in-flight requests finish, then the pool closes; main.ts wires it to the signal and exits 0.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgliteBackend } from './test-support.js';

describe('shutdown', () => {
  it('lets a listing under way finish, refuses new connections, then ends the pool', async () => {
    const board = await pgliteBackend.start({}, { log: () => {}, batchSize: 10 });
    try {
      await board.db.pool.query(
        "INSERT INTO posts (text, date_posted) SELECT 'm' || g, 'd' FROM generate_series(1, 2000) g",
      );
      const res = await fetch(`${board.url}/api/message`);
      const reader = res.body!.getReader();
      const first = await reader.read();
      const closing = board.close();
      let text = new TextDecoder().decode(first.value);
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
      expect(JSON.parse(text)).toHaveLength(2000);
      await closing;
      expect(board.db.pool.ending).toBe(true);
      await expect(fetch(`${board.url}/healthz`)).rejects.toThrow();
    } finally {
      await pgliteBackend.cleanup(board);
    }
  });

  it('main.ts exits 0 on SIGTERM after logging that it drained', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'board-main-'));
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./main.ts', import.meta.url).pathname], {
      env: { ...process.env, PORT: '0', DB_SERVICE: '', BOARD_DATA_DIR: dir, DB_PASS: 'secret-in-env' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let signalled = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!signalled && out.includes('"board listening"')) signalled = child.kill('SIGTERM');
    });
    try {
      const [code, signal] = await once(child, 'exit');
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['board listening', 'draining', 'stopped']));
      expect(out).not.toContain('secret-in-env');
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
