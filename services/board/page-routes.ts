import { Hono, type Context } from 'hono';
import { BOARD_CSS, boardPage } from './html.js';
import { methodNotAllowed } from './errors.js';
import { checkText } from './message-text.js';
import { parseId, readBody } from './request-input.js';
import type { RouteDeps } from './route-deps.js';

/** `/`: the page and its form (post/redirect/get), plus the stylesheet the page needs. */
export function pageRoutes(deps: RouteDeps): Hono {
  const { messages, config, now, writeLimiter, clientOf } = deps;
  const page = new Hono();

  const render = async (c: Context, status: 200 | 400 | 429, extra: { problem?: string; text?: string } = {}) => {
    const beforeRaw = c.req.method === 'GET' ? c.req.query('before') : undefined;
    const before = beforeRaw === undefined ? undefined : parseId(beforeRaw, 'before');
    // One row more than shown tells whether an older page exists, without counting.
    const rows = await messages.latest({ limit: config.pageSize + 1, ...(before === undefined ? {} : { before }) });
    const shown = rows.slice(0, config.pageSize);
    const olderBefore = rows.length > config.pageSize ? shown[shown.length - 1]?.id : undefined;
    return c.html(boardPage({ messages: shown, ...extra, ...(olderBefore === undefined ? {} : { olderBefore }) }), status);
  };

  page.get('/', (c) => render(c, 200));

  page.post('/', async (c) => {
    const form = await readBody(c, () => c.req.parseBody(), 'malformed form body');
    const typed = typeof form.text === 'string' ? form.text : '';
    const t = writeLimiter.take(clientOf(c));
    if (!t.ok) {
      c.header('Retry-After', String(t.retryAfterSeconds));
      return render(c, 429, { problem: `Too many posts from your address; try again in ${t.retryAfterSeconds} s.`, text: typed });
    }
    const check = checkText(typed);
    if (!check.ok) return render(c, 400, { problem: `Not posted: ${check.problem}.`, text: typed });
    await messages.create(check.text, now().toISOString());
    // 303 turns the reload of the result into a GET, so reloading never posts twice.
    return c.redirect('/', 303);
  });

  page.all('/', () => {
    throw methodNotAllowed(['GET', 'HEAD', 'POST']);
  });

  page.get('/board.css', (c) =>
    c.body(BOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
  );

  return page;
}
