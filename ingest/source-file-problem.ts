import { createReadStream } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

/**
 * Why a dataset's file (metadata.json or a data file) must not be read, or null. Two things make a file
 * untrustworthy as a whole, and either fails its dataset, so nothing of it is published:
 * - a symbolic link that leaves SRC: ingest publishes what SRC holds, never what a link in it points at elsewhere
 *   (a link to /etc/passwd would put its lines in the report, a link to another hub's files would publish them);
 * - a `.gz` whose gzip stream is incomplete or fails its checksum or length: DuckDB's reader stops at the cut and
 *   loads the readable prefix, so a truncated upload would publish as a smaller, complete-looking dataset.
 */
export async function sourceFileProblem(path: string, name: string, srcReal: string): Promise<string | null> {
  const link = await leavesSrc(path, srcReal);
  if (link) return `${name} is a symbolic link to ${link}, outside SRC: ingest reads only files inside SRC. Copy the file into the dataset folder instead of linking it.`;
  if (!path.toLowerCase().endsWith('.gz')) return null;
  const damage = await gzipDamage(path);
  return damage ? `${name} is a damaged gzip file: ${damage}. Nothing of the dataset is published; compress the file again from its source (gzip -t checks it), or send it uncompressed.` : null;
}

/** Where a link (or a file inside a linked folder) really is, when that is outside SRC. */
async function leavesSrc(path: string, srcReal: string): Promise<string | null> {
  const real = await realpath(path);
  if (real === srcReal || real.startsWith(srcReal + sep)) return null;
  return (await lstat(path)).isSymbolicLink() || real !== path ? real : null;
}

/** Inflates the whole file: zlib checks the stream's end, its CRC-32 and its length, which DuckDB's reader does not. */
async function gzipDamage(path: string): Promise<string | null> {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), createGunzip(), sink);
    return null;
  } catch (err) {
    const message = (err as Error).message;
    if (/unexpected end of file/i.test(message)) return 'it ends before its gzip stream does (truncated, e.g. by an interrupted upload or copy)';
    if (/incorrect data check/i.test(message)) return "its content does not match the gzip stream's CRC-32 checksum (corrupt)";
    if (/incorrect length check/i.test(message)) return "its content does not match the length in the gzip stream's trailer (corrupt)";
    return `it is not a readable gzip stream (${message})`;
  }
}
