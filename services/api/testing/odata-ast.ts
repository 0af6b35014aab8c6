/**
 * Helpers shared by this folder's tests (imported by nothing else).
 */
import type { CompareOp, FunctionName, Literal } from '../odata/ast.js';
import { ODataError } from '../odata/odata-error.js';

/** Deep copy without `offset` keys, so tables can state shapes and offsets separately. */
export function stripOffsets<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripOffsets) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'offset').map(([k, v]) => [k, stripOffsets(v)])) as T;
  }
  return value;
}

/** Run `fn`, require it to throw an ODataError, and return that error. */
export function catchODataError(fn: () => unknown): ODataError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ODataError) return err;
    throw new Error(`expected an ODataError, got ${String(err)}`);
  }
  throw new Error('expected an ODataError, but nothing was thrown');
}

// Offset-free AST builders for expected values in tables.
type NoOffset<T> = T extends { offset: number } ? Omit<T, 'offset'> : T;
export type BareLiteral = NoOffset<Literal>;
export const prop = (name: string) => ({ kind: 'property', name }) as const;
export const str = (value: string): BareLiteral => ({ kind: 'string', value });
export const num = (text: string): BareLiteral => ({ kind: 'number', text, value: Number(text), integer: /^-?[0-9]+$/.test(text) });
export const bool = (value: boolean): BareLiteral => ({ kind: 'boolean', value });
export const nul: BareLiteral = { kind: 'null' };
export const date = (value: string): BareLiteral => ({ kind: 'date', value });
export const datetime = (value: string): BareLiteral => ({ kind: 'datetime', value });
export const cmp = (name: string, op: CompareOp, value: BareLiteral) => ({ kind: 'compare', op, property: prop(name), value });
export const inList = (name: string, ...values: BareLiteral[]) => ({ kind: 'in', property: prop(name), values });
export const fn = (name: FunctionName, property: string, value: string) => ({ kind: 'function', name, property: prop(property), value: str(value) });
export const and = (left: unknown, right: unknown) => ({ kind: 'and', left, right });
export const or = (left: unknown, right: unknown) => ({ kind: 'or', left, right });
export const not = (operand: unknown) => ({ kind: 'not', operand });
