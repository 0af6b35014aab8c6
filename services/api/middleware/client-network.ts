/**
 * What a keyless client's budgets count against: its address, and for IPv6 its /64 (issue 47 item 10). One IPv6
 * host is routinely given a whole /64 and picks any address in it at will (RFC 4941's temporary addresses), so
 * counting each exact address made each request a new client with a full bucket. IPv4 addresses, and IPv4 written as
 * IPv6 (`::ffff:192.0.2.7`), count as themselves.
 */
import { isIPv6 } from 'node:net';

/**
 * @example budgetAddress('2001:db8:1:2:aaaa::5') // → '2001:db8:1:2::/64'
 * @example budgetAddress('::ffff:192.0.2.7') // → '192.0.2.7'
 */
export function budgetAddress(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1]!;
  if (!isIPv6(bare)) return address;
  const [head, tail] = bare.toLowerCase().split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (`…:192.0.2.7`) is two groups, both past the /64.
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
