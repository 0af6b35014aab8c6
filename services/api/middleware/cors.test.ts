import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { allowedOrigin, cors } from './cors.js';

function app(origins: string[], trustProxy = false): Hono {
  const a = new Hono();
  a.use('*', cors({ origins, trustProxy }));
  a.get('/v1/x', (c) => c.json({ origin: allowedOrigin(c) ?? null }));
  return a;
}

const originOf = async (a: Hono, headers: Record<string, string>) =>
  ((await (await a.request('http://api.example.org/v1/x', { headers })).json()) as { origin: string | null }).origin;

describe('cors: the API’s own pages (same-origin requests carry no Origin)', () => {
  const own = app(['https://api.example.org', 'http://localhost:3000']);

  it('takes a same-origin request to a listed host as coming from that origin', async () => {
    expect(await originOf(own, { 'sec-fetch-site': 'same-origin', host: 'api.example.org' })).toBe('https://api.example.org');
    expect(await originOf(own, { 'sec-fetch-site': 'same-origin', host: 'LOCALHOST:3000' })).toBe('http://localhost:3000');
  });

  it('does not for another host, another port, a cross-site request or one without Sec-Fetch-Site', async () => {
    expect(await originOf(own, { 'sec-fetch-site': 'same-origin', host: 'evil.example.org' })).toBeNull();
    expect(await originOf(own, { 'sec-fetch-site': 'same-origin', host: 'localhost:3001' })).toBeNull();
    expect(await originOf(own, { 'sec-fetch-site': 'cross-site', host: 'api.example.org' })).toBeNull();
    expect(await originOf(own, { host: 'api.example.org' })).toBeNull();
  });

  it('an Origin header decides alone: a listed one is allowed, another is not rescued by the host', async () => {
    expect(await originOf(own, { origin: 'http://localhost:3000', host: 'elsewhere' })).toBe('http://localhost:3000');
    expect(await originOf(own, { origin: 'https://evil.example.com', 'sec-fetch-site': 'same-origin', host: 'api.example.org' })).toBeNull();
  });

  it('reads X-Forwarded-Host only behind a trusted proxy', async () => {
    const headers = { 'sec-fetch-site': 'same-origin', host: 'api:3000', 'x-forwarded-host': 'api.example.org' };
    expect(await originOf(app(['https://api.example.org'], true), headers)).toBe('https://api.example.org');
    expect(await originOf(app(['https://api.example.org'], false), headers)).toBeNull();
  });
});
