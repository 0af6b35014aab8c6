import { describe, expect, it } from 'vitest';
import { lineOfParsed, lineOfRecord, recordOfParsed } from './line-numbers.js';

describe('line numbers', () => {
  // header(1) | r0 (2-3, one newline) | malformed rec 3 (4) | r1 (5) | malformed rec 5 (6-7) | r2 (8)
  const lines = {
    malformed: [{ record: 3, newlines: 0 }, { record: 5, newlines: 1 }],
    parsed: [{ index: 0, newlines: 1 }],
  };
  it('skips malformed records when numbering parsed ones', () => {
    expect([0, 1, 2].map((i) => recordOfParsed(lines, i))).toEqual([2, 4, 6]);
  });
  it('adds the newlines embedded in earlier records', () => {
    expect([0, 1, 2].map((i) => lineOfParsed(lines, i))).toEqual([2, 5, 8]);
    expect(lineOfRecord(lines, 3)).toBe(4);
    expect(lineOfRecord(lines, 5)).toBe(6);
  });
  it('is the record index plus one when nothing is special', () => {
    expect(lineOfParsed({ malformed: [], parsed: [] }, 0)).toBe(2);
  });
});
