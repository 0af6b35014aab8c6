/** The dump's body: made a chunk per read, never ahead of its reader, and stopped when the reader goes away. */
import { describe, expect, it } from 'vitest';
import { linesStream } from './lines-stream.js';

function source(n: number) {
  const state = { made: 0, finished: false };
  async function* lines(): AsyncGenerator<string> {
    try {
      for (let i = 0; i < n; i++) {
        state.made++;
        yield `line ${i}\n`;
      }
    } finally {
      state.finished = true;
    }
  }
  return { state, lines: lines() };
}

describe('linesStream', () => {
  it('makes the first chunk before the body exists, then one chunk per read', async () => {
    const { state, lines } = source(100);
    const body = await linesStream(lines);
    expect(state.made).toBe(1);
    const reader = body.getReader();
    await reader.read();
    await reader.read();
    // The stream keeps at most one chunk ready beyond what was read.
    expect(state.made).toBeLessThanOrEqual(3);
    await reader.cancel();
    expect(state.finished).toBe(true);
    expect(state.made).toBeLessThan(100);
  });

  it('sends every chunk in order and ends', async () => {
    const { lines } = source(5);
    expect(await new Response(await linesStream(lines)).text()).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
  });

  it('errors the body when a later chunk fails, so the connection is cut', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield 'first\n';
      throw new Error('query interrupted');
    }
    const reader = (await linesStream(failing())).getReader();
    expect((await reader.read()).value).toBeDefined();
    await expect(reader.read()).rejects.toThrow('query interrupted');
  });
});
