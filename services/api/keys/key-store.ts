/**
 * The keys the API accepts: issued keys from the key file (reloaded when the file changes, no restart) and
 * plain development keys from `API_KEYS`. Only hashes are held in memory.
 *
 * Once any key source exists the store is `required` and stays so: a key file that later disappears or fails
 * to parse keeps the last good keys (and logs), so a broken deploy never turns authentication off.
 */
import { stat } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import { hashKey, readKeyFile } from './key-file.js';

export type KeyCheck =
  | { readonly status: 'valid'; readonly id: string; readonly owner: string }
  | { readonly status: 'revoked'; readonly id: string }
  | { readonly status: 'unknown'; readonly id: string };

export interface KeyStore {
  /** Whether requests must carry a key: false only while no key source has ever existed. */
  readonly required: boolean;
  /** Active (not revoked) keys. */
  readonly active: number;
  /** Checks a presented key against every stored hash in constant time. */
  verify(key: string): KeyCheck;
  /** Re-reads the key file if it changed; resolves true when it did. */
  reload(): Promise<boolean>;
  close(): void;
}

export interface KeyStoreOptions {
  /** Path of the key file; it may not exist yet. */
  readonly file?: string;
  /** Plain development keys (API_KEYS). */
  readonly plainKeys?: readonly string[];
  /** How often to look at the key file; 0 disables polling (tests call reload()). */
  readonly pollMs?: number;
  readonly log?: (msg: string) => void;
}

export interface Entry {
  readonly id: string;
  readonly owner: string;
  readonly hash: Buffer;
  readonly revoked: boolean;
}

const digest = (hash: string) => Buffer.from(hash.slice('sha256:'.length), 'hex');

/** What the store keeps of an issued key. */
export function entryOf(k: { id: string; owner: string; hash: string; revokedAt: string | null }): Entry {
  return { id: k.id, owner: k.owner, hash: digest(k.hash), revoked: k.revokedAt !== null };
}

/** Checks a presented key against every entry in constant time (shared by the file and Redis stores). */
export function verifyAgainst(entries: readonly Entry[], key: string): KeyCheck {
  const hash = hashKey(key);
  const presented = digest(hash);
  // Compare with every entry and never stop early: the time taken says nothing about which bytes matched.
  let match: Entry | undefined;
  for (const entry of entries) {
    if (timingSafeEqual(entry.hash, presented) && !match) match = entry;
  }
  const id = hash.slice(7, 19);
  if (!match) return { status: 'unknown', id };
  return match.revoked ? { status: 'revoked', id } : { status: 'valid', id, owner: match.owner };
}

export function plainEntries(keys: readonly string[]): Entry[] {
  return keys.map((k) => {
    const hash = hashKey(k);
    return { id: hash.slice(7, 19), owner: 'API_KEYS', hash: digest(hash), revoked: false };
  });
}

async function identityOf(path: string): Promise<string | undefined> {
  const s = await stat(path).catch(() => undefined);
  return s && `${s.ino}:${s.size}:${s.mtimeMs}`;
}

/** The KeyStore over plain keys and the issued entries a loader keeps current (a key file or Redis). */
export function keyStoreOver(plain: readonly Entry[], issued: () => readonly Entry[], required: () => boolean, reload: () => Promise<boolean>, timer: NodeJS.Timeout | undefined): KeyStore {
  return {
    get required() {
      return required();
    },
    get active() {
      return plain.length + issued().filter((e) => !e.revoked).length;
    },
    verify: (key) => verifyAgainst([...plain, ...issued()], key),
    reload,
    close: () => clearInterval(timer),
  };
}

export async function openKeyStore(opts: KeyStoreOptions): Promise<KeyStore> {
  const log = opts.log ?? (() => {});
  const plain = plainEntries(opts.plainKeys ?? []);
  let fileEntries: Entry[] = [];
  let fileIdentity: string | undefined;
  let required = plain.length > 0;

  async function load(): Promise<boolean> {
    if (!opts.file) return false;
    const identity = await identityOf(opts.file);
    if (identity === fileIdentity) return false;
    if (identity === undefined) {
      log(`key file ${opts.file} disappeared: keeping the ${fileEntries.length} keys loaded before`);
      fileIdentity = undefined;
      return false;
    }
    const file = await readKeyFile(opts.file);
    fileEntries = (file?.keys ?? []).map(entryOf);
    fileIdentity = identity;
    if (!required) log(`key file ${opts.file} found: API keys are now required`);
    required = true;
    return true;
  }

  await load(); // a key file that exists but does not parse stops the start
  let reloading: Promise<boolean> | undefined;
  const reload = () =>
    (reloading ??= load()
      .then((changed) => {
        if (changed) log(`key file reloaded: ${store.active} active keys`);
        return changed;
      })
      .catch((err: Error) => {
        log(`key file ${opts.file} not reloaded, keeping the previous keys: ${err.message}`);
        return false;
      })
      .finally(() => (reloading = undefined)));
  const timer = opts.file && opts.pollMs ? setInterval(() => void reload(), opts.pollMs) : undefined;
  timer?.unref();

  const store = keyStoreOver(plain, () => fileEntries, () => required, reload, timer);
  return store;
}
