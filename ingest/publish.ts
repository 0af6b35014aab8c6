import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncPath, type Build } from './build-file.js';
import { run } from './db.js';

/**
 * Stage 6 (publish) of a whole build (build-file.ts): checkpointed, fsynced and renamed over DUCKDB_PATH, so
 * readers see either the old file or the complete new one. A failed or killed ingest leaves the old file untouched;
 * its stray temp file is removed by the next run.
 */

/** Checkpoints, closes, fsyncs and renames the build over the target; then fsyncs the directory. */
export async function publishBuild(build: Build): Promise<void> {
  await checkpointAndClose(build);
  if (existsSync(`${build.path}.wal`)) throw new Error('the new file still has a write-ahead log after CHECKPOINT');
  await fsyncPath(build.path);
  await rename(build.path, build.target);
  await fsyncPath(dirname(build.target));
}

/** Detaches the published file, checkpoints and closes: a delta build is then read by merge.ts and deleted. */
export async function checkpointAndClose(build: Build): Promise<void> {
  if (build.hasPrevious) await run(build.conn, 'DETACH prev');
  await run(build.conn, 'CHECKPOINT');
  build.close();
}
