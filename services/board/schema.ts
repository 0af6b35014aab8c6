import { readFile } from 'node:fs/promises';
import type { Pool } from 'pg';

const SCHEMA_URL = new URL('./schema.sql', import.meta.url);

/** Creates `posts` if it is missing; the same file people run by hand, so the two cannot drift. */
export async function applySchema(pool: Pool): Promise<void> {
  await pool.query(await readFile(SCHEMA_URL, 'utf8'));
}
