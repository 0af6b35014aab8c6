import { describe, expect, it } from 'vitest';
import { filesRatio, stageCpuRatio, stageRatio, type IngestTiming } from './cache.js';

/** §7's "with ÷ without" figures: a publish's time over that time less one stage's (files, guidelines). */
describe('stage ratios', () => {
  const ingest = { rows: 10, wallMs: 120, rowsPerSecond: 1, timingsMs: { load: 80, guidelines: 20, files: 20 }, cpuMs: { load: 90, guidelines: 10, files: 20 }, measuredAt: '', fresh: true } as IngestTiming;

  it('divides the wall time by the wall time less the stage', () => {
    expect(stageRatio(ingest, 'guidelines')).toBe(120 / 100);
    expect(filesRatio(ingest)).toBe(120 / 100);
  });

  it('does the same in CPU time over the stages', () => {
    expect(stageCpuRatio(ingest, 'guidelines')).toBe(120 / 110);
  });

  it('has no figure for a report without the stage', () => {
    expect(stageRatio({ ...ingest, timingsMs: {} }, 'guidelines')).toBeUndefined();
    expect(stageCpuRatio({ ...ingest, cpuMs: undefined }, 'guidelines')).toBeUndefined();
  });
});
