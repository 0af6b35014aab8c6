/**
 * The two tail probabilities the trend tests need, in double precision and relative accuracy far into the tails
 * (a trend's P is often below 1e-6, and C = 1 − P/2 keeps it only when P itself is exact): the normal tail through
 * erfc, and the χ² upper tail through the regularised incomplete gamma function. Written from the series and
 * continued fractions of Abramowitz & Stegun 7.1.6, 7.1.14 and 6.5.29/6.5.31 (Lentz's evaluation); the tests hold
 * them to scipy's.
 */

const SQRT_PI = Math.sqrt(Math.PI);
const EPS = 1e-17;
const TINY = 1e-300;

/** erfc(x) for x ≥ 0. */
function erfcNonNegative(x: number): number {
  if (x < 1.5) {
    // A&S 7.1.6: erf x = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)), every term positive. Below 1.5,
    // erfc ≥ 0.03, so 1 − erf loses under two digits; above, the continued fraction converges quickly.
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && term > sum * EPS; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - ((2 / SQRT_PI) * Math.exp(-x * x) * sum);
  }
  // A&S 7.1.14: erfc x = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated by Lentz's method.
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? 1 / TINY : 1 / d;
    c = x + a / c;
    if (c === 0) c = TINY;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/** The complementary error function, for every real x. */
export function erfc(x: number): number {
  return x >= 0 ? erfcNonNegative(x) : 2 - erfcNonNegative(-x);
}

/** Φ(z), the standard normal distribution function. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** 2·(1 − Φ(|z|)): the two-sided p of a standard normal statistic, exact in the far tail. */
export function twoSidedNormalP(z: number): number {
  return erfc(Math.abs(z) / Math.SQRT2);
}

/** ln Γ(a) for a = k/2, k a positive whole number (the χ² test's degrees of freedom halved): exact products. */
function lnGammaHalfInteger(a: number): number {
  if (!Number.isInteger(2 * a) || a <= 0) throw new RangeError(`lnGammaHalfInteger wants a positive multiple of 1/2, got ${a}`);
  let value = Number.isInteger(a) ? 1 : SQRT_PI;
  for (let t = Number.isInteger(a) ? 1 : 0.5; t < a; t += 1) value *= t;
  return Math.log(value);
}

/** Q(a, x) = Γ(a, x)/Γ(a), the regularised upper incomplete gamma function, for half-integer a > 0 and x ≥ 0. */
function upperGammaRegularised(a: number, x: number): number {
  if (x <= 0) return 1;
  const logPrefix = -x + a * Math.log(x) - lnGammaHalfInteger(a);
  if (x < a + 1) {
    // A&S 6.5.29: P(a, x) = e^(−x) x^a / Γ(a+1) · Σ xⁿ / ((a+1)…(a+n)); Q = 1 − P is near 1 here.
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && term > sum * EPS; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - Math.exp(logPrefix) * sum;
  }
  // A&S 6.5.31 as a continued fraction in Lentz's form: Q(a, x) = e^(−x) x^a / Γ(a) · 1/(x+1−a− 1(1−a)/(x+3−a− …)).
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < 1000; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(logPrefix) * h;
}

/** P(χ²_df > x): the upper tail of the χ² distribution with `df` (a positive whole number) degrees of freedom. */
export function chiSquareUpperTail(x: number, df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`chiSquareUpperTail wants whole degrees of freedom ≥ 1, got ${df}`);
  return upperGammaRegularised(df / 2, x / 2);
}
