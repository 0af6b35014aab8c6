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
 * (each side's one sql.ts). `ascii()` reads the first code point without copying the string, so a cell that starts
 * with none of the characters costs one comparison. No regular expression: each `regexp_full_match` of a CSV line's
 * thirty-odd text columns holds a compiled RE2 program against the query's memory limit, which took a single-threaded
 * export's whole pool; a number is instead the characters of one (digits, `.`, `e`, signs) that DuckDB casts to a
 * DOUBLE, and an offset `±hh:mm` four digits around a colon.
 */
export function neutralisedCellSql(expr: string, constant: (text: string) => string): string {
  const [sign, always] = [FORMULA_CODES.filter((c) => c === 43 || c === 45), FORMULA_CODES.filter((c) => c !== 43 && c !== 45)];
  const number = `(translate(${expr}[2:], ${constant('0123456789.eE+-')}, '') = '' AND TRY_CAST(${expr} AS DOUBLE) IS NOT NULL)`;
  const digits = `${expr}[2:3] || ${expr}[5:6]`;
  const offset = `(length(${expr}) = 6 AND ${expr}[4:4] = ':' AND length(${digits}) = 4 AND translate(${digits}, ${constant('0123456789')}, '') = '')`;
  const formula = `ascii(${expr}) IN (${always.join(', ')}) OR (ascii(${expr}) IN (${sign.join(', ')}) AND NOT ${number} AND NOT ${offset})`;
  return `CASE WHEN ${formula} THEN chr(39) || ${expr} ELSE ${expr} END`;
}
