import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SETTINGS, describeDatabase, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has the documented defaults: port 8080, embedded PGlite in data/board', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.dbService).toBe('');
    expect(c.dataDir).toBe('data/board');
    expect(c.maxBodyBytes).toBe(16 * 1024);
  });

  it('reads DB_* and PORT from the environment', () => {
    const c = loadConfig({ PORT: '9000', DB_SERVICE: 'db.internal', DB_PORT: '6543', DB_NAME: 'board', DB_USER: 'u', DB_PASS: 'p' });
    expect(c).toMatchObject({ port: 9000, dbService: 'db.internal', dbPort: 6543, dbName: 'board', dbUser: 'u', dbPass: 'p' });
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'eighty', BOARD_POST_BURST: '0' })).toThrow(/PORT="eighty".*BOARD_POST_BURST="0"/);
  });

  it('never puts the password in the database description', () => {
    const c = loadConfig({ DB_SERVICE: 'h', DB_PASS: 'hunter2' });
    expect(describeDatabase(c)).toBe('postgresql://postgres@h:5432/postgres');
  });

  it('is documented: docs/board.md names every variable with its default', async () => {
    const doc = await readFile(new URL('../../docs/board.md', import.meta.url), 'utf8');
    for (const s of Object.values(SETTINGS)) {
      expect(doc).toContain(`\`${s.env}\``);
      if (s.default !== '') expect(doc).toContain(`\`${s.default}\``);
    }
  });
});
