/**
 * Exact rational numbers over BigInt, for the Kaplan–Meier oracle: its probabilities are products of fractions
 * (r − e)/r, so held exactly the README's ε comparisons (statistics §4.4, §5.1) are decided without rounding, and
 * any disagreement with production is the production's. Always reduced, with a positive denominator.
 */
export class Fraction {
  private constructor(readonly num: bigint, readonly den: bigint) {}

  static of(num: bigint | number, den: bigint | number = 1n): Fraction {
    let n = BigInt(num);
    let d = BigInt(den);
    if (d === 0n) throw new RangeError('Fraction: zero denominator');
    if (d < 0n) { n = -n; d = -d; }
    const g = gcd(n < 0n ? -n : n, d);
    return new Fraction(n / g, d / g);
  }

  /** The exact value of a finite double (every double is a dyadic rational). */
  static fromNumber(value: number): Fraction {
    if (!Number.isFinite(value)) throw new RangeError(`Fraction: ${value} is not finite`);
    let scaled = value;
    let den = 1n;
    // Doubling a finite double is exact, and an integer is reached within 1074 doublings.
    while (!Number.isInteger(scaled)) { scaled *= 2; den *= 2n; }
    return Fraction.of(BigInt(scaled), den);
  }

  static readonly zero = Fraction.of(0n);
  static readonly one = Fraction.of(1n);

  add(o: Fraction): Fraction { return Fraction.of(this.num * o.den + o.num * this.den, this.den * o.den); }
  sub(o: Fraction): Fraction { return Fraction.of(this.num * o.den - o.num * this.den, this.den * o.den); }
  mul(o: Fraction): Fraction { return Fraction.of(this.num * o.num, this.den * o.den); }
  /** −1, 0 or 1 as this is below, equal to or above o. */
  compare(o: Fraction): number {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  le(o: Fraction): boolean { return this.compare(o) <= 0; }
  lt(o: Fraction): boolean { return this.compare(o) < 0; }
  ge(o: Fraction): boolean { return this.compare(o) >= 0; }
  gt(o: Fraction): boolean { return this.compare(o) > 0; }
  isZero(): boolean { return this.num === 0n; }

  /** The nearest double (to within one rounding of a 64-bit quotient, far below any tolerance a test uses). */
  toNumber(): number {
    if (this.num === 0n) return 0;
    const sign = this.num < 0n ? -1 : 1;
    const n = this.num < 0n ? -this.num : this.num;
    const shift = Math.max(0, 64 - (bitLength(n) - bitLength(this.den)));
    const quotient = Number((n << BigInt(shift)) / this.den);
    return sign * scaleDown(quotient, shift);
  }

  toString(): string { return `${this.num}/${this.den}`; }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** x / 2^shift without overflowing 2^shift for large shifts. */
function scaleDown(x: number, shift: number): number {
  let result = x;
  for (let left = shift; left > 0; left -= 512) result /= 2 ** Math.min(left, 512);
  return result;
}
