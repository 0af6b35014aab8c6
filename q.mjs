import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(process.argv[2], { access_mode: 'READ_ONLY' }); const c = await db.connect();
const r = await c.runAndReadAll(process.argv[3]); console.table(r.getRowObjectsJson());
