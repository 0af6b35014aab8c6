import { describe, expect, it } from 'vitest';
import { filesRatio, stageCpuRatio, stageRatio, trendsStageVerdict, type IngestTiming } from './cache.js';

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

  it("holds the trends stage to its 30 s on the 10M-row hub only, and the ratio as the others'", () => {
    const at = (rows: number, trends: number) => ({ ...ingest, rows, wallMs: 100_000, timingsMs: { load: 60_000, trends } }) as IngestTiming;
    expect(trendsStageVerdict(at(10_000_000, 30_000))).toBe(true);
    expect(trendsStageVerdict(at(10_000_000, 30_001))).toBe(false);
    expect(trendsStageVerdict(at(1_000_000, 90_000))).toBeUndefined();
    expect(stageRatio(at(10_000_000, 20_000), 'trends')).toBe(100_000 / 80_000);
  });
});
