import { describe, expect, it } from 'vitest';
import { boardPage, errorPage } from './html.js';

const render = async (h: ReturnType<typeof boardPage>): Promise<string> => String(await h);

// Each hostile string must come out as text: no tag, attribute or entity of its own survives.
const HOSTILE = [
  ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['"><img src=x onerror=alert(1)>', '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'],
  ["' onmouseover='x", '&#39; onmouseover=&#39;x'],
  ['&lt;b&gt;', '&amp;lt;b&amp;gt;'],
  ['</textarea><script>x</script>', '&lt;/textarea&gt;&lt;script&gt;x&lt;/script&gt;'],
] as const;

describe('boardPage', () => {
  it.each(HOSTILE)('escapes %j in messages, dates, kept text and problems', async (payload, escaped) => {
    const page = await render(
      boardPage({ messages: [{ id: 1, text: payload, date_posted: payload }], text: payload, problem: payload }),
    );
    expect(page).not.toContain(payload);
    expect(page.split(escaped).length - 1).toBe(5);
    expect(page).not.toMatch(/<script|<img/);
  });

  it('links to older messages only when there are some', async () => {
    expect(await render(boardPage({ messages: [], olderBefore: 5 }))).toContain('href="/?before=5"');
    expect(await render(boardPage({ messages: [] }))).not.toContain('before=');
  });
});

describe('errorPage', () => {
  it('escapes the message', async () => {
    expect(String(await errorPage(400, '<b>'))).toContain('&lt;b&gt;');
  });
});
