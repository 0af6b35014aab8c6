// The board in headless Chromium (Debian's package, driven by playwright-core; no browser is downloaded).
// It runs on embedded PGlite so it never depends on, or disturbs, the PostgreSQL cluster.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBoard } from './board.js';
import { call, pgliteBackend } from './test-support.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('the board in Chromium', () => {
  let board: RunningBoard;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    board = await pgliteBackend.start({ postRatePerMin: 10_000, postBurst: 10_000 }, { log: () => {} });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    if (board) await pgliteBackend.cleanup(board);
  });

  const post = async (text: string): Promise<number> => {
    await page.fill('textarea[name=text]', text);
    const [response] = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    return response?.status() ?? 0;
  };
  const shownTexts = (): Promise<string[]> => page.locator('.messages .text').allTextContents();

  it('posts through the form and shows the message; reloading does not post again', async () => {
    await page.goto(`${board.url}/`);
    expect(await post('hello from Chromium — Grüße 😀')).toBe(200);
    expect(page.url()).toBe(`${board.url}/`);
    expect(await shownTexts()).toEqual(['hello from Chromium — Grüße 😀']);
    await page.reload();
    expect(await shownTexts()).toHaveLength(1);
  });

  it('shows the problem and keeps the text when the message is too long', async () => {
    const long = '漢'.repeat(256);
    expect(await post(long)).toBe(400);
    expect(await page.locator('.problem').textContent()).toMatch(/at most 255 characters/);
    expect(await page.inputValue('textarea[name=text]')).toBe(long);
  });

  it('shows script and onerror payloads as text and runs nothing', async () => {
    const payloads = [
      '<script>window.__pwned = 1; alert("script")</script>',
      '<img src=x onerror="window.__pwned = 2; alert(\'img\')">',
      '"><svg onload="window.__pwned = 3">',
    ];
    await page.goto(`${board.url}/`);
    for (const p of payloads) expect(await post(p)).toBe(200);
    await page.reload();
    const texts = await shownTexts();
    for (const p of payloads) expect(texts).toContain(p);
    expect(await page.locator('.messages script, .messages img, .messages svg').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('drops a message deleted through the API after a reload', async () => {
    const list = (await call(board.url, '/api/message')).json<{ id: number; text: string }[]>();
    const target = list.find((m) => m.text.startsWith('hello from Chromium'))!;
    expect((await call(board.url, `/api/message/${target.id}`, { method: 'DELETE' })).status).toBe(200);
    await page.reload();
    expect(await shownTexts()).not.toContain(target.text);
    expect(await page.locator(`#message-${target.id}`).count()).toBe(0);
  });

  it('opens the JSON API in the browser', async () => {
    const res = await page.goto(`${board.url}/api/message`);
    expect(res?.status()).toBe(200);
    expect(JSON.parse(await page.locator('body').innerText())).toBeInstanceOf(Array);
  });
});
