/**
 * Test support: the shared fixture file with its dataset files (issue 29), for the download routes, the explorer
 * and the recipes. Tests call `filesFixture(inject('apiFixtureDb'))` and read `path` and `filesDir`.
 */
import { plainFilesDir } from '../../../schemas/publication-files.js';

export interface FilesFixture {
  /** The published DuckDB file to open. */
  readonly path: string;
  /** Where its dataset files are (`<path>.files`). */
  readonly filesDir: string;
  close(): Promise<void>;
}

/** The fixture file as ingest publishes it, its dataset files beside it. */
export function plainFixtureFiles(path: string): Promise<FilesFixture> {
  return Promise.resolve({ path, filesDir: plainFilesDir(path), close: async () => {} });
}

export const filesFixture = plainFixtureFiles;
