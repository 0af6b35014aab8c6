import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey, issueKey, keyId, readKeyFile, revokeKey } from './key-file.js';
import { openKeyStore, type KeyStore } from './key-store.js';

let dir: string;
let file: string;
const stores: KeyStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tributary-keys-'));
  file = join(dir, 'api-keys.json');
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});
async function store(opts: Parameters<typeof openKeyStore>[0]) {
  const s = await openKeyStore(opts);
  stores.push(s);
  return s;
}

describe('key file', () => {
  it('stores only the SHA-256 of an issued key, with owner and times; the id is a prefix of the hash', async () => {
    const { key, record } = await issueKey(file, 'alice@example.org', new Date('2026-01-02T03:04:05Z'));
    expect(key).toMatch(/^trb_[A-Za-z0-9_-]{32}$/);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(key);
    expect(record).toEqual({ id: keyId(key), owner: 'alice@example.org', hash: hashKey(key), createdAt: '2026-01-02T03:04:05.000Z', revokedAt: null });
    expect(hashKey(key).slice(7, 19)).toBe(record.id);
  });

  it('revoking keeps the record with its revocation time; an unknown id changes nothing', async () => {
    const { record } = await issueKey(file, 'bob@example.org');
    expect(await revokeKey(file, 'ffffffffffff')).toBeUndefined();
    const revoked = await revokeKey(file, record.id, new Date('2026-02-01T00:00:00Z'));
    expect(revoked?.revokedAt).toBe('2026-02-01T00:00:00.000Z');
    expect((await readKeyFile(file))?.keys).toEqual([{ ...record, revokedAt: '2026-02-01T00:00:00.000Z' }]);
  });

  it('a file that is not a key file is refused with the reason', async () => {
    writeFileSync(file, JSON.stringify({ keys: [{ id: 'x' }] }));
    await expect(readKeyFile(file)).rejects.toThrow(/not a key file/);
    await expect(openKeyStore({ file })).rejects.toThrow(/not a key file/);
  });
});

describe('key store', () => {
  it('accepts plain development keys and issued keys; tells revoked from unknown', async () => {
    const alice = await issueKey(file, 'alice@example.org');
    const old = await issueKey(file, 'old@example.org');
    await revokeKey(file, old.record.id);
    const s = await store({ file, plainKeys: ['dev-1', 'dev-2'] });
    expect(s.required).toBe(true);
    expect(s.active).toBe(3);
    expect(s.verify('dev-2')).toEqual({ status: 'valid', id: keyId('dev-2'), owner: 'API_KEYS' });
    expect(s.verify(alice.key)).toEqual({ status: 'valid', id: alice.record.id, owner: 'alice@example.org' });
    expect(s.verify(old.key)).toEqual({ status: 'revoked', id: old.record.id });
    expect(s.verify('dev-3')).toEqual({ status: 'unknown', id: keyId('dev-3') });
    expect(s.verify(alice.key.slice(0, -1))).toMatchObject({ status: 'unknown' });
  });

  it('picks up issued and revoked keys when the file changes, without a restart', async () => {
    const s = await store({ file, plainKeys: ['dev'] });
    const { key, record } = await issueKey(file, 'carol@example.org');
    expect(s.verify(key).status).toBe('unknown');
    expect(await s.reload()).toBe(true);
    expect(s.verify(key).status).toBe('valid');
    await revokeKey(file, record.id);
    await s.reload();
    expect(s.verify(key).status).toBe('revoked');
  });

  it('with no key source it is open, and the first issued key makes keys required', async () => {
    const logs: string[] = [];
    const s = await store({ file, log: (m) => logs.push(m) });
    expect(s.required).toBe(false);
    const { key } = await issueKey(file, 'dave@example.org');
    await s.reload();
    expect(s.required).toBe(true);
    expect(s.verify(key).status).toBe('valid');
    expect(logs.join('\n')).toMatch(/now required/);
    expect(logs.join('\n')).not.toContain(key);
  });

  it('a key file that disappears or breaks keeps the last good keys: authentication never turns off', async () => {
    const logs: string[] = [];
    const { key } = await issueKey(file, 'erin@example.org');
    const s = await store({ file, log: (m) => logs.push(m) });
    await unlink(file);
    await s.reload();
    expect(s.required).toBe(true);
    expect(s.verify(key).status).toBe('valid');
    writeFileSync(file, '{"keys": [');
    expect(await s.reload()).toBe(false);
    expect(s.verify(key).status).toBe('valid');
    expect(logs.join('\n')).toMatch(/disappeared[\s\S]*not reloaded/);
  });

  it('polls the file: a revocation takes effect within the poll interval', async () => {
    const { key, record } = await issueKey(file, 'frank@example.org');
    const s = await store({ file, pollMs: 20 });
    await revokeKey(file, record.id);
    const start = Date.now();
    while (s.verify(key).status === 'valid' && Date.now() - start < 5000) await new Promise((r) => setTimeout(r, 10));
    expect(s.verify(key).status).toBe('revoked');
  });
});
