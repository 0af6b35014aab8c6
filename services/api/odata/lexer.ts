/**
 * Tokeniser shared by `$filter` and `$apply`.
 *
 * One left-to-right pass over this file's rules (scan-tokens.ts, the skeleton CQL2's
 * lexer shares); each token is matched by a sticky (`y`) regex or a character test at
 * the current position, and none of them can backtrack, so lexing is linear in the
 * input. Keywords (`eq`, `and`, `true`, …) are plain identifiers here: the
 * parser decides, because `in` or `not` is only a keyword in some places.
 */
import { ODataError } from './odata-error.js';
import { blank, matchAt, scanTokens, type LexRule } from './scan-tokens.js';

export type Punctuation = '(' | ')' | ',' | '/';

export type Token =
  | { readonly kind: 'identifier'; readonly text: string; readonly offset: number }
  /** `$`-prefixed name such as `$count` (only meaningful in `$apply`). */
  | { readonly kind: 'system'; readonly text: string; readonly offset: number }
  | { readonly kind: 'string'; readonly value: string; readonly offset: number }
  | { readonly kind: 'number'; readonly text: string; readonly offset: number }
  | { readonly kind: 'date'; readonly text: string; readonly offset: number }
  | { readonly kind: 'datetime'; readonly text: string; readonly offset: number }
  | { readonly kind: 'punct'; readonly text: Punctuation; readonly offset: number }
  | { readonly kind: 'end'; readonly offset: number };

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const GEO_FUNCTION = /geo\.[A-Za-z]+/y;
// OData's identifierCharacter includes `_` (Tributary.km_median).
const CUSTOM_METHOD = /Tributary\.[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const DATE = /([0-9]{4})-([0-9]{2})-([0-9]{2})/y;
// OData dateTimeOffset: seconds and fraction optional, zone mandatory.
const TIME = /T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]{1,12})?)?/y;
const ZONE = /Z|[+-]([0-9]{2}):([0-9]{2})/y;
const IDENTIFIER_CHAR = /[A-Za-z0-9_.]/;
const WHITESPACE = ' \t\r\n';
const PUNCTUATION = '(),/';

type Scanned = Exclude<Token, { kind: 'end' }>;

// Tried in order at each position; an identifier is the last resort, and where none reads the character is unexpected.
const RULES: readonly LexRule<Scanned>[] = [
  blank(WHITESPACE),
  (text, pos) => (PUNCTUATION.includes(text[pos] ?? '') ? { token: { kind: 'punct', text: text[pos] as Punctuation, offset: pos }, end: pos + 1 } : undefined),
  (text, pos, parameter) => {
    if (text[pos] !== "'") return undefined;
    const { value, end } = readString(text, pos, parameter);
    return { token: { kind: 'string', value, offset: pos }, end };
  },
  (text, pos, parameter) => {
    const ch = text[pos] ?? '';
    if (ch !== '-' && !(ch >= '0' && ch <= '9')) return undefined;
    const token = readNumberOrDate(text, pos, parameter);
    return { token, end: pos + token.text.length };
  },
  (text, pos) => {
    const name = text[pos] === '$' ? matchAt(IDENTIFIER, text, pos + 1) : undefined;
    return name === undefined ? undefined : { token: { kind: 'system', text: `$${name}`, offset: pos }, end: pos + name.length + 1 };
  },
  // OData's geo functions are namespaced (`geo.intersects`), as are our custom aggregation methods
  // (`Tributary.median`): one identifier each, so no other name gains a dot.
  (text, pos) => {
    const rule = text.startsWith('geo.', pos) ? GEO_FUNCTION : text.startsWith('Tributary.', pos) ? CUSTOM_METHOD : undefined;
    const name = rule ? matchAt(rule, text, pos) : undefined;
    return name === undefined ? undefined : { token: { kind: 'identifier', text: name, offset: pos }, end: pos + name.length };
  },
  (text, pos) => {
    const name = matchAt(IDENTIFIER, text, pos);
    return name === undefined ? undefined : { token: { kind: 'identifier', text: name, offset: pos }, end: pos + name.length };
  },
];

/**
 * Split expression text into tokens, ending with one `end` token.
 *
 * @example
 * tokenize("Year ge -5", '$filter').map((t) => t.kind)
 * // → ['identifier', 'identifier', 'number', 'end']
 */
export function tokenize(text: string, parameter: string): Token[] {
  return scanTokens(text, parameter, RULES, unexpectedCharacter);
}

function readString(text: string, start: number, parameter: string): { value: string; end: number } {
  let value = '';
  let pos = start + 1;
  for (;;) {
    const quote = text.indexOf("'", pos);
    if (quote === -1) {
      throw new ODataError('invalid_filter', `Unterminated text starting at position ${start} of ${parameter}: end it with ' and write a quote inside text as '' (e.g. 'O''Brien').`, { parameter, offset: start });
    }
    value += text.slice(pos, quote);
    // OData escapes a quote inside a string by doubling it.
    if (text[quote + 1] === "'") {
      value += "'";
      pos = quote + 2;
    } else {
      return { value, end: quote + 1 };
    }
  }
}

type NumericToken = Extract<Token, { kind: 'number' | 'date' | 'datetime' }>;

function readNumberOrDate(text: string, start: number, parameter: string): NumericToken {
  DATE.lastIndex = start;
  const date = DATE.exec(text);
  if (date !== null) return readDateTime(text, start, date, parameter);
  const number = matchAt(NUMBER, text, start);
  if (number === undefined) {
    throw new ODataError('invalid_filter', `Unexpected '-' at position ${start} of ${parameter}: '-' is only allowed as the sign of a number (e.g. -102.5); arithmetic is not supported.`, { parameter, offset: start });
  }
  const after = text[start + number.length];
  if (after !== undefined && IDENTIFIER_CHAR.test(after)) {
    throw new ODataError('invalid_filter', `Invalid number at position ${start} of ${parameter}: write numbers like 42, -0.5 or 1.5e3, dates like 2020-01-31, and quote text ('${number}${after}…').`, { parameter, offset: start });
  }
  return { kind: 'number', text: number, offset: start };
}

function readDateTime(text: string, start: number, date: RegExpExecArray, parameter: string): NumericToken {
  const bad = (what: string): ODataError =>
    new ODataError('invalid_filter', `Invalid ${what} at position ${start} of ${parameter}: write dates as YYYY-MM-DD and date-times as YYYY-MM-DDThh:mm[:ss[.fff]] followed by Z or ±hh:mm (e.g. 2020-01-31T10:00:00Z).`, { parameter, offset: start });
  const [, y = '', mo = '', d = ''] = date;
  if (!validDate(Number(y), Number(mo), Number(d))) throw bad('date');
  let end = start + date[0].length;
  TIME.lastIndex = end;
  const time = TIME.exec(text);
  if (time === null) {
    if (text[end] !== undefined && IDENTIFIER_CHAR.test(text[end] ?? '')) throw bad('date');
    return { kind: 'date', text: date[0], offset: start };
  }
  const [, h = '', mi = '', s = '00'] = time;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw bad('time of day');
  end += time[0].length;
  ZONE.lastIndex = end;
  const zone = ZONE.exec(text);
  if (zone === null) throw bad('date-time (time zone missing)');
  if (Number(zone[1] ?? 0) > 23 || Number(zone[2] ?? 0) > 59) throw bad('time zone offset');
  end += zone[0].length;
  if (text[end] !== undefined && IDENTIFIER_CHAR.test(text[end] ?? '')) throw bad('date-time');
  return { kind: 'datetime', text: text.slice(start, end), offset: start };
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

function unexpectedCharacter(text: string, pos: number, parameter: string): ODataError {
  const ch = text.codePointAt(pos) ?? 0;
  const shown = ch < 0x20 || ch === 0x7f ? `U+${ch.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCodePoint(ch)}'`;
  const hint = ch === 0x22 ? 'quote text with single quotes, e.g. Name eq \'pH\'' : 'use field names, operators (eq ne lt le gt ge in and or not), quoted text, numbers, dates and parentheses';
  return new ODataError('invalid_filter', `Unexpected character ${shown} at position ${pos} of ${parameter}: ${hint}.`, { parameter, offset: pos });
}
