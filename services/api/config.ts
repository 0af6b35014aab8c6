/**
 * Settings of the data API, read once from the environment. Declared as one table so the README's list and
 * the validation cannot drift apart: each entry is the variable, its default and what it does.
 */
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

export const apiSettings = {
  API_PORT: { schema: int(0, 65535), default: '3000', doc: 'TCP port of the data API (all interfaces).' },
  API_HOST: { schema: z.string(), default: '0.0.0.0', doc: 'Interface to listen on.' },
  DUCKDB_PATH: { schema: z.string().min(1), default: 'data/tributary.duckdb', doc: 'The published DuckDB file, opened read-only; a newly published file is picked up without a restart.' },
  PUBLIC_BASE_URL: { schema: z.string().url().optional(), default: undefined, doc: 'Base of absolute links (`@odata.nextLink`, `Link`), e.g. https://api.example.org. When unset, links use the request (or the proxy headers when TRUST_PROXY=1).' },
  TRUST_PROXY: { schema: flag, default: '0', doc: 'Trust X-Forwarded-Proto/X-Forwarded-Host/X-Forwarded-For from the load balancer.' },
  DUCKDB_THREADS: { schema: int(1, 64).optional(), default: undefined, doc: 'DuckDB worker threads (default: DuckDB chooses, one per core).' },
  DUCKDB_MEMORY_LIMIT: { schema: z.string().optional(), default: undefined, doc: "DuckDB memory limit, e.g. '1GB' (default: DuckDB's)." },
} as const;

type Settings = typeof apiSettings;
export type ApiConfig = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

/** Parses the settings from an environment; throws one error naming every bad variable. */
export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, s] of Object.entries(apiSettings)) {
    const raw = env[name] === undefined || env[name] === '' ? s.default : env[name];
    const parsed = (s.schema as z.ZodType).safeParse(raw);
    if (parsed.success) out[name] = parsed.data;
    else problems.push(`${name}=${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  if (problems.length) throw new Error(`invalid settings:\n  ${problems.join('\n  ')}`);
  return out as ApiConfig;
}
