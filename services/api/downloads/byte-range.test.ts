import { describe, expect, it } from 'vitest';
import { byteRange } from './byte-range.js';

const ETAG = '"sha256-abc"';

describe('byteRange (RFC 9110 §14)', () => {
  it.each([
    [undefined, undefined, { kind: 'full' }],
    ['bytes=0-99', undefined, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=100-', undefined, { kind: 'partial', start: 100, end: 999 }],
    ['bytes=900-5000', undefined, { kind: 'partial', start: 900, end: 999 }],
    ['bytes=-10', undefined, { kind: 'partial', start: 990, end: 999 }],
    ['bytes=-5000', undefined, { kind: 'partial', start: 0, end: 999 }],
    ['Bytes = 5-5', undefined, { kind: 'partial', start: 5, end: 5 }],
    ['bytes=999-', undefined, { kind: 'partial', start: 999, end: 999 }],
    // unsatisfiable: 416
    ['bytes=1000-', undefined, { kind: 'unsatisfiable' }],
    ['bytes=1000-2000', undefined, { kind: 'unsatisfiable' }],
    ['bytes=-0', undefined, { kind: 'unsatisfiable' }],
    // ignored: the whole file
    ['bytes=0-1,5-9', undefined, { kind: 'full' }],
    ['bytes=9-5', undefined, { kind: 'full' }],
    ['bytes=-', undefined, { kind: 'full' }],
    ['bytes=abc', undefined, { kind: 'full' }],
    ['items=0-5', undefined, { kind: 'full' }],
    // If-Range: ours → the range; another validator or a date → the whole file
    ['bytes=10-', ETAG, { kind: 'partial', start: 10, end: 999 }],
    ['bytes=10-', '"sha256-other"', { kind: 'full' }],
    ['bytes=10-', `W/${ETAG}`, { kind: 'full' }],
    ['bytes=10-', 'Wed, 21 Oct 2015 07:28:00 GMT', { kind: 'full' }],
  ] as const)('Range: %s, If-Range: %s', (range, ifRange, expected) => {
    expect(byteRange(range, ifRange, ETAG, 1000)).toEqual(expected);
  });

  it('an empty file has no satisfiable range', () => {
    expect(byteRange('bytes=0-', undefined, ETAG, 0)).toEqual({ kind: 'unsatisfiable' });
    expect(byteRange('bytes=-1', undefined, ETAG, 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
