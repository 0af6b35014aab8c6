/**
 * The notation of DataStream's guideline summary (gordonfn/guidelines, docs/README.md: TeX-like; docs/guidelines.md
 * "The notation") parsed into a readonly tree. Nothing here evaluates text: guideline-sql.ts compiles the tree to
 * DuckDB SQL over whitelisted input columns. An expression that does not parse throws, naming where and why, and
 * needs a reviewed correction (ingest/guidelines/corrections.json).
 */

/** The inputs a formula may read, as the summary names them. Tributary pairs the first four (docs/guidelines.md). */
export const inputNames = ['hardness', 'pH', 'temperature', 'DOC', 'DCa', 'DCl', 'Cl', 'MeHg', 'Hg', 'alkalinity', 'apparentcolor'] as const;
export type InputName = (typeof inputNames)[number];

export type Expr =
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'input'; readonly name: InputName }
  | { readonly kind: 'null' }
  | { readonly kind: 'negate'; readonly arg: Expr }
  | { readonly kind: 'binary'; readonly op: '+' | '-' | '*' | '/' | '^'; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'call'; readonly fn: 'ln' | 'log' | 'exp' | 'max' | 'min'; readonly args: readonly Expr[] }
  | { readonly kind: 'range'; readonly lo: Expr; readonly hi: Expr }
  | { readonly kind: 'if'; readonly branches: readonly { readonly when: Cond; readonly then: Expr }[]; readonly otherwise?: Expr };

export type Cond =
  | { readonly kind: 'compare'; readonly op: '<' | '<=' | '>' | '>=' | '=='; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'defined'; readonly name: InputName }
  | { readonly kind: 'and'; readonly all: readonly Cond[] };

type Token =
  | { readonly t: 'num'; readonly v: number; readonly at: number }
  | { readonly t: 'id'; readonly v: string; readonly at: number }
  | { readonly t: 'op'; readonly v: string; readonly at: number };

const functions = new Set(['ln', 'log', 'exp', 'max', 'min']);

export class ExpressionError extends Error {}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /\s+|(\d*\.\d+|\d+\.?)|([A-Za-z]+)|(\\over|\\\{|\\\}|==|!=|≤|≥|<=|>=|[<>∧{}()[\],+\-*/^])/uy;
  let i = 0;
  while (i < text.length) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new ExpressionError(`unexpected character '${text[i]}' at ${i}`);
    if (m[1] !== undefined) out.push({ t: 'num', v: Number(m[1]), at: i });
    else if (m[2] !== undefined) out.push({ t: 'id', v: m[2], at: i });
    else if (m[3] !== undefined) out.push({ t: 'op', v: m[3] === '≤' ? '<=' : m[3] === '≥' ? '>=' : m[3], at: i });
    i = re.lastIndex;
  }
  return out;
}

/** Parses one expression of the summary's notation; throws ExpressionError saying what and where. */
export function parseExpression(text: string): Expr {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (what: string): never => {
    const tok = peek();
    throw new ExpressionError(`${what} at ${tok ? `'${String(tok.v)}' (character ${tok.at})` : 'the end'}`);
  };
  const isOp = (v: string) => peek()?.t === 'op' && peek()!.v === v;
  const isId = (v: string) => peek()?.t === 'id' && peek()!.v === v;
  const expect = (v: string) => {
    if (!isOp(v)) fail(`expected '${v}'`);
    pos++;
  };

  function top(): Expr {
    return isId('if') ? ifChain() : sum();
  }

  function ifChain(): Expr {
    const branches: { when: Cond; then: Expr }[] = [];
    let otherwise: Expr | undefined;
    pos++; // if
    for (;;) {
      expect('(');
      const when = cond();
      expect(')');
      expect('\\{');
      const then = top();
      expect('\\}');
      branches.push({ when, then });
      if (!isId('else')) break;
      pos++;
      if (isId('if')) {
        pos++;
        continue;
      }
      expect('\\{');
      otherwise = top();
      expect('\\}');
      break;
    }
    return otherwise ? { kind: 'if', branches, otherwise } : { kind: 'if', branches };
  }

  function cond(): Cond {
    const all: Cond[] = [comparisons()];
    while (isOp('∧')) {
      pos++;
      all.push(comparisons());
    }
    return all.length === 1 ? all[0]! : { kind: 'and', all };
  }

  /** `a < b ≤ c` (chained), `x == 5`, `x != null`. */
  function comparisons(): Cond {
    const first = sum();
    if (isOp('!=')) {
      pos++;
      if (!(isId('null') || isId('NULL')) || first.kind !== 'input') fail("'!=' is only used as '<input> != null'");
      pos++;
      return { kind: 'defined', name: (first as { name: InputName }).name };
    }
    const parts: Cond[] = [];
    let left = first;
    while (peek()?.t === 'op' && ['<', '<=', '>', '>=', '=='].includes(peek()!.v as string)) {
      const op = peek()!.v as '<' | '<=' | '>' | '>=' | '==';
      pos++;
      const right = sum();
      parts.push({ kind: 'compare', op, left, right });
      left = right;
    }
    if (parts.length === 0) fail('expected a comparison');
    return parts.length === 1 ? parts[0]! : { kind: 'and', all: parts };
  }

  function sum(): Expr {
    let left = product();
    while (isOp('+') || isOp('-')) {
      const op = peek()!.v as '+' | '-';
      pos++;
      left = { kind: 'binary', op, left, right: product() };
    }
    return left;
  }

  /** Starts a factor that multiplies by juxtaposition (`0.2e^{…}`, `1.005pH`, `100(…)`, `0.8876 […][…]`). */
  function startsFactor(): boolean {
    const tok = peek();
    if (!tok) return false;
    if (tok.t === 'num') return true;
    if (tok.t === 'id') return tok.v !== 'else' && tok.v !== 'null' && tok.v !== 'NULL';
    return tok.v === '(' || tok.v === '[' || tok.v === '{';
  }

  function product(): Expr {
    let left = unary();
    for (;;) {
      if (isOp('*') || isOp('/')) {
        const op = peek()!.v as '*' | '/';
        pos++;
        left = { kind: 'binary', op, left, right: unary() };
      } else if (startsFactor()) left = { kind: 'binary', op: '*', left, right: power() };
      else return left;
    }
  }

  function unary(): Expr {
    if (isOp('-')) {
      pos++;
      return { kind: 'negate', arg: unary() };
    }
    return power();
  }

  function power(): Expr {
    const base = primary();
    if (!isOp('^')) return base;
    pos++;
    return { kind: 'binary', op: '^', left: base, right: isOp('-') ? unary() : power() };
  }

  function primary(): Expr {
    const tok = peek();
    if (!tok) return fail('expected a value');
    if (tok.t === 'num') {
      pos++;
      return { kind: 'number', value: tok.v };
    }
    if (tok.t === 'id') {
      pos++;
      if (tok.v === 'e') return isOp('^') ? exponential() : { kind: 'number', value: Math.E };
      if (tok.v === 'NULL' || tok.v === 'null') return { kind: 'null' };
      if (functions.has(tok.v)) {
        expect('(');
        const args = [sum()];
        while (isOp(',')) {
          pos++;
          args.push(sum());
        }
        expect(')');
        const fn = tok.v as 'ln' | 'log' | 'exp' | 'max' | 'min';
        const arity = fn === 'max' || fn === 'min' ? 2 : 1;
        if (args.length !== arity) {
          pos--;
          fail(`${fn} takes ${arity} argument(s), not ${args.length}`);
        }
        return { kind: 'call', fn, args };
      }
      if ((inputNames as readonly string[]).includes(tok.v)) return { kind: 'input', name: tok.v as InputName };
      pos--;
      return fail(`unknown name '${tok.v}' (inputs: ${inputNames.join(', ')}; functions: ${[...functions].join(', ')})`);
    }
    if (tok.v === '(') {
      pos++;
      const e = sum();
      expect(')');
      return e;
    }
    if (tok.v === '[') {
      pos++;
      const lo = sum();
      if (isOp(',')) {
        pos++;
        const hi = sum();
        expect(']');
        return { kind: 'range', lo, hi };
      }
      expect(']');
      return lo;
    }
    if (tok.v === '{') {
      pos++;
      const num = sum();
      if (isOp('\\over')) {
        pos++;
        const den = sum();
        expect('}');
        return { kind: 'binary', op: '/', left: num, right: den };
      }
      expect('}');
      return num;
    }
    return fail('expected a value');
  }

  /** `e^{…}` and `e^x` are exp(…). */
  function exponential(): Expr {
    pos++; // ^
    return { kind: 'call', fn: 'exp', args: [isOp('-') ? unary() : power()] };
  }

  if (tokens.length === 0) throw new ExpressionError('empty expression');
  const expr = top();
  if (pos < tokens.length) fail('unexpected text after the expression');
  checkRanges(expr, true);
  return expr;
}

/** A range is a whole value (`[6.5,9]`) or a whole branch of an `if`, never an operand. */
function checkRanges(e: Expr, wholeValue: boolean): void {
  switch (e.kind) {
    case 'number':
    case 'input':
    case 'null':
      return;
    case 'range':
      if (!wholeValue) throw new ExpressionError('a range [lo,hi] is only a whole value, not an operand');
      checkRanges(e.lo, false);
      checkRanges(e.hi, false);
      return;
    case 'negate':
      return checkRanges(e.arg, false);
    case 'binary':
      checkRanges(e.left, false);
      checkRanges(e.right, false);
      return;
    case 'call':
      for (const a of e.args) checkRanges(a, false);
      return;
    case 'if':
      for (const b of e.branches) checkRanges(b.then, wholeValue);
      if (e.otherwise) checkRanges(e.otherwise, wholeValue);
      return;
  }
}

/**
 * The sub-expressions whose values make up `e` (an `if`'s arms, not its conditions): the one walk of the tree that
 * inputsOf and guideline-sql.ts's clamps share.
 */
export function valueChildren(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'number':
    case 'input':
    case 'null':
      return [];
    case 'negate':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'call':
      return e.args;
    case 'range':
      return [e.lo, e.hi];
    case 'if':
      return [...e.branches.map((b) => b.then), ...(e.otherwise ? [e.otherwise] : [])];
  }
}

/** The inputs an expression reads, in first-use order. */
export function inputsOf(e: Expr): InputName[] {
  const seen = new Set<InputName>();
  const visitCond = (c: Cond): void => {
    switch (c.kind) {
      case 'compare':
        visit(c.left);
        visit(c.right);
        return;
      case 'defined':
        seen.add(c.name);
        return;
      case 'and':
        c.all.forEach(visitCond);
        return;
    }
  };
  const visit = (x: Expr): void => {
    if (x.kind === 'input') seen.add(x.name);
    if (x.kind !== 'if') return valueChildren(x).forEach(visit);
    // A condition reads its inputs before the arm it chooses.
    for (const b of x.branches) {
      visitCond(b.when);
      visit(b.then);
    }
    if (x.otherwise) visit(x.otherwise);
  };
  visit(e);
  return [...seen];
}
