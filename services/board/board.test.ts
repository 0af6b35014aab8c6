// The board end to end on real sockets, once against a real PostgreSQL server and once against embedded PGlite.
// This is the only test file that touches the local PostgreSQL cluster, and its restart test runs last in each
// block, so stopping the cluster cannot disturb another test.
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBoard } from './board.js';
import { createApp } from './app.js';
import { configWith } from './config.js';
import { createMessages, type Message } from './messages.js';
import {
  call,
  ensurePgRunning,
  pgliteBackend,
  postForm,
  postJson,
  postgresBackend,
  waitFor,
  type Backend,
} from './test-support.js';

const PASSWORD = 'never-log-me-7f3a';
// Small batches so a listing of a few hundred rows spans many cursor round trips.
const BATCH = 7;

describe.each([postgresBackend, pgliteBackend])('board on $name', (backend: Backend) => {
  let board: RunningBoard;
  let base: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    board = await backend.start(
      { dbPass: PASSWORD, postRatePerMin: 100_000, postBurst: 100_000 },
      { log: (e) => logLines.push(JSON.stringify(e)), batchSize: BATCH },
    );
    base = board.url;
  });
  afterAll(async () => {
    if (board) await backend.cleanup(board);
    if (backend.name === 'postgres') await ensurePgRunning();
  });

  const count = async (): Promise<number> =>
    Number((await board.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM posts')).rows[0]!.n);

  it('answers /healthz and /readyz', async () => {
    expect((await call(base, '/healthz')).json()).toEqual({ status: 'ok' });
    expect((await call(base, '/readyz')).status).toBe(200);
  });

  it('creates through JSON: 201, Location, the message; GET returns the same', async () => {
    const r = await postJson(base, { text: '  hello json  ' });
    expect(r.status).toBe(201);
    const m = r.json<Message>();
    expect(m).toEqual({ id: expect.any(Number), text: 'hello json', date_posted: expect.any(String) });
    expect(new Date(m.date_posted).toISOString()).toBe(m.date_posted);
    expect(r.headers.get('location')).toBe(`/api/message/${m.id}`);
    const got = await call(base, r.headers.get('location')!);
    expect(got.status).toBe(200);
    expect(got.json()).toEqual(m);
  });

  it('creates through the form with 303 to / (post/redirect/get) and shows it on the page', async () => {
    const r = await postForm(base, 'hello form');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/');
    const page = await call(base, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('hello form');
  });

  it('lists newest first on the page', async () => {
    await postJson(base, { text: 'older-one' });
    await postJson(base, { text: 'newer-one' });
    const page = (await call(base, '/')).text;
    expect(page.indexOf('newer-one')).toBeLessThan(page.indexOf('older-one'));
  });

  it('refuses cross-site form posts (403) and stores nothing', async () => {
    const before = await count();
    for (const headers of [{ origin: 'https://evil.example' }, { origin: '' }]) {
      const r = await postForm(base, 'csrf attempt', headers);
      expect(r.status).toBe(403);
    }
    expect(await count()).toBe(before);
  });

  it('streams the whole table in id order across many cursor batches, and pages with after/limit', async () => {
    await board.db.pool.query(
      "INSERT INTO posts (text, date_posted) SELECT 'bulk ' || g, '2024-01-01T00:00:00.000Z' FROM generate_series(1, 300) g",
    );
    const r = await call(base, '/api/message');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('content-length')).toBeNull();
    const all = r.json<Message[]>();
    expect(all.length).toBe(await count());
    expect(all.length).toBeGreaterThan(BATCH * 10);
    const ids = all.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const m of all) expect(Object.keys(m)).toEqual(['id', 'text', 'date_posted']);

    const page = (await call(base, `/api/message?after=${ids[10]}&limit=25`)).json<Message[]>();
    expect(page.map((m) => m.id)).toEqual(ids.slice(11, 36));
    expect((await call(base, `/api/message?after=${ids.at(-1)}`)).json()).toEqual([]);
  });

  it('keeps each cursor intact while listings and writes run concurrently', async () => {
    const [a, b, ...writes] = await Promise.all([
      call(base, '/api/message'),
      call(base, '/api/message'),
      ...Array.from({ length: 20 }, (_, i) => postJson(base, { text: `concurrent ${i}` })),
    ]);
    for (const w of writes) expect(w.status).toBe(201);
    for (const l of [a!, b!]) {
      expect(l.status).toBe(200);
      expect(l.json<Message[]>().length).toBeGreaterThan(300);
    }
  });

  it.each([
    ['the form', '/', 'application/x-www-form-urlencoded'],
    ['the JSON API', '/api/message', 'application/json'],
  ])('a client that aborts its POST body to %s is not a database outage: nothing logged as one, nothing stored', async (_, path, type) => {
    const before = await count();
    const lines = logLines.length;
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    // Promises 1000 bytes, sends a few, then resets the connection mid-body.
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${new URL(base).host}\r\nOrigin: ${base}\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\n\r\ntext=cut`);
    await new Promise((r) => setTimeout(r, 0));
    socket.resetAndDestroy();
    await waitFor(async () => logLines.slice(lines).some((l) => l.includes('"msg":"request"') && l.includes(`"path":"${path}"`)), 10_000);
    const logged = logLines.slice(lines).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => l['level'] === 'error')).toEqual([]);
    expect(logged.find((l) => l['msg'] === 'request')?.['status']).toBe(400);
    expect(await count()).toBe(before);
    expect((await call(base, '/readyz')).status).toBe(200);
  });

  it('frees the cursor and its connection when a client leaves mid-listing', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${base}/api/message`, { signal: ctrl.signal });
    const reader = res.body!.getReader();
    await reader.read();
    ctrl.abort();
    await reader.cancel().catch(() => {});
    const pool = board.db.pool;
    await waitFor(async () => pool.idleCount === pool.totalCount && pool.waitingCount === 0, 10_000);
    expect((await postJson(base, { text: 'after abort' })).status).toBe(201);
    expect((await call(base, '/api/message?limit=1')).status).toBe(200);
  });

  it('answers HEAD on the listing without leaving a cursor open', async () => {
    for (let i = 0; i < 3; i++) expect((await call(base, '/api/message', { method: 'HEAD' })).status).toBe(200);
    const pool = board.db.pool;
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect((await postJson(base, { text: 'after HEAD' })).status).toBe(201);
  });

  it('deletes: 200 with the message, then GET and DELETE give 404', async () => {
    const m = (await postJson(base, { text: 'to delete' })).json<Message>();
    const del = await call(base, `/api/message/${m.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json()).toEqual(m);
    for (const method of ['GET', 'DELETE']) {
      const r = await call(base, `/api/message/${m.id}`, { method });
      expect(r.status).toBe(404);
      expect(r.json()).toEqual({ message: `message ${m.id} not found` });
    }
  });

  it.each([
    ['abc', 400],
    ['1.5', 400],
    ['-1', 400],
    ['0', 400],
    ['+1', 400],
    ['1e3', 400],
    ['2147483648', 400],
    ['99999999999999999999', 400],
    ['2147483647', 404],
  ])('GET /api/message/%s → %i', async (id, status) => {
    const r = await call(base, `/api/message/${id}`);
    expect(r.status).toBe(status);
    expect(r.json<{ message: string }>().message).toEqual(expect.any(String));
  });

  it.each([
    ['after=x', 400],
    ['limit=0', 400],
    ['limit=-5', 400],
    ['after=1&after=2', 400],
    ['offset=10', 400],
    ['after=0&limit=1', 200],
  ])('GET /api/message?%s → %i', async (query, status) => {
    expect((await call(base, `/api/message?${query}`)).status).toBe(status);
  });

  // PostgreSQL counts characters: 255 of any script fit, 256 never do, however many bytes they take.
  it.each([
    ['ASCII', 'a'],
    ['Latin-1 (2 bytes)', 'ü'],
    ['CJK (3 bytes)', '漢'],
    ['emoji (4 bytes, 2 UTF-16 units)', '😀'],
  ])('accepts 255 and refuses 256 characters of %s, through JSON and the form', async (_, ch) => {
    const ok = await postJson(base, { text: ch.repeat(255) });
    expect(ok.status).toBe(201);
    expect(ok.json<Message>().text).toBe(ch.repeat(255));
    const before = await count();
    const bad = await postJson(base, { text: ch.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.json<{ message: string }>().message).toMatch(/at most 255 characters/);
    const form = await postForm(base, ch.repeat(256));
    expect(form.status).toBe(400);
    expect(form.text).toContain('at most 255 characters');
    expect(form.text).toContain(ch.repeat(256));
    expect(await count()).toBe(before);
  });

  it.each([
    ['empty', { text: '' }],
    ['whitespace only', { text: ' \t\n\u3000 ' }],
    ['not a string', { text: 42 }],
    ['missing text', { body: 'x' }],
    ['an array', ['text']],
    ['invalid JSON', '{"text": '],
    ['a NUL character', { text: 'a\u0000b' }],
    ['a lone surrogate', '{"text": "\\ud800"}'],
  ])('refuses %s with a JSON 400 and stores nothing', async (_, body) => {
    const before = await count();
    const r = await postJson(base, body);
    expect(r.status).toBe(400);
    expect(Object.keys(r.json<object>())).toEqual(['message']);
    expect(await count()).toBe(before);
  });

  it('shows the form again with the problem and the typed text for whitespace-only input', async () => {
    const before = await count();
    const r = await postForm(base, '   ');
    expect(r.status).toBe(400);
    expect(r.text).toContain('must not be empty');
    expect(r.text).toContain('<textarea id="text" name="text" rows="3" required>   </textarea>');
    expect(await count()).toBe(before);
  });

  it('answers 415 to a JSON post without a JSON content type', async () => {
    const r = await call(base, '/api/message', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"text":"x"}' });
    expect(r.status).toBe(415);
  });

  it('caps request bodies at BOARD_MAX_BODY_BYTES with 413, for JSON and the form', async () => {
    const big = 'x'.repeat(20 * 1024);
    const before = await count();
    expect((await postJson(base, { text: big })).status).toBe(413);
    const form = await postForm(base, big);
    expect(form.status).toBe(413);
    expect(form.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await count()).toBe(before);
  });

  it('renders every message as text under a CSP without script sources', async () => {
    const payloads = ['<script>window.pwned=1</script>', '"><img src=x onerror="window.pwned=1">', "'&amp;<b>"];
    for (const text of payloads) expect((await postJson(base, { text })).status).toBe(201);
    const page = await call(base, '/');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    expect(page.text).not.toMatch(/<script|<img/i);
    expect(page.text).toContain('&lt;script&gt;window.pwned=1&lt;/script&gt;');
    expect(page.text).toContain('&quot;&gt;&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;');
    expect(page.text).toContain('&#39;&amp;amp;&lt;b&gt;');
  });

  it.each([
    ['GET', '/nope', 404, undefined],
    ['GET', '/api/messages', 404, undefined],
    ['PUT', '/api/message', 405, 'GET, HEAD, POST'],
    ['PATCH', '/api/message/1', 405, 'GET, HEAD, DELETE'],
    ['DELETE', '/', 405, 'GET, HEAD, POST'],
  ])('%s %s → %i', async (method, path, status, allow) => {
    const r = await call(base, path, { method });
    expect(r.status).toBe(status);
    expect(r.headers.get('allow') ?? undefined).toBe(allow);
    if (path !== '/') expect(Object.keys(r.json<object>())).toEqual(['message']);
  });

  it('rate-limits writes per client address with 429 and Retry-After, for JSON and the form', async () => {
    // A second app on the same database with a tight limit; the client address comes from a test header.
    const app = createApp({
      messages: createMessages(board.db.pool, { exclusiveStatements: board.db.embedded !== undefined }),
      config: configWith({ postRatePerMin: 1, postBurst: 2 }),
      clientAddress: (c) => c.req.header('x-client') ?? 'none',
    });
    const post = (client: string) =>
      app.request('/api/message', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-client': client },
        body: JSON.stringify({ text: `limited ${client}` }),
      });
    expect((await post('a')).status).toBe(201);
    expect((await post('a')).status).toBe(201);
    const limited = await post('a');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ message: expect.stringMatching(/too many writes/) });
    expect((await post('b')).status).toBe(201);
    const form = await app.request('/', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', 'x-client': 'a' },
      body: 'text=kept+text',
    });
    expect(form.status).toBe(429);
    expect(form.headers.get('retry-after')).not.toBeNull();
    expect(await form.text()).toContain('kept text');
  });

  it('logs one structured line per request and never the database password', () => {
    const requests = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.msg === 'request');
    expect(requests.length).toBeGreaterThan(20);
    for (const e of requests) {
      expect(e).toMatchObject({ method: expect.any(String), path: expect.any(String), status: expect.any(Number), ms: expect.any(Number) });
    }
    expect(logLines.join('\n')).not.toContain(PASSWORD);
  });

  // Last on purpose: it takes the database away.
  it('answers 503 while the database is down and serves again by itself once it is back', async () => {
    try {
      await backend.stopDatabase(board);
      for (const [method, path] of [['GET', '/api/message/1'], ['GET', '/api/message'], ['POST', '/api/message'], ['GET', '/readyz']] as const) {
        const r = method === 'POST' ? await postJson(base, { text: 'during outage' }) : await call(base, path);
        expect(r.status).toBe(503);
        expect(r.json<{ message?: string }>()).toBeTypeOf('object');
        if (path !== '/readyz') expect(r.headers.get('retry-after')).not.toBeNull();
      }
      const page = await call(base, '/');
      expect(page.status).toBe(503);
      expect(page.text).not.toMatch(/at .*\.ts:\d+/);
    } finally {
      await backend.startDatabase(board);
    }
    await waitFor(async () => (await call(base, '/readyz')).status === 200, 30_000);
    const created = await postJson(base, { text: 'after restart' });
    expect(created.status).toBe(201);
    expect((await call(base, `/api/message/${created.json<Message>().id}`)).status).toBe(200);
    expect((await call(base, '/api/message')).status).toBe(200);
  });
});
