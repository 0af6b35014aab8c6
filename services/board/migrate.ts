// Entry point of `make board-migrate`: applies schema.sql to the database named by DB_* (or the embedded one).
import { loadConfig, describeDatabase } from './config.js';
import { openDatabase } from './database.js';
import { applySchema } from './schema.js';

const config = loadConfig(process.env);
const db = await openDatabase(config, { log: () => {} });
try {
  await applySchema(db.pool);
  console.log(`posts is ready in ${describeDatabase(config)}`);
} catch (err) {
  console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
