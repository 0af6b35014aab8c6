// The README is a newcomer's map and docs/performance.md the design of the read path; both grew by accretion until
// they were hard to read (issue 36). Reference tables go to their own page (docs/configuration.md) and measured
// figures to the bench's generated pages (docs/bench/), so these pages stay within a reading.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('pages stay short enough to read', () => {
  it.each([
    ['README.md', 260],
    ['docs/performance.md', 350],
  ])('%s has at most %i lines', (file, max) => {
    expect(readFileSync(join(ROOT, file), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(max);
  });
});
