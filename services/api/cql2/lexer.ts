/**
 * Tokeniser for CQL2-Text (OGC 21-065, Annex A's BNF), the subset of its lexical rules the parser needs.
 *
 * One left-to-right pass over this file's rules on the lexer skeleton `$filter`'s shares (odata/scan-tokens.ts), with
 * sticky (`y`) regexes that cannot backtrack, so lexing is linear in the input.
 * Keywords (`AND`, `LIKE`, `S_INTERSECTS`, …) stay plain identifiers: the parser decides, in any letter case,
 * and a double-quoted name is never a keyword. A sign is its own token, as in the BNF, where `-` is both the sign
 * of a number and subtraction: the parser joins a sign to the number after it, and refuses arithmetic by name.
 */
import { ODataError } from '../odata/odata-error.js';
import { blank, matchAt, scanTokens, type Lexed, type LexRule } from '../odata/scan-tokens.js';

export type Operator = '=' | '<>' | '<' | '>' | '<=' | '>=';
/** Arithmetic (and `!`, for a `!=` hint): lexed so the parser can say "not supported" rather than "unexpected". */
export type SymbolText = '+' | '-' | '*' | '/' | '%' | '^' | '!';
export type Punctuation = '(' | ')' | ',';

export type Token =
  | { readonly kind: 'identifier'; readonly text: string; readonly quoted: boolean; readonly offset: number }
  | { readonly kind: 'string'; readonly value: string; readonly offset: number }
  /** Unsigned, exactly as written (`5`, `.5`, `5.`, `1.5E3`). */
  | { readonly kind: 'number'; readonly text: string; readonly offset: number }
  | { readonly kind: 'operator'; readonly text: Operator; readonly offset: number }
  | { readonly kind: 'symbol'; readonly text: SymbolText; readonly offset: number }
  | { readonly kind: 'punct'; readonly text: Punctuation; readonly offset: number }
  | { readonly kind: 'end'; readonly offset: number };

// BNF `identifierStart` and `identifierPart`: a colon may start a name (`eo:cloud_cover`), a dot may continue it.
const START = ':_A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFE\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const IDENTIFIER = new RegExp(`[${START}][${START}.0-9\\u0300-\\u036F\\u203F\\u2040]*`, 'uy');
const NUMBER = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const IDENTIFIER_CHAR = new RegExp(`[${START}.0-9]`, 'u');
// BNF `whitespace`.
const WHITESPACE = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/;
const OPERATORS: readonly Operator[] = ['<>', '<=', '>=', '=', '<', '>'];
const SYMBOLS = '+-*/%^!';
const PUNCTUATION = '(),';

type Scanned = Exclude<Token, { kind: 'end' }>;

// Tried in order at each position (an operator before a symbol, so `<>` is one token); a name is the last resort.
const RULES: readonly LexRule<Scanned>[] = [
  blank(WHITESPACE),
  (text, pos) => {
    const operator = OPERATORS.find((op) => text.startsWith(op, pos));
    return operator === undefined ? undefined : { token: { kind: 'operator', text: operator, offset: pos }, end: pos + operator.length };
  },
  (text, pos) => (PUNCTUATION.includes(text[pos] ?? '') ? { token: { kind: 'punct', text: text[pos] as Punctuation, offset: pos }, end: pos + 1 } : undefined),
  (text, pos, parameter) => {
    if (text[pos] !== "'") return undefined;
    const { value, end } = readString(text, pos, parameter);
    return { token: { kind: 'string', value, offset: pos }, end };
  },
  (text, pos, parameter) => (text[pos] === '"' ? readQuotedName(text, pos, parameter) : undefined),
  (text, pos, parameter) => {
    const ch = text[pos] ?? '';
    if (!((ch >= '0' && ch <= '9') || ch === '.')) return undefined;
    const number = readNumber(text, pos, parameter);
    return { token: { kind: 'number', text: number, offset: pos }, end: pos + number.length };
  },
  (text, pos) => (SYMBOLS.includes(text[pos] ?? '') ? { token: { kind: 'symbol', text: text[pos] as SymbolText, offset: pos }, end: pos + 1 } : undefined),
  (text, pos) => {
    const name = matchAt(IDENTIFIER, text, pos);
    return name === undefined ? undefined : { token: { kind: 'identifier', text: name, quoted: false, offset: pos }, end: pos + name.length };
  },
];

/**
 * Split CQL2-Text into tokens, ending with one `end` token; throws `ODataError` (`invalid_filter`) with the offset.
 *
 * @example
 * tokenize("\"eo:cloud_cover\" <= -0.5", 'filter').map((t) => t.kind)
 * // → ['identifier', 'operator', 'symbol', 'number', 'end']
 */
export function tokenize(text: string, parameter: string): Token[] {
  return scanTokens(text, parameter, RULES, unexpectedCharacter);
}

function readQuotedName(text: string, pos: number, parameter: string): Lexed<Scanned> {
  const end = text.indexOf('"', pos + 1);
  const name = text.slice(pos + 1, end);
  if (end === -1 || name.length === 0) {
    throw new ODataError('invalid_filter', `Unterminated or empty quoted name at position ${pos} of ${parameter}: write a property name in double quotes as "name", and text in single quotes as 'text'.`, { parameter, offset: pos });
  }
  return { token: { kind: 'identifier', text: name, quoted: true, offset: pos }, end: end + 1 };
}

// CQL2 escapes a quote inside text as '' or \' (BNF `escapeQuote`); any other backslash is an ordinary character.
function readString(text: string, start: number, parameter: string): { value: string; end: number } {
  let value = '';
  for (let pos = start + 1; pos < text.length; pos++) {
    const ch = text[pos];
    if (ch === '\\' && text[pos + 1] === "'") {
      value += "'";
      pos++;
    } else if (ch === "'" && text[pos + 1] === "'") {
      value += "'";
      pos++;
    } else if (ch === "'") {
      return { value, end: pos + 1 };
    } else {
      value += ch;
    }
  }
  throw new ODataError('invalid_filter', `Unterminated text starting at position ${start} of ${parameter}: end it with ' and write a quote inside text as '' (e.g. 'O''Brien').`, { parameter, offset: start });
}

function readNumber(text: string, start: number, parameter: string): string {
  const number = matchAt(NUMBER, text, start);
  const after = number === undefined ? text[start] : text[start + number.length];
  if (number === undefined || (after !== undefined && IDENTIFIER_CHAR.test(after))) {
    throw new ODataError('invalid_filter', `Invalid number at position ${start} of ${parameter}: write numbers like 42, -0.5 or 1.5E3, and quote text ('${text.slice(start, start + 12)}…').`, { parameter, offset: start });
  }
  return number;
}

function unexpectedCharacter(text: string, pos: number, parameter: string): ODataError {
  const ch = text.codePointAt(pos) ?? 0;
  const shown = ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) ? `U+${ch.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCodePoint(ch)}'`;
  return new ODataError('invalid_filter', `Unexpected character ${shown} at position ${pos} of ${parameter}: use property names, operators (= <> < <= > >= AND OR NOT IN LIKE BETWEEN IS NULL), 'quoted text', numbers, DATE('…'), TIMESTAMP('…') and parentheses.`, { parameter, offset: pos });
}
