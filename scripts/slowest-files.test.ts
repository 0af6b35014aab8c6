import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { fileTime, slowestFiles } from './slowest-files.js';

const module = (moduleId: string, parts: Partial<ReturnType<TestModule['diagnostic']>>) =>
  ({
    moduleId,
    diagnostic: () => ({ environmentSetupDuration: 0, prepareDuration: 0, collectDuration: 0, setupDuration: 0, duration: 0, heap: undefined, importDurations: {}, ...parts }),
  }) as unknown as TestModule;

describe('slowestFiles', () => {
  it.each([
    { name: 'nothing ran', times: [], count: 10, expected: '' },
    {
      name: 'slowest first, cut at count',
      times: [
        { file: 'a.test.ts', ms: 1200 },
        { file: 'b.test.ts', ms: 95_000 },
        { file: 'c.test.ts', ms: 40 },
      ],
      count: 2,
      expected: 'Slowest test files (time in their worker):\n  95.0 s  b.test.ts\n   1.2 s  a.test.ts\n',
    },
    {
      name: 'equal times by name',
      times: [
        { file: 'z.test.ts', ms: 500 },
        { file: 'y.test.ts', ms: 500 },
      ],
      count: 10,
      expected: 'Slowest test files (time in their worker):\n  0.5 s  y.test.ts\n  0.5 s  z.test.ts\n',
    },
  ])('$name', ({ times, count, expected }) => {
    expect(slowestFiles(times, count)).toBe(expected);
  });
});

describe('fileTime', () => {
  it('counts what the worker spent on the file: environment, set-up, import, tests and hooks', () => {
    const m = module('/repo/ingest/kill.test.ts', { environmentSetupDuration: 1, prepareDuration: 2, collectDuration: 30, setupDuration: 4, duration: 500 });
    expect(fileTime(m, '/repo')).toEqual({ file: 'ingest/kill.test.ts', ms: 537 });
  });
});
