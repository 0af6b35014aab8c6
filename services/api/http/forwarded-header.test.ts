/** The `Forwarded` header grammar (RFC 7239 §4), with the one leniency proxies need: unquoted `host=h:port`. */
import { describe, expect, it } from 'vitest';
import { parseForwarded } from './forwarded-header.js';

describe('parseForwarded', () => {
  it.each<[string, Record<string, string>[]]>([
    ['for=192.0.2.60;proto=https;host=data.example.org', [{ for: '192.0.2.60', proto: 'https', host: 'data.example.org' }]],
    ['for=192.0.2.43, for=198.51.100.17', [{ for: '192.0.2.43' }, { for: '198.51.100.17' }]],
    ['for="[2001:db8:cafe::17]:4711"', [{ for: '[2001:db8:cafe::17]:4711' }]],
    ['for=192.0.2.60;proto=http;by=203.0.113.43', [{ for: '192.0.2.60', proto: 'http', by: '203.0.113.43' }]],
    ['host="a\\"b"', [{ host: 'a"b' }]],
    ['Host=X;PROTO=https', [{ host: 'X', proto: 'https' }]],
    ['for=a ,\tfor=b', [{ for: 'a' }, { for: 'b' }]],
    ['host=data.example.org:8443', [{ host: 'data.example.org:8443' }]],
    ['host=[2001:db8::1]:8443;proto=https', [{ host: '[2001:db8::1]:8443', proto: 'https' }]],
    ['for=_hidden;host=""', [{ for: '_hidden', host: '' }]],
  ])('%s', (header, expected) => {
    expect(parseForwarded(header)).toEqual(expected);
  });

  it.each([
    'host',
    'host=',
    '=x',
    'host=a b',
    'host="unterminated',
    'host="a\\',
    'host=a;;proto=https',
    'host=a,',
    'host=a;host=b',
    'host=a/b',
    'host=a"b"',
    'ho st=a',
    'host=a\u0000',
    'host="a\u0001"',
  ])('%j is malformed', (header) => {
    expect(parseForwarded(header)).toBeUndefined();
  });

  it('a parameter named __proto__ is a parameter, refused when repeated, not a prototype (issue 37 item 5)', () => {
    const [element] = parseForwarded('__proto__=a;host=h')!;
    expect(Object.hasOwn(element!, '__proto__')).toBe(true);
    expect([element!['__proto__'], element!['host']]).toEqual(['a', 'h']);
    expect(parseForwarded('__proto__=a;__proto__=b')).toBeUndefined();
  });
});
