/**
 * The CQL2 functions this dialect leaves out, each family with what to write instead: a client that sends
 * `T_AFTER(…)` learns to compare the date field, not merely that something at position 0 is wrong.
 */
import type { ODataError } from '../odata/odata-error.js';
import type { Cursor } from './cursor.js';
import type { Token } from './lexer.js';
import { assertNever } from '../assert-never.js';

type Family = 'geometry' | 'temporal' | 'array' | 'insensitive' | 'other';

const GEOMETRY = new Set(['bbox', 'envelope', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection']);
const ARRAY = new Set(['a_equals', 'a_contains', 'a_containedby', 'a_overlaps']);

function family(lower: string): Family {
  if (GEOMETRY.has(lower)) return 'geometry';
  if (lower.startsWith('t_') || lower === 'interval') return 'temporal';
  if (ARRAY.has(lower)) return 'array';
  if (lower === 'casei' || lower === 'accenti') return 'insensitive';
  return 'other';
}

/**
 * The error for a call the dialect does not support, naming the construct and what to write instead.
 *
 * @example
 * unsupportedCall(cursor, { kind: 'identifier', text: 'T_AFTER', quoted: false, offset: 0 }).message
 * // → "Temporal functions such as T_AFTER (position 0 of filter) are not supported: compare a date field, …"
 */
export function unsupportedCall(cursor: Cursor, token: Extract<Token, { kind: 'identifier' }>): ODataError {
  const name = token.text;
  const at = `(position ${token.offset} of ${cursor.parameter})`;
  const kind = family(name.toLowerCase());
  switch (kind) {
    case 'geometry':
      return cursor.error('unsupported_expression', `A geometry such as ${name}(…) ${at} may only be an argument of a spatial function: write e.g. S_INTERSECTS(geometry, POLYGON((-120 49, -110 49, -110 60, -120 49))).`, token.offset);
    case 'temporal':
      return cursor.error('unsupported_function', `Temporal functions such as ${name} ${at} are not supported: compare a date field instead, e.g. ActivityStartDate >= DATE('2020-01-01') AND ActivityStartDate < DATE('2021-01-01').`, token.offset);
    case 'array':
      return cursor.error('unsupported_function', `Array functions such as ${name} ${at} are not supported: test one field against a list with IN, e.g. CharacteristicName IN ('pH', 'Temperature, water').`, token.offset);
    case 'insensitive':
      return cursor.error('unsupported_function', `${name.toUpperCase()} ${at} is not supported: comparisons are case- and accent-sensitive, so compare the exact text, e.g. CharacteristicName = 'pH'.`, token.offset);
    case 'other':
      return cursor.error('unsupported_function', `Function '${name}' ${at} is not supported: compare a property with a value (= <> < <= > >=, IN, LIKE, BETWEEN, IS NULL), and use S_INTERSECTS(geometry, BBOX(…)) for places.`, token.offset);
    default:
      return assertNever(kind);
  }
}
