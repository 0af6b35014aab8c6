import { describe, expect, it } from 'vitest';
import { countMarkers } from './http-client.js';

/** Counts `marker` in `text` cut into the given chunk lengths, as the client sees a response body. */
function countInChunks(marker: string, text: string, lengths: readonly number[]): number {
  const m = Buffer.from(marker);
  const body = Buffer.from(text);
  let carry: Buffer = Buffer.alloc(0);
  let count = 0;
  let at = 0;
  for (let i = 0; at < body.length; i++) {
    const chunk = body.subarray(at, at + lengths[i % lengths.length]!);
    at += chunk.length;
    const found = countMarkers(m, carry, chunk);
    count += found.count;
    carry = found.carry;
  }
  return count;
}

describe('countMarkers', () => {
  const marker = '{"Id":';
  const body = `[${Array.from({ length: 50 }, (_, i) => `{"Id":${i},"v":"x{\\"Id\\""}`).join(',')}]`;
  const expected = body.split(marker).length - 1;

  it('finds every marker whatever the chunk boundaries, including markers split across two or more chunks', () => {
    expect(expected).toBe(50);
    for (const lengths of [[body.length], [1], [2], [3], [5], [6], [7], [1, 2, 3], [4, 1, 1], [64], [13, 1, 5]]) {
      expect(countInChunks(marker, body, lengths), `chunks of ${lengths.join(',')}`).toBe(expected);
    }
  });

  it('counts nothing in a body without the marker, and a marker in the last bytes only', () => {
    expect(countInChunks(marker, 'x'.repeat(100), [7])).toBe(0);
    expect(countInChunks(marker, `${'x'.repeat(100)}{"Id":`, [3])).toBe(1);
  });
});
