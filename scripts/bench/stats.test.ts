import { describe, expect, it } from 'vitest';
import { formatBytes, formatNumber, formatSummary, summarise } from './stats.js';

describe('summarise', () => {
  it.each([
    [[5], { median: 5, min: 5, max: 5, runs: 1 }],
    [[3, 1, 2], { median: 2, min: 1, max: 3, runs: 3 }],
    [[4, 1, 3, 2], { median: 2.5, min: 1, max: 4, runs: 4 }],
  ])('%j', (samples, expected) => expect(summarise(samples)).toEqual(expected));

  it('refuses an empty run list', () => expect(() => summarise([])).toThrow(RangeError));
});

describe('formatting', () => {
  it.each([
    [0, '0'],
    [0.012345, '0.0123'],
    [4.567, '4.57'],
    [78.94, '78.9'],
    [12345.6, '12,346'],
  ])('formatNumber(%d) = %s', (value, text) => expect(formatNumber(value)).toBe(text));

  it('writes one run as its value and several as median (min–max)', () => {
    expect(formatSummary({ median: 12, min: 12, max: 12, runs: 1 })).toBe('12');
    expect(formatSummary({ median: 12, min: 10.5, max: 1500, runs: 5 })).toBe('12 (10.5–1,500)');
  });

  it('formatBytes uses decimal units', () => expect(formatBytes(1_234_567)).toBe('1.23 MB'));
});
