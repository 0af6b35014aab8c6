/**
 * A CSV cell a spreadsheet will not run (OWASP, CSV Injection): text whose first character is `=`, `+`, `-`, `@`, a
 * tab or a carriage return is read by Excel, LibreOffice and Google Sheets as a formula, so it is written with a
 * leading `'`, which they show as text and drop from the cell's value. Text that is wholly a number (`-5`, `+1.5e3`)
 * or a UTC offset (`-07:00`, DataStream's `…TimeZone` fields) is left as it is: a spreadsheet reads it as the same
 * number or time, never as a call, and a DataStream client reading the CSV back gets the value it stored. Typed
 * numbers, dates and times never come here.
 *
 * The same rule in TypeScript (citations, messages) and in SQL (every CSV the API and ingest write with DuckDB: pages,
 * exports, dataset files, the rejects file), so the two cannot disagree; schemas/csv-cell.test.ts holds them equal.
 */

/** The first characters that make a cell a formula (OWASP). */
export const FORMULA_FIRST = ['=', '+', '-', '@', '\t', '\r'] as const;

/** Their code points, as DuckDB's `ascii()` gives a string's first one. */
const FORMULA_CODES = FORMULA_FIRST.map((ch) => ch.codePointAt(0)!);

/** A number or a UTC offset, written whole: what a spreadsheet reads as a value, never as a formula. */
const PLAIN_VALUE = '[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?|[+-][0-9]{2}:[0-9]{2}';
const PLAIN_VALUE_RE = new RegExp(`^(?:${PLAIN_VALUE})$`);

/** True when a spreadsheet would read `text` as a formula. */
export function isFormulaText(text: string): boolean {
  return text.length > 0 && (FORMULA_FIRST as readonly string[]).includes(text[0]!) && !PLAIN_VALUE_RE.test(text);
}

/**
 * The text as a CSV cell (or a line a spreadsheet may open) must carry it.
 * @example neutraliseCell('=HYPERLINK("http://x")') // "'=HYPERLINK(\"http://x\")"
 * @example neutraliseCell('-07:00') // '-07:00'
 */
export function neutraliseCell(text: string): string {
  return isFormulaText(text) ? `'${text}` : text;
}

/**
 * `neutraliseCell` in DuckDB SQL over a text expression (NULL stays NULL). `constant` quotes a SQL string constant
 * (each side's one sql.ts); `ascii()` reads the first code point without copying the string, so a cell that starts
 * with none of the characters costs one comparison.
 */
export function neutralisedCellSql(expr: string, constant: (text: string) => string): string {
  return `CASE WHEN ascii(${expr}) IN (${FORMULA_CODES.join(', ')}) AND NOT regexp_full_match(${expr}, ${constant(PLAIN_VALUE)}) THEN chr(39) || ${expr} ELSE ${expr} END`;
}
