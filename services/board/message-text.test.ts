import { describe, expect, it } from 'vitest';
import { checkText } from './message-text.js';

describe('checkText', () => {
  it.each([
    ['hello', 'hello'],
    ['  padded\t\n', 'padded'],
    ['Grüße', 'Grüße'],
    ['a'.repeat(255), 'a'.repeat(255)],
    ['😀'.repeat(255), '😀'.repeat(255)],
    ['漢'.repeat(255), '漢'.repeat(255)],
    // Combining marks are characters of their own to PostgreSQL: 'é' as e + U+0301 counts twice.
    [' ' + 'e\u0301'.repeat(127) + ' ', 'e\u0301'.repeat(127)],
    ['<script>alert(1)</script>', '<script>alert(1)</script>'],
  ])('accepts %j as %j', (raw, text) => {
    expect(checkText(raw)).toEqual({ ok: true, text });
  });

  it.each([
    ['', /empty/],
    [' \t\r\n\u00a0\u3000', /empty/],
    ['a'.repeat(256), /at most 255 characters \(got 256\)/],
    ['😀'.repeat(256), /got 256/],
    ['e\u0301'.repeat(128), /got 256/],
    ['a\u0000b', /NUL/],
    ['\ud800', /Unicode/],
    [42, /string/],
    [null, /string/],
    [undefined, /string/],
  ])('refuses %j', (raw, problem) => {
    const r = checkText(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(problem);
  });
});
