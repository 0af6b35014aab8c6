import { z } from 'zod';

/**
 * Every setting of the board, declared once: the environment variable, its default and what it means.
 * `loadConfig` reads them and `docs/board.md` lists them (a test checks the page names every one).
 */
const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().min(0);

export const SETTINGS = {
  port: { env: 'PORT', default: '8080', schema: port, doc: 'HTTP port; the board listens on all interfaces.' },
  dbService: {
    env: 'DB_SERVICE',
    default: '',
    schema: z.string(),
    doc: 'PostgreSQL host. Unset or empty: start embedded PGlite instead.',
  },
  dbPort: { env: 'DB_PORT', default: '5432', schema: port, doc: 'PostgreSQL port.' },
  dbName: { env: 'DB_NAME', default: 'postgres', schema: z.string().min(1), doc: 'Database name.' },
  dbUser: { env: 'DB_USER', default: 'postgres', schema: z.string().min(1), doc: 'Database user.' },
  dbPass: { env: 'DB_PASS', default: '', schema: z.string(), doc: 'Database password (never logged).' },
  dataDir: {
    env: 'BOARD_DATA_DIR',
    default: 'data/board',
    schema: z.string().min(1),
    doc: 'PGlite data directory when `DB_SERVICE` is unset.',
  },
  poolMax: {
    env: 'BOARD_POOL_MAX',
    default: '10',
    schema: positiveInt,
    doc: 'Pool size; with PGlite also the socket multiplexer\'s `maxConnections`.',
  },
  statementTimeoutMs: {
    env: 'BOARD_STATEMENT_TIMEOUT_MS',
    default: '5000',
    schema: nonNegativeInt,
    doc: 'PostgreSQL `statement_timeout` per statement (0 = off). PGlite ignores it.',
  },
  connectTimeoutMs: {
    env: 'BOARD_CONNECT_TIMEOUT_MS',
    default: '3000',
    schema: positiveInt,
    doc: 'How long a request waits for a database connection before answering 503.',
  },
  maxBodyBytes: {
    env: 'BOARD_MAX_BODY_BYTES',
    default: '16384',
    schema: positiveInt,
    doc: 'Largest accepted request body; larger ones get 413.',
  },
  postRatePerMin: {
    env: 'BOARD_POST_RATE_PER_MIN',
    default: '30',
    schema: positiveInt,
    doc: 'Sustained writes (POST and DELETE) per client address per minute.',
  },
  postBurst: {
    env: 'BOARD_POST_BURST',
    default: '10',
    schema: positiveInt,
    doc: 'Writes a client may make at once before the per-minute rate applies.',
  },
  trustProxyHops: {
    env: 'BOARD_TRUST_PROXY_HOPS',
    default: '0',
    schema: nonNegativeInt,
    doc: 'Proxies in front of the board whose `X-Forwarded-For` entry is trusted (1 behind one load balancer).',
  },
  allowedOrigins: {
    env: 'BOARD_ALLOWED_ORIGINS',
    default: '',
    schema: z.string(),
    doc: 'Comma-separated origins allowed to post the form (e.g. `https://board.example.org`); empty: same host.',
  },
  pageSize: {
    env: 'BOARD_PAGE_SIZE',
    default: '100',
    schema: positiveInt,
    doc: 'Messages shown per HTML page (older ones behind an "older" link).',
  },
  streamStallMs: {
    env: 'BOARD_STREAM_STALL_MS',
    default: '30000',
    schema: positiveInt,
    doc: 'A listing whose client reads nothing for this long is cut, freeing its cursor.',
  },
  shutdownTimeoutMs: {
    env: 'BOARD_SHUTDOWN_TIMEOUT_MS',
    default: '10000',
    schema: positiveInt,
    doc: 'On SIGTERM, how long in-flight requests may take before the process exits anyway.',
  },
} as const;

type Settings = typeof SETTINGS;
export type BoardConfig = { readonly [K in keyof Settings]: z.infer<Settings[K]['schema']> };

/** Reads every setting from `env`; throws one error naming each bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): BoardConfig {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, s] of Object.entries(SETTINGS)) {
    const raw = env[s.env];
    const parsed = s.schema.safeParse(raw === undefined || raw === '' ? s.default : raw);
    if (parsed.success) out[key] = parsed.data;
    else problems.push(`${s.env}=${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  if (problems.length > 0) throw new Error(`invalid board settings: ${problems.join('; ')}`);
  return out as BoardConfig;
}

/** The config with defaults, overridden field by field; what tests and scripts build apps from. */
export function configWith(overrides: Partial<BoardConfig> = {}): BoardConfig {
  return { ...loadConfig({}), ...overrides };
}

/** Connection details safe to log: everything but the password. */
export function describeDatabase(config: BoardConfig): string {
  return config.dbService === ''
    ? `embedded PGlite at ${config.dataDir}`
    : `postgresql://${config.dbUser}@${config.dbService}:${config.dbPort}/${config.dbName}`;
}
