/**
 * Hostile clients, round two (issue 47): each finding's repro on a real loopback socket, kept as a regression
 * test named for what broke. The app runs with the limits main.ts gives it (keys optional, a query gate, per
 * client places), over the shared fixture file. Round three (issue 56) adds the aggregation bombs and JSON-RPC batches
 * at the end; its formula payloads are hostile-formulas.test.ts's, its other repros hostile-round-three.test.ts's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { haproxyConfig } from '../../scripts/ops/replicas/haproxy-config.js';
import { exited, freePort, waitForOk } from '../../scripts/ops/replicas/topology.js';
import { createApp, type AppDeps } from './app.js';
import { acquirer, openDatabase, type Database } from './db/database.js';
import { createQueryGate } from './limits/query-gate.js';
import { NODE_SERVER_OPTIONS } from './middleware/url-length.js';
import { GEOMETRY_LIMITS } from './odata/geometry.js';
import { REGIONS_PAGE_BYTES } from './ogc/regions-collection.js';
import { readCatalogue } from './exec/landing.js';
import { catalogueTemplate } from './pages/register-pages.js';
import { listen, type TestServer } from './testing/test-server.js';

let db: Database;
let server: TestServer;
const opened: TestServer[] = [];

beforeAll(async () => {
  db = await openDatabase(inject('apiFixtureDb'));
  server = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false } }));
});
afterAll(async () => {
  for (const s of opened) {
    if ('closeAllConnections' in s.server) s.server.closeAllConnections();
    await s.close();
  }
  await server.close();
  await db.close();
});

/** The API's error body: its status, code and detail (errors.ts). */
async function errorOf(res: Response, status: number, code: string): Promise<{ code: string; detail: string }> {
  expect(res.status).toBe(status);
  const [error] = ((await res.json()) as { errors: { code: string; detail: string }[] }).errors;
  expect(error!.code).toBe(code);
  return error!;
}

/** One request through node:http, whose header limit can be raised past fetch's: for answers whose headers grew. */
function raw(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headerBytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A connection of its own (agent: false): Node's global agent keeps sockets alive, and a request sent on one the
    // server was just closing failed with ECONNRESET before it was read, in a loaded CI run.
    const req = request(url, { method, headers, maxHeaderSize: 64 * 1024 * 1024, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headerBytes: res.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h) + 2, 0), body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const items = (collection: string) => `${server.origin}/v1/features/collections/${collection}/items`;

/** A valid comb: teeth across the longitudes one above the other, so every edge spans its whole width. */
function zigzag(n: number, west = -120, east = -100): [number, number][] {
  const teeth = Array.from({ length: n }, (_, i) => [i % 2 === 0 ? west + 1 : east, 40 + i / 1000] as [number, number]);
  return [[west, 40], ...teeth, [west, 40 + n / 1000], [west, 40]];
}

describe('item 1: a polygon check that blocked the server', () => {
  it('refuses seven 10,000-vertex zigzags in one body by the per-filter limit, before checking them all', async () => {
    const polygons = Array.from({ length: 7 }, () => ({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [zigzag(GEOMETRY_LIMITS.maxVertices - 10)] }] }));
    const res = await fetch(items('locations'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'or', args: polygons }) });
    expect((await errorOf(res, 400, 'invalid_geometry')).detail).toContain('per filter');
  });

  it('checks one valid zigzag of nearly the limit along the axis where its edges do not overlap', async () => {
    const filter = { op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [zigzag(GEOMETRY_LIMITS.maxVertices - 10)] }] };
    const res = await raw('POST', items('locations'), { 'content-type': 'application/json' }, JSON.stringify(filter));
    expect(res.status).toBe(200);
  });
});

/** A raw connection that sends a POST's headers and then its body a byte at a time until stopped. */
function trickle(port: number, path: string): { socket: Socket; response: Promise<string>; stop(): void } {
  const socket = connect(port, '127.0.0.1');
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n$`);
  const timer = setInterval(() => socket.writable && socket.write('t'), 100);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  const response = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  socket.on('error', () => {});
  return { socket, response, stop: () => clearInterval(timer) };
}

describe('item 3: slow bodies held query slots', () => {
  it('reads the body before the query gate: one slot, a trickling POST, and another client is still served; the trickler gets 408', async () => {
    const lines: string[] = [];
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 0, maxPerClient: 1 });
    const app = createApp({
      acquire: acquirer(db),
      links: { trustProxy: false },
      limits: { bodyTimeoutMs: 60_000, bodyMinBytesPerSecond: 100 },
      access: { queryGate: gate, maxConcurrentPerKey: 2 },
      observe: { accessLog: (line) => lines.push(line) },
    });
    const s = await listen(app, NODE_SERVER_OPTIONS);
    opened.push(s);
    const arrived = new Promise((r) => s.server.once('request', r));
    const slow = trickle(s.port, '/v1/odata/v4/Locations/$query');
    await arrived;
    const other = await fetch(`${s.origin}/v1/odata/v4/Locations?$top=1`);
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    const answer = await slow.response;
    slow.stop();
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('BODY_MIN_BYTES_PER_SECOND');
    expect(gate.running).toBe(0);
  });

  it('logs a client that leaves mid-body as cancelled, having held no slot', async () => {
    const lines: string[] = [];
    let logged!: () => void;
    const done = new Promise<void>((r) => (logged = r));
    const gate = createQueryGate({ maxConcurrent: 1, maxQueue: 0, maxWaitMs: 0 });
    const app = createApp({
      acquire: acquirer(db),
      links: { trustProxy: false },
      access: { queryGate: gate },
      observe: { accessLog: (line) => (lines.push(line), logged()) },
    });
    const s = await listen(app, NODE_SERVER_OPTIONS);
    opened.push(s);
    const arrived = new Promise((r) => s.server.once('request', r));
    const slow = trickle(s.port, '/v1/odata/v4/Locations/$query');
    await arrived;
    expect(gate.running).toBe(0);
    slow.stop();
    slow.socket.destroy();
    await done;
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: 'POST', outcome: 'cancelled' });
  });
});

/** The app on a socket behind the project's HAProxy (scripts/ops/replicas/haproxy-config.ts), as the replicas run. */
async function behindHaproxy(deps: Omit<AppDeps, 'acquire'>): Promise<{ origin: string; stop(): Promise<void> }> {
  const api = await listen(createApp({ acquire: acquirer(db), ...deps }), NODE_SERVER_OPTIONS);
  opened.push(api);
  const dir = mkdtempSync(join(tmpdir(), 'tributary-hostile-'));
  const port = await freePort();
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig({ bind: `127.0.0.1:${port}`, backends: { kind: 'static', servers: [{ name: 'api1', host: '127.0.0.1', port: api.port }] } }));
  const haproxy: ChildProcess = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
  const origin = `http://127.0.0.1:${port}`;
  await waitForOk(`${origin}/readyz`, 20_000);
  return {
    origin,
    async stop() {
      haproxy.kill('SIGTERM');
      await exited(haproxy);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('item 5: a spoofable client address and origin behind the shipped HAProxy', () => {
  it('a new X-Forwarded-For per request is still one client: its budget runs out', async () => {
    const lb = await behindHaproxy({ links: { trustProxy: true }, access: { rateLimit: { rps: 0.01, burst: 4 }, trustProxy: true } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${lb.origin}/v1/odata/v4/Locations?$top=1`, { headers: { 'x-forwarded-for': `198.51.100.${i}`, forwarded: `for=198.51.100.${i}` } });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(8);
    } finally {
      await lb.stop();
    }
  });

  it("a client's X-Forwarded-Host, Forwarded or X-Request-Id never reaches an answer", async () => {
    const lb = await behindHaproxy({ links: { trustProxy: true }, access: { trustProxy: true } });
    try {
      const res = await fetch(`${lb.origin}/v1/odata/v4/Locations?$top=1`, {
        headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example;proto=https', 'x-request-id': 'forged-id' },
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(`${text} ${[...res.headers].join(' ')}`).not.toMatch(/evil\.example|https:/);
      expect(text).toContain(lb.origin);
      expect(res.headers.get('x-request-id')).not.toBe('forged-id');
    } finally {
      await lb.stop();
    }
  });

  it('without a proxy in front, the right-most X-Forwarded-For entry of TRUST_PROXY hops is the client', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: 2 }, access: { rateLimit: { rps: 0.01, burst: 1 }, trustProxy: 2 } });
    const get = (chain: string) => app.request('/v1/odata/v4/Locations?$top=1', { headers: { 'x-forwarded-for': chain } });
    expect((await get('6.6.6.1, 203.0.113.9, 10.0.0.2')).status).toBe(200);
    expect((await get('6.6.6.2, 203.0.113.9, 10.0.0.2')).status).toBe(429);
    expect((await get('6.6.6.3, 203.0.113.10, 10.0.0.2')).status).toBe(200);
  });
});

describe('item 7: citations by shape answered 500', () => {
  const world = (x: number, y: number) => `POLYGON((${x - 3} ${y - 3},${x + 3} ${y - 3},${x + 3} ${y + 3},${x - 3} ${y + 3},${x - 3} ${y - 3}))`;
  let points: { id: number; x: number; y: number }[];
  beforeAll(async () => {
    const res = await fetch(`${server.origin}/v1/odata/v4/Locations?$select=Id,Longitude,Latitude&$top=10000`);
    points = ((await res.json()) as { value: { Id: number; Longitude: number; Latitude: number }[] }).value.map((r) => ({ id: Number(r.Id), x: r.Longitude, y: r.Latitude }));
  });
  /** Haversine on the API's sphere, written here from its definition. */
  const metres = (a: { x: number; y: number }, b: { x: number; y: number }) => {
    const rad = (d: number) => (d * Math.PI) / 180;
    const h = Math.sin(rad(b.y - a.y) / 2) ** 2 + Math.cos(rad(a.y)) * Math.cos(rad(b.y)) * Math.sin(rad(b.x - a.x) / 2) ** 2;
    return 2 * 6371008.8 * Math.asin(Math.sqrt(h));
  };
  const cases: [string, (c: { x: number; y: number }) => string, (c: { x: number; y: number }, p: { x: number; y: number }) => boolean][] = [
    ['geo.intersects', (c) => `geo.intersects(Location,geography'SRID=4326;${world(c.x, c.y)}')`, (c, p) => Math.abs(p.x - c.x) < 3 && Math.abs(p.y - c.y) < 3],
    ['geo.distance le', (c) => `geo.distance(Location,geography'SRID=4326;POINT(${c.x} ${c.y})') le 200000`, (c, p) => metres(c, p) <= 200000],
    ['geo.distance gt', (c) => `geo.distance(Location,geography'SRID=4326;POINT(${c.x} ${c.y})') gt 200000`, (c, p) => metres(c, p) > 200000],
  ];
  const cite = async (resource: string, filter: string) => {
    const res = await fetch(`${server.origin}/v1/citation/${resource}?${new URLSearchParams({ $filter: filter })}`, { headers: { accept: 'application/json' } });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { datasets: { DOI: string; Rows: number }[] }).datasets.map((d) => [d.DOI, d.Rows]).sort();
  };
  for (const resource of ['Locations', 'Metadata', 'Observations', 'Records']) {
    for (const [name, filter, passes] of cases) {
      it(`${resource}, ${name}: the datasets and rows of the same Id list`, async () => {
        const c = points[Math.floor(points.length / 2)]!;
        const ids = points.filter((p) => passes(c, p)).map((p) => p.id);
        expect(ids.length).toBeGreaterThan(0);
        expect(await cite(resource, filter(c))).toEqual(await cite(resource, `LocationId in (${ids.join(',')})`));
      });
    }
  }
});

describe('item 6: headers and bodies that grew with the filter', () => {
  const HEAD_LIMIT = 8 * 1024;
  /** The longest target MAX_URL_BYTES lets in, of a filter every link would repeat. */
  const longest = (path: string, max = 16 * 1024) => {
    const prefix = `${path}?$filter=CharacteristicName%20eq%20%27`;
    return `${prefix}${'a'.repeat(max - prefix.length - 3)}%27`;
  };
  /** A polygon of 10,000 positions written long enough to fill MAX_BODY_BYTES (1 MiB) nearly. */
  const bigPolygon = () => {
    // Trailing zeros: the same numbers, written as long as a client may write them.
    const long = (v: number) => `${v}${Number.isInteger(v) ? '.' : ''}${'0'.repeat(36)}`;
    const ring = zigzag(GEOMETRY_LIMITS.maxVertices - 10).map(([x, y]) => `[${long(x)},${long(y)}]`);
    return `{"op":"s_intersects","args":[{"property":"geometry"},{"type":"Polygon","coordinates":[[${ring.join(',')}]]}]}`;
  };

  it('through HAProxy: the longest URL the API reads gets its answer with a head under 8 KiB, one byte more the API’s 414', async () => {
    const lb = await behindHaproxy({ links: { trustProxy: true }, access: { trustProxy: true } });
    try {
      for (const path of ['/v1/odata/v4/Observations', '/v1/odata/v4/Locations', '/v1/export/Records', '/v1/citation/Records']) {
        const target = longest(path);
        expect(Buffer.byteLength(target)).toBe(16 * 1024);
        const ok = await raw('GET', `${lb.origin}${target}`, {});
        expect([ok.status, path]).toEqual([200, path]);
        expect(ok.headerBytes).toBeLessThan(HEAD_LIMIT);
        const over = await raw('GET', `${lb.origin}${longest(path, 16 * 1024 + 1)}`, {});
        expect(over.status).toBe(414);
        expect(JSON.parse(over.body).errors[0].code).toBe('uri_too_long');
      }
    } finally {
      await lb.stop();
    }
  });

  it('the largest body the API reads: a head under 8 KiB and a page of one feature not much larger than the body', async () => {
    const body = bigPolygon();
    expect(body.length).toBeGreaterThan(800 * 1024);
    expect(body.length).toBeLessThan(1024 * 1024);
    for (const [path, type, text] of [
      ['/v1/features/collections/locations/items?limit=1', 'application/json', body],
      ['/v1/features/collections/observations/items?limit=1', 'application/json', body],
      ['/v1/odata/v4/Locations/$query', 'text/plain', `$top=1&$filter=${encodeURIComponent(`geo.intersects(Location,geography'SRID=4326;POLYGON((${zigzag(GEOMETRY_LIMITS.maxVertices - 10).map(([x, y]) => `${x}.0000000000000000000000000 ${y}`).join(',')}))')`)}`],
    ] as const) {
      const res = await raw('POST', `${server.origin}${path}`, { 'content-type': type }, text);
      expect([res.status, path, res.status === 200 ? '' : res.body]).toEqual([200, path, '']);
      expect(res.headerBytes).toBeLessThan(HEAD_LIMIT);
      expect(res.body.length).toBeLessThan(2 * text.length + 64 * 1024);
    }
  });
});

describe('item 8: log amplification', () => {
  it('a client refused again and again on one connection writes a bounded log: prefix, length and hash, refusals sampled', async () => {
    const lines: string[] = [];
    const app = createApp({
      acquire: acquirer(db),
      links: { trustProxy: false },
      access: { rateLimit: { rps: 0.001, burst: 1 } },
      // A clock that never moves: the refusals' budget is its burst alone, whatever the machine's speed.
      observe: { accessLog: (line) => lines.push(line), now: () => 0 },
    });
    const s = await listen(app, NODE_SERVER_OPTIONS);
    opened.push(s);
    const target = `/v1/odata/v4/Locations?$filter=${encodeURIComponent(`Name eq '${'x'.repeat(15_000)}'`)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${s.origin}${target}`);
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.filter((x) => x === 429)).toHaveLength(99);
    const records = lines.map((l) => JSON.parse(l) as { status: number; path: string; pathBytes?: number; pathHash?: string });
    expect(records.length).toBeLessThanOrEqual(11);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThan(2048);
    expect(records[0]).toMatchObject({ pathBytes: expect.any(Number), pathHash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(records[0]!.pathBytes).toBeGreaterThan(15_000);
    expect(records[0]!.path).toMatch(/^\/v1\/odata\/v4\/Locations\?\$filter=Name.*…$/);
  });
});

describe('item 10: small ones', () => {
  it('a key in the query string is a 400 saying to use the header, and never logged', async () => {
    const lines: string[] = [];
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, observe: { accessLog: (line) => lines.push(line) } });
    for (const name of ['api_key', 'x-api-key', 'apikey', 'API_KEY', 'key']) {
      const res = await app.request(`/v1/odata/v4/Locations?$top=1&${name}=s3cret-value`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { detail: string; source: { parameter: string } }[] };
      expect(body.errors[0]!.detail).toContain('x-api-key request header');
      expect(body.errors[0]!.source.parameter).toBe(name);
    }
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).not.toContain('s3cret');
  });
});

describe('item 9: documents built whole on the event loop', () => {
  it('a national-scale regions file: pages bounded by REGIONS_PAGE_BYTES whatever the limit, together every region once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-regions-'));
    try {
      // 300 regions of 2,000 vertices each: about 13 MB of outlines, as a national set of watersheds is.
      const features = Array.from({ length: 300 }, (_, k) => {
        const ring = Array.from({ length: 2000 }, (_, i) => {
          const a = (2 * Math.PI * i) / 2000;
          return [-120 + (k % 20) + 0.4 * Math.cos(a) + 0.5, 40 + Math.floor(k / 20) + 0.4 * Math.sin(a) + 0.5];
        });
        return { type: 'Feature', properties: { RegionId: `nat.${k}`, name: `Unit ${k}` }, geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] } };
      });
      writeFileSync(join(dir, 'nat.geojson'), JSON.stringify({ type: 'FeatureCollection', features }));
      const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, regionsFile: join(dir, 'nat.geojson') });
      const seen: string[] = [];
      let next: string | undefined = `/v1/features/collections/regions/items?limit=10000`;
      while (next) {
        const res = await app.request(next);
        const text = await res.text();
        expect(res.status).toBe(200);
        expect(text.length).toBeLessThan(REGIONS_PAGE_BYTES + 64 * 1024);
        const page = JSON.parse(text) as { numberMatched: number; numberReturned: number; features: { id: string }[]; links: { rel: string; href: string }[] };
        expect(page.numberMatched).toBe(300);
        expect(page.features).toHaveLength(page.numberReturned);
        seen.push(...page.features.map((f) => f.id));
        const link = page.links.find((l) => l.rel === 'next')?.href;
        next = link ? new URL(link).pathname + new URL(link).search : undefined;
      }
      expect(seen.length).toBe(300);
      expect(new Set(seen).size).toBe(300);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the DCAT catalogue is written once per publication for every Host, each answer naming its own', async () => {
    const hosts = ['a.example', 'b.example', 'c.example:8080'];
    const bodies: string[] = [];
    for (const host of hosts) {
      for (const path of ['/catalogue.jsonld', '/catalogue.ttl']) {
        const res = await raw('GET', `${server.origin}${path}`, { host });
        expect(res.status).toBe(200);
        expect(res.body).toContain(`http://${host}/`);
        expect(res.body).not.toContain('.invalid');
        bodies.push(res.body.replaceAll(`http://${host}`, 'BASE'));
      }
    }
    expect(bodies[2]).toBe(bodies[0]);
    expect(bodies[3]).toBe(bodies[1]);
    const acquired = await db.acquire();
    try {
      const data = await readCatalogue(acquired.snapshot);
      expect(catalogueTemplate(data, 'jsonld')).toBe(catalogueTemplate(data, 'jsonld'));
      expect(JSON.parse(catalogueTemplate(data, 'jsonld').pieces.join(`http://${hosts[0]}`))).toEqual(JSON.parse(bodies[0]!.replaceAll('BASE', `http://${hosts[0]}`)));
    } finally {
      acquired.release();
    }
  });
});

describe('item 10: small ones, on the fixture', () => {
  it('CQL2-JSON operators named after Object.prototype are a 400, not a 500', async () => {
    for (const op of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await fetch(items('locations'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op, args: [{ property: 'Name' }, 'x'] }) });
      expect([op, res.status]).toEqual([op, 400]);
      expect((await errorOf(res, 400, 'unsupported_function')).detail).toContain(`'${op.toLowerCase()}' is not supported`);
    }
  });

  it('a location page past int64 is a 404, not DuckDB’s cast error', async () => {
    for (const id of ['9223372036854775808', '9999999999999999999']) {
      const res = await fetch(`${server.origin}/locations/${id}`);
      expect([id, res.status]).toEqual([id, 404]);
      await res.arrayBuffer();
    }
  });

  it('X-Request-Id is kept only from a trusted proxy', async () => {
    const direct = await fetch(`${server.origin}/healthz`, { headers: { 'x-request-id': 'chosen-by-client' } });
    expect(direct.headers.get('x-request-id')).not.toBe('chosen-by-client');
    const behind = createApp({ acquire: acquirer(db), links: { trustProxy: true } });
    expect((await behind.request('/healthz', { headers: { 'x-request-id': 'from-the-balancer' } })).headers.get('x-request-id')).toBe('from-the-balancer');
  });

  it('keyless budgets count an IPv6 client by its /64', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: true }, access: { rateLimit: { rps: 0.001, burst: 1 }, trustProxy: true } });
    const get = (from: string) => app.request('/v1/odata/v4/Locations?$top=1', { headers: { 'x-forwarded-for': from } });
    expect((await get('2001:db8:1:2::1')).status).toBe(200);
    expect((await get('2001:db8:1:2:ffff:eeee:dddd:cccc')).status).toBe(429);
    expect((await get('2001:db8:1:3::1')).status).toBe(200);
    expect((await get('::ffff:192.0.2.7')).status).toBe(200);
    expect((await get('192.0.2.7')).status).toBe(429);
  });

  it('publication=<a word> is a 400, an id newer than any a 404', async () => {
    const word = await fetch(`${server.origin}/v1/odata/v4/Locations?$top=1&publication=anything`);
    await errorOf(word, 400, 'invalid_parameter');
    const later = await fetch(`${server.origin}/v1/odata/v4/Locations?$top=1&publication=29991231T235959999Z-ffffffff`);
    await errorOf(later, 404, 'not_found');
  });
});

describe('item 10: the regions collection has HTML, as every collection does', () => {
  it('collection, items and one region answer f=html (and a browser’s Accept) with a page; GeoJSON stays the default', async () => {
    const app = createApp({ acquire: acquirer(db), links: { trustProxy: false }, regionsFile: join(import.meta.dirname, '../../scripts/sample/hubs.geojson') });
    const json = (await (await app.request('/v1/features/collections/regions/items?limit=2')).json()) as { features: { id: string; properties: { name: string } }[] };
    const first = json.features[0]!;
    for (const [path, words] of [
      ['/v1/features/collections/regions?f=html', ['Regions']],
      ['/v1/features/collections/regions/items?limit=2&f=html', [first.id, first.properties.name]],
      [`/v1/features/collections/regions/items/${encodeURIComponent(first.id)}?f=html`, [first.id, first.properties.name]],
    ] as const) {
      const res = await app.request(path);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      const text = await res.text();
      for (const w of words) expect(text).toContain(w);
    }
    const browser = await app.request('/v1/features/collections/regions/items?limit=1', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});

describe('item 2: whole-map location tests', () => {
  it('thirty whole-map terms in one GET: one resolution, every location with a point counted once', async () => {
    const far = `geo.distance(Location,geography'SRID=4326;POINT(0 0)') ge 0`;
    const world = `geo.intersects(Location,geography'SRID=4326;POLYGON((-180 -90,180 -90,180 90,-180 90,-180 -90))')`;
    const filter = Array.from({ length: 15 }, () => `${far} and ${world}`).join(' and ');
    const res = await fetch(`${server.origin}/v1/odata/v4/Locations?${new URLSearchParams({ $filter: filter, $count: 'true', $top: '0' })}`);
    expect(res.status).toBe(200);
    const counted = ((await res.json()) as { '@odata.count': number })['@odata.count'];
    const all = (await (await fetch(`${server.origin}/v1/odata/v4/Locations?$select=Id,Latitude&$top=10000`)).json()) as { value: { Latitude: number | null }[] };
    expect(counted).toBe(all.value.filter((l) => l.Latitude !== null).length);
  });
});

describe('round three (issue 56): aggregation bombs and JSON-RPC batches, each a clear 4xx with the server still up', () => {
  const groupbyAll = 'CharacteristicName,ActivityStartYear,ActivityMediaName,ActivityGroupType,MonitoringLocationType,DOI,LocationId,RegionId,ResultUnit';
  const median = (n: number) => Array.from({ length: n }, (_, i) => `ResultValue with Tributary.p${i % 2 ? 10 : 90} as P${i}`).join(',');
  const SHAPES: readonly (readonly [name: string, apply: string, code: string])[] = [
    ['nine grouping fields', `groupby((${groupbyAll}),aggregate($count as N))`, 'apply_too_large'],
    ['the four highest-cardinality dimensions under a median: past MAX_APPLY_GROUPS by the estimate', 'groupby((LocationId,CharacteristicName,ActivityStartYear,ResultUnit),aggregate(ResultValue with Tributary.median as M))', 'apply_too_large'],
    ['eight dimensions with four holistic aggregates', `groupby((${groupbyAll.split(',').slice(0, 8).join(',')}),aggregate(${median(4)}))`, 'apply_too_large'],
    ['five holistic aggregates', `groupby((CharacteristicName),aggregate(${median(5)}))`, 'apply_too_large'],
    ['sixteen countdistincts', `groupby((CharacteristicName),aggregate(${Array.from({ length: 16 }, (_, i) => `LocationId with countdistinct as D${i}`).join(',')}))`, 'apply_too_large'],
    ['seventeen aggregates', `aggregate(${Array.from({ length: 17 }, (_, i) => `$count as C${i}`).join(',')})`, 'unsupported_apply'],
    ['a key: one group per row', 'groupby((Id),aggregate($count as N))', 'unsupported_apply'],
    ['a measure', 'groupby((ResultValue),aggregate($count as N))', 'unsupported_apply'],
    ['a coordinate', 'groupby((Latitude,Longitude),aggregate($count as N))', 'unsupported_apply'],
    ['free text', 'groupby((ResultComment),aggregate($count as N))', 'unsupported_apply'],
    ['nested groupby', 'groupby((CharacteristicName),groupby((LocationId),aggregate($count as N)))', 'unsupported_apply'],
    ['a groupby after a groupby', 'groupby((CharacteristicName))/groupby((LocationId))', 'unsupported_apply'],
    ['a thousand nested filters', `${'filter('.repeat(1000)}ResultValue gt 1${')'.repeat(1000)}/groupby((CharacteristicName))`, 'unsupported_function'],
    ['a filter nested a thousand parentheses deep', `filter(${'('.repeat(1000)}ResultValue gt 1${')'.repeat(1000)})/groupby((CharacteristicName))`, 'too_deep'],
    ['a groupby of the same field eight times', `groupby((${Array(8).fill('LocationId').join(',')}),aggregate($count as N))`, 'unsupported_apply'],
  ];

  it.each(SHAPES)('%s', async (_name, apply, code) => {
    const s = await listen(createApp({ acquire: acquirer(db), links: { trustProxy: false }, limits: { maxApplyGroups: 1000 } }), NODE_SERVER_OPTIONS);
    opened.push(s);
    const res = await fetch(`${s.origin}/v1/odata/v4/Records?${new URLSearchParams({ $apply: apply })}`);
    const body = (await res.json()) as { errors: { code: string; detail: string }[] };
    expect([res.status, body.errors[0]!.code], body.errors[0]!.detail).toEqual([400, code]);
    expect(body.errors[0]!.detail.length).toBeGreaterThan(20);
    const next = await fetch(`${s.origin}/v1/odata/v4/Records?$apply=groupby((CharacteristicName),aggregate($count as N))&$top=1`);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });

  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'aggregate', arguments: { resource: 'Observations', apply: 'groupby((LocationId,CharacteristicName,ActivityStartYear,ResultUnit),aggregate(ResultValue with Tributary.median as M))' } } });
  it.each<[string, unknown]>([
    ['an empty batch', []],
    ['a batch of one', [call(1)]],
    ['a batch of a thousand aggregation bombs', Array.from({ length: 1000 }, (_, i) => call(i))],
    ['nested batches', [[call(1)], [[call(2)]]]],
  ])('/mcp: %s is 400 Invalid Request, no tool runs', async (_name, message) => {
    const res = await fetch(`${server.origin}/mcp`, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(message) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/batch/i);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
  });
});
