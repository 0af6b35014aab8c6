/**
 * The data API's metrics, declared once: what each request adds when its body ends (middleware/observe.ts), what
 * the query gate adds (observe-gate.ts), and what is read at each scrape (the publication served and its age,
 * cursors open, the gate's queue, Redis). Every name starts with `tributary_`; docs/deployment.md lists them.
 */
import { publicationTime } from '../../../schemas/publication.js';
import type { MetricFamily } from '../../../schemas/prometheus-text.js';
import { EXPORT_FORMATS } from '../export-formats.js';
import { FORMATS } from '../formats.js';
import type { GateRefusal, QueryGate } from '../limits/query-gate.js';
import { metricRegistry } from './metric-registry.js';
import type { RouteFamily } from './route-family.js';

/** What one request did, as its observer saw it once the body ended. */
export interface ServedRequest {
  readonly family: RouteFamily;
  readonly method: string;
  readonly status: number;
  /** Content type of the response, when it had one. */
  readonly contentType: string | undefined;
  /** Bytes of the body handed to the socket (compressed, when it was). */
  readonly bytes: number;
  readonly seconds: number;
  /** The rows its handler said it carries (http/served-rows.ts). */
  readonly rows: number | undefined;
  /** `complete`: the body was sent whole; `cut`: it failed midway; `cancelled`: the client went away. */
  readonly outcome: 'complete' | 'cut' | 'cancelled';
  /** The refusal's reason when it was a 429 or 503 of the limits (see `refusal` in middleware/observe.ts). */
  readonly refusal: string | undefined;
}

/** Read at each scrape, from what main.ts holds. */
export interface ScrapeSources {
  /** The publication a request would be served now and the extract cursors its snapshot keeps open. */
  readonly served?: () => { readonly publication: string | undefined; readonly cursorsOpen: number };
  readonly queryGate?: QueryGate;
  /** Whether Redis answers (REDIS_URL); left out when there is no Redis. */
  readonly redisUp?: () => boolean;
  /** Seconds since the epoch; injected by tests. */
  readonly now?: () => number;
}

export interface ApiMetrics {
  started(family: RouteFamily): void;
  finished(request: ServedRequest): void;
  gateWaited(seconds: number): void;
  gateRefused(reason: GateRefusal): void;
  render(): string;
}

/** Seconds: a discovery document in milliseconds, a page in tens to hundreds, an export in minutes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800];
const GATE_WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

const FORMAT_BY_MEDIA_TYPE: ReadonlyMap<string, string> = new Map([
  ...Object.entries(EXPORT_FORMATS).map(([name, f]) => [f.mediaType, name] as const),
  ...Object.entries(FORMATS).map(([name, f]) => [f.mediaType, name] as const),
  // The docs page and `$metadata`.
  ['text/html', 'html'],
  ['application/xml', 'xml'],
]);

/**
 * The format label of a response: the API's format names (formats.ts, export-formats.ts), else `other`.
 * @example responseFormat('text/csv; charset=utf-8') // 'csv'
 */
export function responseFormat(contentType: string | undefined): string {
  if (!contentType) return 'none';
  return FORMAT_BY_MEDIA_TYPE.get(contentType.split(';')[0]!.trim().toLowerCase()) ?? 'other';
}

export function apiMetrics(sources: ScrapeSources = {}): ApiMetrics {
  const registry = metricRegistry();
  const requests = registry.counter('tributary_http_requests_total', 'Requests answered, by route family, method and status, counted when the body ended.', ['family', 'method', 'status']);
  const duration = registry.histogram('tributary_http_request_duration_seconds', 'Time from the request to the last byte of its body handed to the socket, by route family.', ['family'], LATENCY_BUCKETS);
  const inFlight = registry.gauge('tributary_http_requests_in_flight', 'Requests whose body is still being sent, by route family (family="export": whole-result exports streaming).', ['family']);
  const bytes = registry.counter('tributary_http_response_bytes_total', 'Body bytes handed to the socket (after compression), by route family and format; cut bodies count what was sent.', ['family', 'format']);
  const rows = registry.counter('tributary_rows_served_total', 'Rows of responses sent whole, by route family and format.', ['family', 'format']);
  const cut = registry.counter('tributary_http_responses_cut_total', 'Bodies that did not end whole: outcome="cut" failed midway (connection cut), "cancelled" the client went away.', ['family', 'outcome']);
  const refused = registry.counter('tributary_limit_refusals_total', 'Requests refused by a limit: limit="rate" the per-key token bucket (429), "concurrency" the per-key places, exports or query share (429), "busy" the query gate (503).', ['family', 'limit']);
  const gateWait = registry.histogram('tributary_query_gate_wait_seconds', 'Time a data request waited for a DuckDB query slot (MAX_CONCURRENT_QUERIES), whether it got one or not.', [], GATE_WAIT_BUCKETS);
  const gateRefused = registry.counter('tributary_query_gate_refusals_total', 'Requests the query gate gave no slot: queue_full, wait_timeout, client_share, keyless_share (calls without a key at their share of the queue), aborted (the client left while waiting).', ['reason']);
  const now = sources.now ?? (() => Date.now() / 1000);
  const startTime = now();
  registry.collect(() => scrapeFamilies(sources, now(), startTime));
  return {
    started: (family) => inFlight.inc({ family }),
    finished(r) {
      const format = responseFormat(r.contentType);
      inFlight.dec({ family: r.family });
      requests.inc({ family: r.family, method: r.method, status: String(r.status) });
      duration.observe({ family: r.family }, r.seconds);
      bytes.inc({ family: r.family, format }, r.bytes);
      if (r.outcome === 'complete' && r.rows !== undefined && r.status < 300) rows.inc({ family: r.family, format }, r.rows);
      if (r.outcome !== 'complete') cut.inc({ family: r.family, outcome: r.outcome });
      if (r.refusal) refused.inc({ family: r.family, limit: r.refusal });
    },
    gateWaited: (seconds) => gateWait.observe({}, seconds),
    gateRefused: (reason) => gateRefused.inc({ reason }),
    render: () => registry.render(),
  };
}

function scrapeFamilies(sources: ScrapeSources, now: number, startTime: number): MetricFamily[] {
  const families: MetricFamily[] = [{ name: 'tributary_api_start_time_seconds', help: 'When this API process started, in seconds since the epoch.', type: 'gauge', samples: [{ value: startTime }] }];
  const served = sources.served?.();
  if (served) {
    families.push({ name: 'tributary_extract_cursors_open', help: 'Extract cursors open for clients following next links (CURSOR_CACHE_SIZE at most, besides those being read).', type: 'gauge', samples: [{ value: served.cursorsOpen }] });
    if (served.publication) {
      families.push({ name: 'tributary_publication_info', help: 'The publication new requests are served from (value 1).', type: 'gauge', samples: [{ labels: { publication: served.publication }, value: 1 }] });
      const made = madeAt(served.publication);
      if (made !== undefined) families.push({ name: 'tributary_publication_age_seconds', help: 'Seconds since the publication served was made (its id\'s time).', type: 'gauge', samples: [{ value: Math.max(0, now - made) }] });
    }
  }
  const gate = sources.queryGate;
  if (gate) {
    families.push({
      name: 'tributary_query_gate_slots',
      help: 'The query gate now: state="running" slots held by working queries, "waiting" requests queued for one, "parked" responses waiting on their clients.',
      type: 'gauge',
      samples: [
        { labels: { state: 'running' }, value: gate.running },
        { labels: { state: 'waiting' }, value: gate.waiting },
        { labels: { state: 'parked' }, value: gate.parked },
      ],
    });
  }
  if (sources.redisUp) families.push({ name: 'tributary_redis_up', help: 'Whether Redis (REDIS_URL) is reachable now: 1 limits are shared, 0 each replica limits alone.', type: 'gauge', samples: [{ value: sources.redisUp() ? 1 : 0 }] });
  return families;
}

/** Seconds since the epoch of a publication id's stamp; undefined for a file published before ids had one. */
function madeAt(publication: string): number | undefined {
  try {
    return publicationTime(publication).getTime() / 1000;
  } catch {
    return undefined;
  }
}
