/**
 * Settings of the data API, read once from the environment. Declared as one table so docs/configuration.md's list and
 * the validation cannot drift apart: each entry is the variable, its default and what it does.
 */
import { z } from 'zod';
import { parseSettings, type SettingsOf } from '../../schemas/settings.js';
import { DEFAULT_APPLY_ROWS_READ_PER_ROW } from './limits/apply-cost.js';
import { DEFAULT_MAX_APPLY_GROUPS } from './query/apply-limits.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
/** TRUST_PROXY: a number of hops, or a flag (true is one). */
const hops = z.union([z.enum(['true', 'false']).transform((v) => (v === 'true' ? 1 : 0)), z.coerce.number().int().min(0).max(16)]);
const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
/** An origin as browsers send it: scheme, host and optional port, nothing else. */
const origins = list.pipe(z.array(z.string().regex(/^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'expected origins like https://app.example.org')));

export const apiSettings = {
  API_PORT: { schema: int(0, 65535), default: '3000', doc: 'TCP port of the data API (all interfaces).' },
  API_HOST: { schema: z.string(), default: '0.0.0.0', doc: 'Interface to listen on.' },
  DUCKDB_PATH: { schema: z.string().min(1), default: 'data/tributary.duckdb', doc: 'The published DuckDB file, opened read-only; a newly published file is picked up without a restart.' },
  PUBLIC_BASE_URL: { schema: z.string().url().optional(), default: undefined, doc: 'Base of every absolute URL the API hands out (`@odata.nextLink`, `Link`, `@odata.context`, the service document, OpenAPI, the docs page), e.g. https://api.example.org. When unset, the request (or the proxy headers when TRUST_PROXY=1).' },
  TRUST_PROXY: { schema: hops, default: '0', doc: 'Proxies in front whose forwarding headers are trusted (0 none; 1 or true one load balancer; N a chain): the client address is the right-most untrusted X-Forwarded-For entry, and links without PUBLIC_BASE_URL come from `Forwarded` (RFC 7239), else X-Forwarded-Proto/Host/Port, read the same way. The proxy must overwrite these headers (scripts/ops/replicas/haproxy.cfg does).' },
  DUCKDB_THREADS: { schema: int(1, 64).optional(), default: undefined, doc: 'DuckDB worker threads (default: DuckDB chooses, one per core).' },
  DUCKDB_MEMORY_LIMIT: { schema: z.string().optional(), default: undefined, doc: "DuckDB memory limit, e.g. '1GB' (default: DuckDB's)." },
  API_KEYS: { schema: list, default: '', doc: 'Plain API keys accepted as they are, comma-separated: for development and tests (production issues keys into API_KEYS_FILE).' },
  API_KEYS_FILE: { schema: z.string().min(1), default: 'data/api-keys.json', doc: 'JSON file of issued keys (SHA-256 hashes, owner, creation and revocation times), written by `make key-issue`/`key-revoke` and reloaded when it changes.' },
  API_KEYS_REQUIRED: { schema: flag, default: '0', doc: 'Refuse to start when no key source exists (no API_KEYS and no API_KEYS_FILE). Set it in production; with 0 a fresh checkout runs open, with a warning.' },
  CORS_ORIGINS: { schema: origins, default: '', doc: 'Web origins allowed to call the API from a browser, comma-separated (e.g. https://app.example.org); their requests may omit the key, and then count per address at BROWSER_PAGE_ROWS_PER_SECOND, with no whole-result export or dataset file.' },
  PAGE_ROWS_PER_SECOND: { schema: z.coerce.number().positive(), default: '20000', doc: 'Sustained rows per second per key (per address when no keys are configured) of pages, counts, `$apply`, OGC items and citations: a page costs the rows it returns, an `$apply` the rows it reads (APPLY_ROWS_READ_PER_ROW), each at least PAGE_MIN_ROWS, so 1,000-row pages go ten times as often as 10,000-row ones. The DataStream contract (2 requests/s of up to 10,000 rows) fits within it.' },
  PAGE_ROWS_BURST: { schema: int(1, Number.MAX_SAFE_INTEGER), default: '40000', doc: 'Token-bucket size of the pages\' rows: rows a client may take at once before PAGE_ROWS_PER_SECOND applies.' },
  PAGE_MIN_ROWS: { schema: int(1, 1_000_000_000), default: '500', doc: 'What a request of the pages\' budget costs at least, in rows (a count, an empty or tiny page, a citation, an export), so tiny pages cannot flood: at most PAGE_ROWS_PER_SECOND / PAGE_MIN_ROWS requests per second.' },
  BROWSER_PAGE_ROWS_PER_SECOND: { schema: z.coerce.number().positive(), default: '10000', doc: 'While keys are required: sustained rows per second of the keyless browser calls (CORS_ORIGINS) from one address, each address its own bucket (each request at least PAGE_MIN_ROWS).' },
  BROWSER_PAGE_ROWS_BURST: { schema: int(1, Number.MAX_SAFE_INTEGER), default: '40000', doc: 'Token-bucket size of each address\'s keyless browser calls, in rows.' },
  RATE_LIMIT_MAX_WAIT_MS: { schema: int(0, 60_000), default: '2000', doc: 'A request over its budget (pages, discovery documents, dataset files\' bytes) that would fit within this long is held back until it fits instead of refused, so clients that page without pausing (GDAL, QGIS, R sf) are slowed to the rate, not failed; a longer wait is 429 with Retry-After (0: always refuse).' },
  DISCOVERY_RATE_LIMIT_RPS: { schema: z.coerce.number().positive(), default: '10', doc: 'Sustained requests per second per key (or address) of discovery documents (landing pages, conformance, collections, queryables, `$metadata`, OpenAPI, the downloads index, manifest and feed), a budget apart from the pages\' so a client\'s first steps never spend it.' },
  DISCOVERY_RATE_LIMIT_BURST: { schema: int(1, 1_000_000_000), default: '60', doc: 'Token-bucket size of the discovery documents\' budget.' },
  FILE_BYTES_PER_SECOND: { schema: int(1024, Number.MAX_SAFE_INTEGER), default: String(64 * 1024 * 1024), doc: 'Bytes per second of dataset files (`/v1/downloads/files/…`: whole, ranges, HEAD) per key (or address), in place of the request rate: each response costs its Content-Length (at least 16 KiB).' },
  FILE_BYTES_BURST: { schema: int(1024, Number.MAX_SAFE_INTEGER), default: String(512 * 1024 * 1024), doc: 'Bytes of dataset files a client may take at once before FILE_BYTES_PER_SECOND applies; a larger file is sent once the bucket is full and leaves it in debt.' },
  MAX_CONCURRENT_FILE_READS: { schema: int(1, 100_000), default: '32', doc: 'Requests for dataset files one client may have in flight (engines such as polars and DuckDB read ranges in parallel); more get 429. A whole file (GET without Range) also holds one of MAX_CONCURRENT_EXPORTS.' },
  MAX_CONCURRENT_PER_KEY: { schema: int(1, 100_000), default: '2', doc: 'Requests one client may have in flight at once (responses still streaming count); more get 429.' },
  MAX_CONCURRENT_QUERIES: { schema: int(1, 1024), default: '8', doc: 'DuckDB queries running at once across all clients; a response waiting on its client parks its slot for another query (up to MAX_PARKED_RESPONSES), and one client holds at most a quarter of the slots (at least one), working or parked. An export holds a libuv worker thread while its client reads, so UV_THREADPOOL_SIZE defaults to this + MAX_PARKED_RESPONSES + CURSOR_CACHE_SIZE + 4.' },
  MAX_PARKED_RESPONSES: { schema: int(1, 4096).optional(), default: undefined, doc: 'Responses waiting on their clients that may give their query slot back (park) at once; beyond it a waiting response keeps its slot. Default four times MAX_CONCURRENT_QUERIES, more than the clients that fit in the slots\' shares can stall. Each may hold a libuv thread (UV_THREADPOOL_SIZE counts them).' },
  CURSOR_CACHE_SIZE: { schema: int(0, 1024), default: '4', doc: 'Extract cursors kept open between the requests of clients following next links (0: none). Each holds a read-ahead of up to 16 MiB and, when that is full, a libuv worker thread, so UV_THREADPOOL_SIZE defaults to MAX_CONCURRENT_QUERIES + MAX_PARKED_RESPONSES + this + 4.' },
  CURSOR_IDLE_MS: { schema: int(1, 3_600_000), default: '15000', doc: 'How long an extract cursor waits for its next page request before it is closed.' },
  QUERY_QUEUE: { schema: int(0, 100_000), default: '64', doc: 'Requests that may wait for a query slot; beyond it, or after QUERY_TIMEOUT_MS of waiting, 503 with Retry-After.' },
  QUERY_TIMEOUT_MS: { schema: int(1, 3_600_000), default: '30000', doc: 'A query that has not produced its first row by then is interrupted in DuckDB and answered 504.' },
  STREAM_STALL_MS: { schema: int(1000, 3_600_000), default: '60000', doc: 'A response (page, export, file) whose client takes nothing of it for this long is cut, freeing its query slot and its place per key; a client taking at least a chunk (up to 64 KiB) per this long is never cut.' },
  PAGE_STALL_MS: { schema: int(1000, 3_600_000), default: '15000', doc: 'STREAM_STALL_MS for pages (pages, counts, OGC items, citations: a route whose deadline is its first row), when shorter: a page is read at once, so a client that takes nothing of it for this long is cut, and stalled pages hold their places for less. Exports and dataset files keep STREAM_STALL_MS.' },
  MAX_CONCURRENT_EXPORTS: { schema: int(1, 100_000), default: '1', doc: 'Whole-result exports (`/v1/export/…`) one client may run at once; one more gets 429 with Retry-After. An export also holds one of MAX_CONCURRENT_PER_KEY and one of MAX_CONCURRENT_QUERIES while it streams.' },
  EXPORT_TIMEOUT_MS: { schema: int(1000, 86_400_000), default: String(60 * 60 * 1000), doc: 'A whole-result export still streaming after this long is interrupted and its connection cut (the client sees an incomplete transfer); one that has not started by then is answered 504.' },
  MAX_PAGE_BYTES: { schema: int(1024, Number.MAX_SAFE_INTEGER), default: String(64 * 1024 * 1024), doc: 'Pages estimated larger than this (rows × average width of the selected fields) are refused with 413 before any byte is sent.' },
  MAX_APPLY_GROUPS: { schema: int(1, 1_000_000_000), default: String(DEFAULT_MAX_APPLY_GROUPS), doc: 'An `$apply` estimated to make more groups than this is refused with 400 `apply_too_large` before it runs: the estimate is the product of each grouped field\'s number of values (measured once per publication; a field the filter pins counts its values), capped by the rows the request reads. The message names the estimate, the limit and the remedies (filter, fewer fields).' },
  APPLY_ROWS_READ_PER_ROW: { schema: int(1, 1_000_000_000), default: String(DEFAULT_APPLY_ROWS_READ_PER_ROW), doc: 'An `$apply` costs the pages\' budget the rows it reads (its table\'s rows under its filter: the observations, or a statistics table) divided by this, and at least the groups it returns and PAGE_MIN_ROWS: a median over ten million observations costs 10,000 rows at the default.' },
  MAX_BODY_BYTES: { schema: int(1024, 64 * 1024 * 1024), default: String(1024 * 1024), doc: 'Largest body of a query sent by POST (OData `…/{resource}/$query`, OGC items with CQL2-JSON); larger bodies get 413.' },
  BODY_TIMEOUT_MS: { schema: int(100, 600_000), default: '10000', doc: 'A body POSTed (a query to `…/$query` or OGC items, a message to `/mcp`) must have arrived whole within this long, else 408; it is read before the request takes a query slot or a place per client.' },
  BODY_MIN_BYTES_PER_SECOND: { schema: int(1, 1024 * 1024 * 1024), default: '4096', doc: 'After its first second, a POSTed body (query or MCP message) arriving slower than this on average is refused with 408, so a client trickling bytes holds a socket for a second or two, not a query.' },
  MAX_URL_BYTES: { schema: int(256, 60 * 1024), default: String(16 * 1024), doc: 'Longer request targets (path and query) get 414.' },
  SHUTDOWN_DELAY_MS: { schema: int(0, 600_000), default: '0', doc: 'On SIGTERM, how long to keep serving new requests while /readyz answers 503, so a load balancer takes the replica out of rotation before it stops accepting (a little more than its health-check interval × fall count).' },
  METRICS_PORT: { schema: int(0, 65535).optional(), default: undefined, doc: 'TCP port of the Prometheus metrics (`GET /metrics`, docs/deployment.md), on METRICS_HOST; never served on API_PORT (0: any free port, logged). Unset: no metrics endpoint.' },
  METRICS_HOST: { schema: z.string().min(1), default: '127.0.0.1', doc: 'Interface of the metrics port: loopback by default; 0.0.0.0 for a Prometheus in another container or host (keep the port off the public proxy).' },
  ACCESS_LOG: { schema: z.enum(['on', 'off', '1', '0', 'true', 'false']).transform((v) => v === 'on' || v === '1' || v === 'true'), default: 'on', doc: 'One JSON line per request on stdout (request id, key id, method, path, status, bytes, duration, Server-Timing stages, publication); `off` for none.' },
  ACCESS_LOG_SAMPLE: { schema: z.coerce.number().min(0).max(1), default: '1', doc: 'Share of requests the access log writes, 0 to 1 (e.g. 0.1: one in ten, drawn at random); 5xx answers and bodies not sent whole are always written.' },
  REDIS_URL: { schema: z.string().regex(/^rediss?:\/\//, 'expected redis://host:port or rediss://…').optional(), default: undefined, doc: 'Redis shared by the replicas of one service: rate and concurrency limits per key and the issued keys live there (unset: in this process and API_KEYS_FILE).' },
  REDIS_PREFIX: { schema: z.string().min(1), default: 'tributary:', doc: 'Prefix of every Redis key the API and `make key-*` use (one service per prefix).' },
  REDIS_TIMEOUT_MS: { schema: int(10, 60_000), default: '250', doc: 'A Redis command not answered by then fails; the request is then limited by this replica alone.' },
  PUBLICATION_STORE: { schema: z.string().min(1).optional(), default: undefined, doc: 'Directory of immutable publications shared by the replicas (docs/deployment.md): `make ingest` publishes into it, the API serves the one named by its CURRENT file and follows it without a restart. Unset: the API serves DUCKDB_PATH.' },
  PUBLICATION_RETENTION_MS: { schema: int(0, 30 * 86_400_000), default: String(60 * 60 * 1000), doc: 'How long a publication stays readable after a newer one replaces it (the three newest always are): next links and `publication=` URLs naming it are answered from it until then, and 410 after. Ingest keeps the store\'s publications (and a plain file\'s dataset files) as long, so set both alike.' },
  EXPLORE_ASSETS_DIR: { schema: z.string().min(1), default: 'node_modules/.cache/tributary/explore', doc: 'Folder of the explorer page\'s built assets (script, styles, province boundaries), written by `make build` / `npm run build`.' },
  EXPLORE_TILE_URL: { schema: z.string().regex(/^https?:\/\/[^\s]+\{z\}[^\s]*$/, 'expected a tile URL template like https://tiles.example.org/{z}/{x}/{y}.png').optional(), default: undefined, doc: 'Raster tile URL template drawn below the boundaries on the explorer\'s map, e.g. https://tiles.example.org/{z}/{x}/{y}.png (default: none; the map draws provinces and regions as vectors).' },
  EXPLORE_TILE_ATTRIBUTION: { schema: z.string().optional(), default: undefined, doc: 'Attribution text shown with EXPLORE_TILE_URL\'s tiles, as their licence asks.' },
  REGIONS_FILE: { schema: z.string().min(1).optional(), default: undefined, doc: 'The regions ingest used (REGIONS_FILE: files and folders of sets, comma-separated); the regions collection lists them and the explorer draws them.' },
  SHUTDOWN_GRACE_MS: { schema: int(0, 3_600_000), default: '10000', doc: 'On SIGTERM, how long in-flight responses may take to finish before their connections are closed.' },
} as const;

export type ApiConfig = SettingsOf<typeof apiSettings>;

/** Parses the settings from an environment; throws one error naming every bad variable. */
export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  return parseSettings(apiSettings, env);
}
