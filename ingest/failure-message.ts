/**
 * What the CLI prints when a run fails: the error, and when a file system refused a write (full, read-only, not
 * writable), which one, what state the run left, and what to do. DuckDB reports these as text (`Could not write
 * file "<path>": No space left on device`), Node as an errno code with a path; both are recognised.
 */
import { dirname, relative, isAbsolute, resolve } from 'node:path';

export interface FailureContext {
  readonly duckdbPath: string;
  readonly store?: string | undefined;
  /** Size of the published file at DUCKDB_PATH, when there is one: what a change needs free beside it, at least. */
  readonly publishedBytes?: number | undefined;
}

type Refusal = 'full' | 'read-only' | 'denied';

const REFUSALS: readonly { readonly kind: Refusal; readonly code: string; readonly text: RegExp }[] = [
  { kind: 'full', code: 'ENOSPC', text: /No space left on device/i },
  { kind: 'read-only', code: 'EROFS', text: /Read-only file system/i },
  { kind: 'denied', code: 'EACCES', text: /Permission denied/i },
];

export function failureMessage(err: unknown, ctx: FailureContext): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const refusal = REFUSALS.find((r) => r.code === code || r.text.test(message));
  const head = `ingest failed, nothing published: ${message}`;
  if (!refusal) return head;
  // DuckDB names the file just before the refusal: `Could not write file "<path>": No space left on device`.
  const path = (err as NodeJS.ErrnoException | undefined)?.path ?? new RegExp(`"([^"]+)":\\s*${refusal.text.source}`, 'i').exec(message)?.[1] ?? ctx.duckdbPath;
  const inStore = ctx.store !== undefined && within(resolve(ctx.store), resolve(path));
  const where = inStore ? `the publication store ${ctx.store}` : `the file system holding ${dirname(resolve(path))}`;
  const what = { full: 'is full', 'read-only': 'is read-only', denied: 'is not writable by this user' }[refusal.kind];
  const fix = {
    full: inStore
      ? 'free space on its volume'
      : `free space there: a change to a published file needs room beside it for a copy of it${ctx.publishedBytes ? ` (${mb(ctx.publishedBytes)})` : ''} and for the new datasets and their files`,
    'read-only': 'remount its volume read-write',
    denied: 'give this user write access to it',
  }[refusal.kind];
  const state = inStore
    ? `The store's CURRENT still names the publication the replicas serve (if ${ctx.duckdbPath} took the change, the next run starts it again from that publication)`
    : `${ctx.duckdbPath} is unchanged and still served; this run's temporary files are removed`;
  return `${head}\n${where} ${what}: ${fix}, then run the same command again. ${state}.`;
}

function within(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
