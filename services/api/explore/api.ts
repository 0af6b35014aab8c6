/**
 * The page's only way to the data: GETs of the public API, as any client makes them (no key: the API's own
 * origin is listed in CORS_ORIGINS). The API lets one client have two requests in flight and a few per second,
 * so requests queue here two at a time (each until its body is read), and a 429 or 503 is retried after its Retry-After, then
 * reported: a 503 (the API has no query slot) a few times, a 429 (this page's own rate) for up to a minute. Every failure becomes an ApiProblem whose message is the API's own explanation.
 */
import { PATHS, PIN_PARAM, PUBLICATION_HEADER } from '../http/paths.js';

export { PIN_PARAM };

export const API_BASE = PATHS.odata;
const MAX_IN_FLIGHT = 2;
/** Tries after a 503: the API is busy with other clients, which may last. */
const BUSY_RETRIES = 3;
/**
 * How long a request waits out 429s: the page's own rate, which frees up as its other requests are served. Counted
 * in time, not tries: every waiting request is told the same Retry-After and only one wins each refill, so a request
 * queued behind several others lost three tries in a row and its panel stayed empty.
 */
const RATE_WAIT_MS = 60_000;

export class ApiProblem extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Told when a request waits for a retry, so the page can say why it is slow. */
export type RetryNotice = (status: number, seconds: number) => void;
let onRetry: RetryNotice = () => {};
export const setRetryNotice = (f: RetryNotice): void => void (onRetry = f);

let inFlight = 0;
const waiting: (() => void)[] = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => waiting.push(r));
  inFlight++;
  try {
    return await work();
  } finally {
    inFlight--;
    waiting.shift()?.();
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** The API's explanation of an error response: `message`, else the first error's detail. */
async function problemOf(res: Response): Promise<ApiProblem> {
  let text = `The API answered ${res.status} ${res.statusText}.`;
  try {
    const body = (await res.json()) as { message?: string | null; errors?: { detail?: string }[] };
    text = body.message ?? body.errors?.[0]?.detail ?? text;
  } catch {
    // Not the API's JSON error body (a proxy's page): the status line is all there is to say.
  }
  return new ApiProblem(res.status, `${res.status}: ${text}`);
}

let served: string | undefined;
/** The publication the API's last answer was read from (its Tributary-Publication header): what a pinned link names. */
export const servedPublication = (): string | undefined => served;

/** A GET of an API path (`/Observations?…`) or of a next link the API handed out. */
export async function apiGet(pathOrUrl: string, opts: { signal?: AbortSignal; accept?: string } = {}): Promise<Response> {
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${API_BASE}${pathOrUrl}`;
  let busyTries = 0;
  let rateWaitedMs = 0;
  for (;;) {
    let res: Response;
    try {
      res = await slot(async () => {
        const sent = await fetch(url, { headers: { Accept: opts.accept ?? 'application/json' }, signal: opts.signal });
        // The API counts a request in flight until its last byte is read: the place is held as long, or a third
        // request would start while a body still streams, and be refused (429).
        return new Response(await sent.arrayBuffer(), { status: sent.status, statusText: sent.statusText, headers: sent.headers });
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new ApiProblem(0, `The API could not be reached (${(err as Error).message}). Check the connection and try again.`);
    }
    if (res.ok) {
      served = res.headers.get(PUBLICATION_HEADER) ?? served;
      return res;
    }
    const seconds = Math.min(10, Math.max(0.5, Number(res.headers.get('Retry-After')) || 1));
    const retry = res.status === 503 ? busyTries++ < BUSY_RETRIES : res.status === 429 && (rateWaitedMs += seconds * 1000) <= RATE_WAIT_MS;
    if (retry) {
      await res.body?.cancel();
      onRetry(res.status, seconds);
      await sleep(seconds * 1000, opts.signal);
      continue;
    }
    throw await problemOf(res);
  }
}

export const getJson = async <T>(pathOrUrl: string, signal?: AbortSignal): Promise<T> => (await (await apiGet(pathOrUrl, { signal })).json()) as T;

export interface Page<T> {
  readonly value: T[];
  readonly '@odata.nextLink'?: string;
}

/** Every row, following next links, at most `maxPages` pages (a bound: the page never loops forever). */
export async function allRows<T>(path: string, signal?: AbortSignal, maxPages = 20): Promise<{ rows: T[]; complete: boolean }> {
  const rows: T[] = [];
  let next: string | undefined = path;
  for (let i = 0; next && i < maxPages; i++) {
    const page: Page<T> = await getJson<Page<T>>(next, signal);
    rows.push(...page.value);
    next = page['@odata.nextLink'];
  }
  return { rows, complete: next === undefined };
}

/** `?$a=1&$b=2` from options, dropping empty ones; `%20` for spaces, as the recipes send them. */
export function query(options: Record<string, string | undefined>): string {
  const parts = Object.entries(options)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
