import type { Context } from 'hono';

/**
 * The address a request came from, for rate limiting and logs. Behind a load balancer the socket peer is the
 * balancer, so with `trustedHops` > 0 the address is taken from `X-Forwarded-For`, counting from the right:
 * entries further left were written by the client itself and can be forged.
 */
export function clientAddress(trustedHops: number): (c: Context) => string {
  return (c) => {
    const peer = socketAddress(c);
    if (trustedHops === 0) return peer;
    const chain = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (chain.length === 0) return peer;
    return chain[Math.max(0, chain.length - trustedHops)] ?? peer;
  };
}

function socketAddress(c: Context): string {
  // `env.incoming` is the Node request under @hono/node-server; absent under app.request() in tests.
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
