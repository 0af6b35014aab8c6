/**
 * The key file (`API_KEYS_FILE`): issued keys as SHA-256 hashes with their owner, creation and revocation times.
 * The plain key exists only in the output of `make key-issue`; a key's id is the first 12 hex digits of its
 * hash, so the id the CLI lists is the one the logs show, and neither can be turned back into the key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

export const KEY_PREFIX = 'trb_';

export const keyRecord = z.object({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  owner: z.string().min(1),
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  createdAt: z.string().datetime(),
  revokedAt: z.string().datetime().nullable(),
});
const keyFile = z.object({ keys: z.array(keyRecord) });

export type KeyRecord = z.infer<typeof keyRecord>;
export type KeyFile = z.infer<typeof keyFile>;

/** `sha256:<hex>` of a key. Keys are 192 random bits, so an unsalted fast hash is enough (as GitHub does). */
export function hashKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** The short, loggable name of a key: the first 12 hex digits of its hash. */
export function keyId(key: string): string {
  return hashKey(key).slice(7, 19);
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

/** Reads and validates the file; a missing file is `undefined` (no keys issued yet). */
export async function readKeyFile(path: string): Promise<KeyFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = keyFile.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a key file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Writes beside the target and renames over it, so the API never reads half a file. */
export async function writeKeyFile(path: string, file: KeyFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
}

/** Adds a new key for `owner`; returns the plain key (to print once) and its record. */
export async function issueKey(path: string, owner: string, now = new Date()): Promise<{ key: string; record: KeyRecord }> {
  const file = (await readKeyFile(path)) ?? { keys: [] };
  let key = generateKey();
  while (file.keys.some((k) => k.id === keyId(key))) key = generateKey();
  const record: KeyRecord = { id: keyId(key), owner, hash: hashKey(key), createdAt: now.toISOString(), revokedAt: null };
  await writeKeyFile(path, { keys: [...file.keys, record] });
  return { key, record };
}

/** Marks a key revoked (kept in the file for the record); returns it, or undefined when no key has that id. */
export async function revokeKey(path: string, id: string, now = new Date()): Promise<KeyRecord | undefined> {
  const file = await readKeyFile(path);
  const found = file?.keys.find((k) => k.id === id);
  if (!file || !found) return undefined;
  const revoked = { ...found, revokedAt: found.revokedAt ?? now.toISOString() };
  await writeKeyFile(path, { keys: file.keys.map((k) => (k.id === id ? revoked : k)) });
  return revoked;
}
