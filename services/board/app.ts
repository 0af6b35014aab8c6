import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { apiRoutes } from './api-routes.js';
import { clientAddress } from './client-address.js';
import type { BoardConfig } from './config.js';
import { errorBody, toBoardError } from './errors.js';
import { errorPage } from './html.js';
import { errorFields, silentLog, type Log } from './log.js';
import type { Messages } from './messages.js';
import { pageRoutes } from './page-routes.js';
import { createRateLimiter } from './rate-limit.js';
import { requestLog } from './request-log.js';

export interface AppDeps {
  readonly messages: Messages;
  readonly config: BoardConfig;
  readonly log?: Log;
  readonly now?: () => Date;
  /** Defaults to the socket peer, or `X-Forwarded-For` per `trustProxyHops`. */
  readonly clientAddress?: (c: Context) => string;
  /** True once SIGTERM arrived: /readyz turns 503 so the load balancer stops sending traffic. */
  readonly isDraining?: () => boolean;
}

// No script source at all: every message is text, and the page works without JavaScript.
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** The board as a Hono app; no sockets, timers or database connections of its own. */
export function createApp(deps: AppDeps): Hono {
  const { messages, config, log = silentLog, now = () => new Date(), isDraining = () => false } = deps;
  const clientOf = deps.clientAddress ?? clientAddress(config.trustProxyHops);
  const writeLimiter = createRateLimiter({ ratePerMin: config.postRatePerMin, burst: config.postBurst });
  const allowedOrigins = config.allowedOrigins.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const app = new Hono();

  app.use(requestLog(log, clientOf));
  app.use(async function securityHeaders(c, next) {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  app.use(bodyLimit({ maxSize: config.maxBodyBytes }));
  // Only the form can be posted cross-site: the API demands JSON and DELETE, which need a CORS preflight we never
  // grant. TLS usually ends at the load balancer, so the request URL says http:// while the browser's Origin says
  // https://: compare hosts, or the configured public origins.
  app.post('/', csrf({ origin: (origin, c) => allowedOrigins.includes(origin) || hostOf(origin) === c.req.header('host') }));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (isDraining()) return c.json({ status: 'draining' }, 503);
    await messages.ready();
    return c.json({ status: 'ok' });
  });
  app.route('/', pageRoutes({ messages, config, log, now, writeLimiter, clientOf }));
  app.route('/', apiRoutes({ messages, config, log, now, writeLimiter, clientOf }));

  app.notFound((c) => c.json({ message: 'not found' }, 404));
  app.onError((err, c) => {
    const e = toBoardError(err, config.maxBodyBytes);
    if (e.status >= 500) log({ level: 'error', msg: e.message, method: c.req.method, path: c.req.path, ...errorFields(err) });
    for (const [name, value] of Object.entries(e.headers)) c.header(name, value);
    // The page's own routes answer a person, everything else a program.
    return c.req.path === '/' ? c.html(errorPage(e.status, e.message), e.status) : c.json(errorBody(e), e.status);
  });
  return app;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
