import type { Context } from 'hono';
import type { BoardConfig } from './config.js';
import type { Log } from './log.js';
import type { Messages } from './messages.js';
import type { RateLimiter } from './rate-limit.js';

/** What the route modules share, resolved once by createApp. */
export interface RouteDeps {
  readonly messages: Messages;
  readonly config: BoardConfig;
  readonly log: Log;
  readonly now: () => Date;
  /** One bucket per client for every write, whether it came from the form or the API. */
  readonly writeLimiter: RateLimiter;
  readonly clientOf: (c: Context) => string;
}
