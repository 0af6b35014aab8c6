import { runIngest } from './ingest/pipeline.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/gl-hub.duckdb', { force: true }); rmSync('/tmp/gl-hub.duckdb.files', { recursive: true, force: true });
const r = await runIngest({ src: '/tmp/gl-sample', duckdbPath: '/tmp/gl-hub.duckdb', regionsFile: '/work/wt-guidelines/scripts/sample/hubs.geojson' });
const cpu = r.cpuMs!; const total = Object.values(cpu).reduce((a, b) => a + b, 0);
console.log(JSON.stringify(r.timingsMs), JSON.stringify(cpu), 'cpu ratio', (total / (total - cpu.guidelines!)).toFixed(3), 'wall ratio', (r.durationMs / (r.durationMs - r.timingsMs!.guidelines!)).toFixed(3));
