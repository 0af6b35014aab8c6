/**
 * Render an expression tree back to canonical OData text.
 *
 * The link builder uses it to write `$filter` into `@odata.nextLink`, so the
 * output must parse back to the same tree: `parseFilter(formatFilter(e))`
 * equals `e` up to offsets. Parentheses are added only where precedence or
 * associativity requires them (a right operand of the same operator keeps
 * its parentheses because `and`/`or` associate to the left), so the text is
 * never nested deeper than the text it was parsed from.
 */
import type { Expr, Literal } from './ast.js';
import { assertNever } from '../assert-never.js';
import { formatGeo } from './geo-functions.js';

/** True when every node has a `$filter` form (CQL2's S_WITHIN and its kin have none). */
export function odataExpressible(expr: Expr): boolean {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return odataExpressible(expr.left) && odataExpressible(expr.right);
    case 'not':
      return odataExpressible(expr.operand);
    case 'spatial':
    case 'distance':
      return formatGeo(expr) !== undefined;
    default:
      return true;
  }
}

/**
 * Canonical text of a filter expression (decoded: percent-encode it, e.g. with
 * `encodeURIComponent`, before putting it into a URL).
 *
 * @example
 * formatFilter(parseFilter("not(A lte 5) AND B in ('x','y''z')"))
 * // → "not A le 5 and B in ('x','y''z')"
 */
export function formatFilter(expr: Expr): string {
  switch (expr.kind) {
    case 'compare':
      return `${expr.property.name} ${expr.op} ${formatLiteral(expr.value)}`;
    case 'in':
      return `${expr.property.name} in (${expr.values.map(formatLiteral).join(',')})`;
    case 'function':
      return `${expr.name}(${expr.property.name},${formatLiteral(expr.value)})`;
    case 'spatial':
    case 'distance': {
      const text = formatGeo(expr);
      if (text === undefined) throw new Error(`${expr.kind} ${'relation' in expr ? expr.relation : ''} has no $filter form: check odataExpressible first`);
      return text;
    }
    case 'and':
      return `${operand(expr.left, expr.left.kind === 'or')} and ${operand(expr.right, expr.right.kind === 'or' || expr.right.kind === 'and')}`;
    case 'or':
      return `${formatFilter(expr.left)} or ${operand(expr.right, expr.right.kind === 'or')}`;
    case 'not':
      // Only and/or need parentheses under `not` (see parseUnary). Adding them anywhere
      // else would deepen the text, and a filter near the depth limit would then fail to
      // parse back.
      return `not ${operand(expr.operand, expr.operand.kind === 'and' || expr.operand.kind === 'or')}`;
    default:
      return assertNever(expr);
  }
}

function operand(expr: Expr, parenthesise: boolean): string {
  return parenthesise ? `(${formatFilter(expr)})` : formatFilter(expr);
}

/**
 * Canonical text of one literal, quoting strings with OData's `''` escape.
 *
 * @example
 * formatLiteral({ kind: 'string', value: "O'Brien", offset: 0 }) // → "'O''Brien'"
 */
export function formatLiteral(literal: Literal): string {
  switch (literal.kind) {
    case 'string':
      return `'${literal.value.replace(/'/g, "''")}'`;
    case 'number':
      return literal.text;
    case 'boolean':
      return literal.value ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'date':
    case 'datetime':
      return literal.value;
    default:
      return assertNever(literal);
  }
}
