import { valueChildren, type Cond, type Expr, type InputName } from './guideline-expression.js';
import { literal } from '../sql.js';

/**
 * A guideline's parsed expression (guideline-expression.ts) compiled to DuckDB SQL over the input columns of the
 * comparisons stage (`in_hardness`, `in_pH`, …, named here from the closed list of inputs, never from data).
 * Numbers are written as validated numeric literals. NULL propagates as the notation means it: a missing input
 * gives no value, except where an `if` has an `else` (the summary's fallback for an undefined input).
 */

export interface CompiledGuideline {
  /** The lower and upper value: the same SQL for a single value, a range's ends for `[lo,hi]`. */
  readonly lo: string;
  readonly hi: string;
  /**
   * One SQL expression per clamp of an input to the formula's calibrated range (`max(a, min(x, b))`, `min(x, b)`):
   * the sentence saying so when that input is outside the range, else NULL.
   */
  readonly clamps: readonly string[];
}

/** The column holding an input's value for the row being compared (a closed list: the notation's input names). */
export function inputColumn(name: InputName): string {
  return `"in_${name}"`;
}

export function numberSql(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`internal error: non-finite constant ${value} in a guideline`);
  const text = String(value);
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(text)) throw new Error(`internal error: constant ${text} is not a plain number`);
  return `CAST(${text} AS DOUBLE)`;
}

/**
 * max/min that give NULL when an operand is NULL (DuckDB's greatest/least skip NULLs, the notation's max/min do
 * not). Each operand is written once: a CASE repeating them would double the SQL at every level of nesting.
 */
function strict(fn: 'greatest' | 'least', args: readonly Expr[]): string {
  const [a, b] = args.map(scalar) as [string, string];
  const nullable = args.filter((x) => x.kind !== 'number');
  if (nullable.every((x) => x.kind === 'input')) {
    const checks = nullable.map((x) => `${scalar(x)} IS NULL`);
    return checks.length === 0 ? `${fn}(${a}, ${b})` : `CASE WHEN ${checks.join(' OR ')} THEN NULL ELSE ${fn}(${a}, ${b}) END`;
  }
  return `list_reduce([${a}, ${b}], (x, y) -> CASE WHEN x IS NULL OR y IS NULL THEN NULL ELSE ${fn}(x, y) END)`;
}

function scalar(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return numberSql(e.value);
    case 'input':
      return inputColumn(e.name);
    case 'null':
      return 'CAST(NULL AS DOUBLE)';
    case 'negate':
      return `(-(${scalar(e.arg)}))`;
    case 'binary': {
      const l = scalar(e.left);
      const r = scalar(e.right);
      switch (e.op) {
        case '+':
        case '-':
        case '*':
          return `((${l}) ${e.op} (${r}))`;
        case '/':
          return `((${l}) / NULLIF(${r}, 0))`;
        case '^':
          return `pow(${l}, ${r})`;
      }
      break;
    }
    case 'call': {
      if (e.fn === 'max' || e.fn === 'min') return strict(e.fn === 'max' ? 'greatest' : 'least', e.args);
      const args = e.args.map(scalar);
      switch (e.fn) {
        // A logarithm of a non-positive value has no value (DuckDB would raise an error).
        // greatest(NULL, 0) is 0, so NULL stays NULL.
        case 'ln':
          return `ln(NULLIF(greatest(${args[0]}, 0), 0))`;
        case 'log':
          return `log10(NULLIF(greatest(${args[0]}, 0), 0))`;
        case 'exp':
          return `exp(${args[0]})`;

      }
      break;
    }
    case 'range':
      throw new Error('internal error: a range as an operand (guideline-expression.ts rejects it)');
    case 'if':
      return ifSql(e, scalar);
  }
  throw new Error('internal error: unhandled expression');
}

function condSql(c: Cond): string {
  switch (c.kind) {
    case 'compare':
      return `((${scalar(c.left)}) ${c.op === '==' ? '=' : c.op} (${scalar(c.right)}))`;
    case 'defined':
      return `(${inputColumn(c.name)} IS NOT NULL)`;
    case 'and':
      return `(${c.all.map(condSql).join(' AND ')})`;
  }
}

function ifSql(e: Extract<Expr, { kind: 'if' }>, arm: (x: Expr) => string): string {
  const whens = e.branches.map((b) => `WHEN ${condSql(b.when)} THEN ${arm(b.then)}`).join(' ');
  return `CASE ${whens} ELSE ${e.otherwise ? arm(e.otherwise) : 'CAST(NULL AS DOUBLE)'} END`;
}

function end(e: Expr, which: 'lo' | 'hi'): string {
  if (e.kind === 'range') return scalar(which === 'lo' ? e.lo : e.hi);
  if (e.kind === 'if') return ifSql(e, (x) => end(x, which));
  return scalar(e);
}

/** Each clamp of an input by a constant: `min(x, b)` (x above b) and `max(a, x)` (x below a), nested or not. */
function clampsOf(e: Expr, units: Readonly<Partial<Record<InputName, string>>>): string[] {
  const out: string[] = [];
  const visit = (x: Expr): void => {
    if (x.kind === 'call' && (x.fn === 'max' || x.fn === 'min')) {
      const constant = x.args.find((a) => a.kind === 'number');
      const other = x.args.find((a) => a !== constant);
      const input = other && peelClamps(other);
      if (constant?.kind === 'number' && input) {
        const col = inputColumn(input);
        const unit = units[input] ? ` ${units[input]}` : '';
        const [cmp, side] = x.fn === 'min' ? ['>', 'above'] : ['<', 'below'];
        const text = (v: string) => `${literal(`${input} `)} || ${v} || ${literal(`${unit} is ${side} the formula's calibrated range: ${String(constant.value)}${unit} used`)}`;
        out.push(`CASE WHEN ${col} ${cmp} ${numberSql(constant.value)} THEN ${text(`CAST(round(${col}, 4) AS VARCHAR)`)} END`);
      }
    }
    valueChildren(x).forEach(visit);
  };
  visit(e);
  return out;
}

/** The input under nested max/min with constants (`min(x, b)` inside `max(a, …)`), if that is what it is. */
function peelClamps(x: Expr): InputName | undefined {
  if (x.kind === 'input') return x.name;
  if (x.kind === 'call' && (x.fn === 'max' || x.fn === 'min')) {
    const other = x.args.find((a) => a.kind !== 'number');
    return other && x.args.some((a) => a.kind === 'number') ? peelClamps(other) : undefined;
  }
  return undefined;
}

/** Compiles a parsed guideline expression; `units` names each input's unit for the clamp sentences. */
export function compileGuideline(e: Expr, units: Readonly<Partial<Record<InputName, string>>> = {}): CompiledGuideline {
  return { lo: end(e, 'lo'), hi: end(e, 'hi'), clamps: clampsOf(e, units) };
}
