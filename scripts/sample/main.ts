import { generateSample, SAMPLE_GENERATOR_VERSION } from './generate.js';

/**
 * `make sample`: ROWS (default 200000), OUT (default data/sample), SEED (default 1). Prints one line per dataset
 * and a total.
 */
function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`${name} must be a non-negative integer, got '${raw}'`);
    process.exit(2);
  }
  return value;
}

const rows = intFromEnv('ROWS', 200_000);
const seed = intFromEnv('SEED', 1);
const out = process.env.OUT || 'data/sample';
const started = performance.now();
let files = 0;

const summary = await generateSample({ rows, out, seed }, (d) => {
  files += d.files.length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${d.folder.padEnd(28)} ${d.kind.padEnd(10)} ${String(d.rows).padStart(10)} rows ${String(d.locations).padStart(6)} locations ${d.files.length} file(s)  ${d.doi}  (${seconds} s)`);
});
const seconds = (performance.now() - started) / 1000;
console.log(
  `total: ${summary.rows} rows (exact) in ${summary.datasets.length} datasets, ${files} files, ${seconds.toFixed(1)} s ` +
    `(${Math.round(summary.rows / seconds)} rows/s) → ${out} [generator v${SAMPLE_GENERATOR_VERSION}, seed ${seed}]`,
);
