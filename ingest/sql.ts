/**
 * The only escaping in ingest. Identifiers come from the catalogue (never from a CSV header: header names are
 * mapped to catalogue columns first); user values go through bound parameters. `literal` exists for the few
 * places DuckDB accepts no parameter: ATTACH paths, and constant patterns/settings written by this code.
 */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function literal(value: string): string {
  if (value.includes('\0')) throw new Error('NUL byte in SQL literal');
  return `'${value.replaceAll("'", "''")}'`;
}

/** `$1, $2, …` for n parameters starting at `from`. */
export function placeholders(n: number, from = 1): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}
