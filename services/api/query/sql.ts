/**
 * The only place SQL text is escaped. Identifiers come from the catalogue and are still checked here, so a
 * catalogue typo can never become an injection; every value becomes a numbered parameter with an explicit cast.
 */
import type { BoundValue } from './plan.js';

export type SqlParam = string | number | bigint;

export interface CompiledQuery {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A quoted identifier; throws on anything that is not a plain catalogue name. */
export function ident(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a catalogue identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** `alias."column"`; aliases are the compiler's own one-letter names. */
export function column(alias: string, name: string): string {
  if (!/^[a-z]$/.test(alias)) throw new Error(`not a table alias: ${JSON.stringify(alias)}`);
  return `${alias}.${ident(name)}`;
}

/**
 * A SQL string constant of catalogue text (JSON keys, CSV headers, the regular expression of a plain CSV value in
 * schemas/csv-cell.ts). User text never comes here: it is bound. Only identifier-safe text plus the punctuation our
 * writers need is accepted, never a quote.
 */
export function constant(text: string): string {
  if (!/^[A-Za-z0-9_",:{}\[\] .+?|()*-]*$/.test(text)) throw new Error(`not a safe constant: ${JSON.stringify(text)}`);
  return `'${text}'`;
}

/**
 * A SQL string constant of text this program chose itself, where DuckDB takes no parameter: a named pipe's path
 * from our own pool (COPY … TO), a COPY option, a setting's value. Quotes are doubled; user text never comes
 * here (it is bound).
 */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Collects parameters in order; `bind` returns the placeholder with its cast. */
export class Params {
  readonly values: SqlParam[] = [];

  bind(v: BoundValue): string {
    this.values.push(v.value);
    return `CAST($${this.values.length} AS ${v.sqlType})`;
  }
}
