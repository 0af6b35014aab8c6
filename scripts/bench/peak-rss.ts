/**
 * Preloaded (`--import`) into a timed CLI: writes the process's peak resident set size in bytes to PEAK_RSS_FILE
 * when it exits, DuckDB's memory included (getrusage's ru_maxrss, as /usr/bin/time reports it).
 */
import { writeFileSync } from 'node:fs';

const out = process.env.PEAK_RSS_FILE;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS * 1024)));
