/**
 * The `default` of an exhaustive switch, for every stage: adding a union member without a case fails to compile.
 *
 * @example
 * switch (expr.kind) { case 'and': …; default: return assertNever(expr); }
 */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`);
}
