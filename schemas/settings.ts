import type { z } from 'zod';

/**
 * Settings tables (services/api/config.ts, ingest/settings.ts): each entry is an environment variable, its zod
 * schema, its default as the environment would spell it, and what it does; the README's tables are checked
 * against them (scripts/docs/contracts.test.ts).
 */

export interface Setting {
  readonly schema: z.ZodType;
  readonly default: string | undefined;
  readonly doc: string;
}

export type SettingsOf<T extends Record<string, Setting>> = { [K in keyof T]: z.output<T[K]['schema']> };

/** Parses `table` from an environment, an empty value meaning the default; throws one error naming every bad variable. */
export function parseSettings<T extends Record<string, Setting>>(table: T, env: Record<string, string | undefined>): SettingsOf<T> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, s] of Object.entries(table)) {
    const raw = env[name] === undefined || env[name] === '' ? s.default : env[name];
    const parsed = s.schema.safeParse(raw);
    if (parsed.success) out[name] = parsed.data;
    else problems.push(`${name}=${JSON.stringify(raw)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  if (problems.length) throw new Error(`invalid settings:\n  ${problems.join('\n  ')}`);
  return out as SettingsOf<T>;
}
