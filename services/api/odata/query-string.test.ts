import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { decodeQueryString } from './query-string.js';
import { catchODataError } from '../testing/odata-ast.js';

const pairs = (raw: string) => decodeQueryString(raw).map(({ name, value }) => [name, value]);

describe('decodeQueryString: raw → pairs', () => {
  it.each([
    ['', []],
    ['a=1&b=2', [['a', '1'], ['b', '2']]],
    ['%24top=5', [['$top', '5']]],
    ['$top=5', [['$top', '5']]],
    ['a=x+y', [['a', 'x y']]],
    ['a=x%20y', [['a', 'x y']]],
    ['a=%2B', [['a', '+']]],
    ['a=%C3%A9', [['a', 'é']]],
    ['a=%F0%9F%98%80', [['a', '😀']]],
    ['a', [['a', '']]],
    ['a=', [['a', '']]],
    ['a=b=c', [['a', 'b=c']]],
    ['a=1&&b=2&', [['a', '1'], ['b', '2']]],
    ['a=%26&b', [['a', '&'], ['b', '']]],
    ['a%3Db=c', [['a=b', 'c']]],
    ["f=A%20eq%20'x'()$,:/?@!*;=", [['f', "A eq 'x'()$,:/?@!*;="]]],
    ['a[]=1', [['a[]', '1']]],
    ['a=%00', [['a', '\u0000']]],
  ] as const)('%j', (raw, expected) => {
    expect(pairs(raw)).toEqual(expected);
  });

  it('records where each pair starts in the raw string', () => {
    expect(decodeQueryString('a=1&bb=2').map((p) => p.offset)).toEqual([0, 4]);
  });
});

describe('decodeQueryString: undecodable → error at the raw offset', () => {
  it.each([
    ['a=%zz', 2],
    ['a=%2', 2],
    ['a=%', 2],
    ['a=%2&b=1', 2],
    ['a=%E0%A4', 2],
    ['a=%C3', 2],
    ['a=%C0%AF', 2],
    ['a=%ED%A0%80', 2],
    ['a=%F4%90%80%80', 2],
    ['a=%FF', 2],
    ['a=x%80', 3],
    ['a=%C3%A9%C3', 8],
    ['%zz=1', 0],
  ])('%s', (raw, offset) => {
    const err = catchODataError(() => decodeQueryString(raw));
    expect([err.code, err.offset, err.parameter]).toEqual(['undecodable_query', offset, undefined]);
  });

  // Characters RFC 3986 does not allow raw in a query (Node's server rejects some itself).
  it.each([' ', '"', '<', '>', '\\', '{', '}', '|', '^', '`', '#', '\u0000', '\u001f', '\n', '\u007f', 'é', '😀', '\u00a0'])('raw %j', (ch) => {
    const err = catchODataError(() => decodeQueryString(`a=${ch}b`));
    expect([err.code, err.offset]).toEqual(['undecodable_query', 2]);
    expect(err.message).toContain('percent-encoded');
  });
});

// Pins the runtime facts query-string.ts documents: which raw characters reach us through Node's
// req.url, and why we read that rather than a WHATWG-normalised URL.
describe('raw request-targets from a real Node socket', () => {
  async function rawRequestTarget(target: string): Promise<{ status: number; url?: string }> {
    let seen: string | undefined;
    const server = http.createServer((req, res) => {
      seen = req.url;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    await new Promise((resolve) => server.close(resolve));
    return { status: Number(reply.split(' ')[1]), url: seen };
  }

  it('Node passes raw " and { through in req.url; we reject them, WHATWG URL would hide the quote', async () => {
    const { status, url } = await rawRequestTarget('/v1/Observations?$filter=A%20eq%20"x"{');
    expect(status).toBe(200);
    const query = (url ?? '').slice((url ?? '').indexOf('?') + 1);
    expect(catchODataError(() => decodeQueryString(query)).code).toBe('undecodable_query');
    expect(new URL(`http://h${url ?? ''}`).search).toContain('%22x%22');
  });

  it('Node itself answers 400 to a raw space in the request-target', async () => {
    expect((await rawRequestTarget('/v1/Observations?$filter=A eq 1')).status).toBe(400);
  });
});
