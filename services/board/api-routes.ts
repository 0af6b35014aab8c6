import { Hono, type Context } from 'hono';
import { BoardError, methodNotAllowed, notFound } from './errors.js';
import { jsonArrayStream } from './json-array-stream.js';
import { errorFields } from './log.js';
import { checkText } from './message-text.js';
import { parseId, parseListQuery, readBody } from './request-input.js';
import type { RouteDeps } from './route-deps.js';

/** `/api/message` and `/api/message/{id}`: JSON in, JSON out. */
export function apiRoutes(deps: RouteDeps): Hono {
  const { messages, config, log, now, writeLimiter, clientOf } = deps;
  const api = new Hono();

  const takeWriteToken = (c: Context): void => {
    const t = writeLimiter.take(clientOf(c));
    if (!t.ok) {
      throw new BoardError(429, `too many writes; retry in ${t.retryAfterSeconds} s`, {
        'Retry-After': String(t.retryAfterSeconds),
      });
    }
  };

  api.get('/api/message', async (c) => {
    const query = parseListQuery(c.req.queries());
    // Hono answers HEAD with the GET handler and drops the body unread: a cursor opened here would never close.
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'application/json; charset=utf-8' });
    const listing = await messages.list(query);
    const body = jsonArrayStream(listing, {
      stallMs: config.streamStallMs,
      abort: () => abortConnection(c),
      onError: (err) => log({ level: 'warn', msg: 'listing cut', path: c.req.path, ...errorFields(err) }),
    });
    return c.body(body, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  api.post('/api/message', async (c) => {
    takeWriteToken(c);
    // Requiring JSON also shuts out cross-site forms: browsers cannot send it cross-origin without a preflight.
    if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
      throw new BoardError(415, 'send Content-Type: application/json with a body like {"text": "..."}');
    }
    const body: unknown = await readBody(c, () => c.req.json(), 'the body is not valid JSON');
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !('text' in body)) {
      throw new BoardError(400, 'the body must be a JSON object like {"text": "..."}');
    }
    const check = checkText(body.text);
    if (!check.ok) throw new BoardError(400, check.problem);
    const message = await messages.create(check.text, now().toISOString());
    return c.json(message, 201, { Location: `/api/message/${message.id}` });
  });

  api.all('/api/message', () => {
    throw methodNotAllowed(['GET', 'HEAD', 'POST']);
  });

  api.get('/api/message/:id', async (c) => {
    const id = parseId(c.req.param('id'));
    const message = await messages.get(id);
    if (!message) throw notFound(`message ${id}`);
    return c.json(message);
  });

  api.delete('/api/message/:id', async (c) => {
    takeWriteToken(c);
    const id = parseId(c.req.param('id'));
    const message = await messages.remove(id);
    if (!message) throw notFound(`message ${id}`);
    return c.json(message);
  });

  api.all('/api/message/:id', () => {
    throw methodNotAllowed(['GET', 'HEAD', 'DELETE']);
  });

  return api;
}

/** Destroys the socket under a response already under way; false under app.request(), which has none. */
function abortConnection(c: Context): boolean {
  const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing;
  if (!outgoing) return false;
  outgoing.destroy();
  return true;
}
