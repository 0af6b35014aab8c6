import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Each stage's peak resident set size (DuckDB's memory included): Linux's high-water mark, VmHWM, reset before
 * the stage by writing 5 to /proc/self/clear_refs, read after it. Where the reset is not allowed (another
 * kernel, a locked-down container) the mark is the process's since its start: still an upper bound, and the
 * stage that raised it is the first to show it.
 */
export function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // No reset here: the mark below reads the peak since the process started.
  }
}

/** The peak RSS since the last reset, in MB; undefined off Linux. */
export function peakRssMB(): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return Math.round(process.resourceUsage().maxRSS / 1024);
  }
}
