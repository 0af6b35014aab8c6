/**
 * `make bench-compare BEFORE=<results.json> AFTER=<results.json>`: two `make bench` runs side by side, figure by
 * figure (the same § and name), with AFTER's median over BEFORE's: a change measured before and after (a runtime,
 * a dependency, a refactor). Each column is headed by its run's command, Node version and time, so the table says
 * what was compared. Prints Markdown; COMPARE_OUT also writes it to a file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { compareRuns, type BenchRun } from './compare-runs.js';

const [before, after] = [process.env.BEFORE, process.env.AFTER];
if (!before || !after) {
  console.error('usage: make bench-compare BEFORE=data/bench/results-A.json AFTER=data/bench/results-B.json');
  process.exit(2);
}
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as BenchRun;
const table = compareRuns(read(before), read(after));
console.log(table);
if (process.env.COMPARE_OUT) writeFileSync(process.env.COMPARE_OUT, `${table}\n`);
