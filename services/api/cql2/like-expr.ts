/**
 * CQL2's `LIKE` as the text functions the planner already has. CQL2's wildcards are `%` (any run) and `_` (one
 * character), escaped by `\` (OGC 21-065, requirement like-predicate); the compiler answers prefix, suffix and
 * infix tests, so exactly those patterns are accepted, and a pattern without wildcards is equality.
 */
import type { Expr, FunctionName, Property, StringLiteral } from '../odata/ast.js';
import type { ODataError } from '../odata/odata-error.js';
import type { Cursor } from './cursor.js';

type Part = { readonly kind: 'text'; readonly char: string } | { readonly kind: '%' | '_' };

const SUPPORTED = "'text%' (starts with), '%text' (ends with), '%text%' (contains) and 'text' (equals), with % only at the ends and no _; write \\% or \\_ for a literal % or _";

/**
 * `property LIKE pattern` as a function or, without wildcards, an equality.
 *
 * @example
 * likeExpr(cursor, { kind: 'property', name: 'Name', offset: 0 }, { kind: 'string', value: 'Lake%', offset: 10 })
 * // → { kind: 'function', name: 'startswith', property: Name, value: 'Lake', offset: 0 }
 */
export function likeExpr(cursor: Cursor, property: Property, pattern: StringLiteral): Expr {
  const parts = splitPattern(cursor, pattern);
  const leading = parts[0]?.kind === '%';
  const trailing = parts.length > 1 && parts[parts.length - 1]?.kind === '%';
  const inner = parts.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (inner.some((p) => p.kind !== 'text')) throw unsupportedPattern(cursor, pattern);
  const text = inner.map((p) => (p.kind === 'text' ? p.char : '')).join('');
  const value: StringLiteral = { kind: 'string', value: text, offset: pattern.offset };
  if (!leading && !trailing) return { kind: 'compare', op: 'eq', property, value, offset: property.offset };
  const name: FunctionName = leading && trailing ? 'contains' : leading ? 'endswith' : 'startswith';
  // A lone '%' matches every text: contains(F, '') says the same.
  return { kind: 'function', name: parts.length === 1 ? 'contains' : name, property, value, offset: property.offset };
}

function splitPattern(cursor: Cursor, pattern: StringLiteral): Part[] {
  const parts: Part[] = [];
  const chars = [...pattern.value];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    if (ch === '\\') {
      const escaped = chars[++i];
      if (escaped === undefined) {
        throw cursor.error('invalid_filter', `The LIKE pattern at position ${pattern.offset} of ${cursor.parameter} ends in the escape character \\: write \\\\ for a backslash, \\% or \\_ for a literal % or _.`, pattern.offset);
      }
      parts.push({ kind: 'text', char: escaped });
    } else if (ch === '%' || ch === '_') {
      parts.push({ kind: ch });
    } else {
      parts.push({ kind: 'text', char: ch });
    }
  }
  return parts;
}

function unsupportedPattern(cursor: Cursor, pattern: StringLiteral): ODataError {
  const shown = pattern.value.length > 40 ? `${pattern.value.slice(0, 40)}…` : pattern.value;
  return cursor.error('unsupported_expression', `The LIKE pattern '${shown.replace(/'/g, "''")}' at position ${pattern.offset} of ${cursor.parameter} is not supported: the supported patterns are ${SUPPORTED}.`, pattern.offset);
}
