/**
 * The two tails the trends oracle needs, to double precision and without a library: the normal's (Mann–Kendall's
 * p, trends README §7.5) and the χ²'s (Kruskal–Wallis' p, §6). Both are tested against scipy
 * (distributions.test.ts), so the oracle's numerics are proven rather than assumed.
 */

const SQRT_PI = Math.sqrt(Math.PI);

/**
 * erfc(x) for any x. Below ¾, erf's series with positive terms only, erf(x) = 2/√π · e^(−x²) · Σ (2x²)ⁿ x / (2n+1)!!,
 * which has no cancellation, and erfc = 1 − erf (erfc > 0.28 there, so the subtraction costs under two bits).
 * From ¾ up, Laplace's continued fraction erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …)))), evaluated by
 * the modified Lentz method, which keeps full relative precision in the far tail.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 0.75) return 1 - erfSeries(x);
  return (Math.exp(-x * x) / SQRT_PI) / erfcContinuedFraction(x);
}

function erfSeries(x: number): number {
  const twoX2 = 2 * x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
    term *= twoX2 / (2 * n + 1);
    sum += term;
  }
  return (2 / SQRT_PI) * Math.exp(-x * x) * sum;
}

/** x + a₁/(x + a₂/(x + …)) with aₖ = k/2 (modified Lentz). */
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 10_000; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) return f;
  }
  throw new Error(`erfc: continued fraction did not converge at ${x}`);
}

/** P(Z > z) for a standard normal Z, with full relative precision in the upper tail. */
export function normalUpperTail(z: number): number {
  return erfc(z / Math.SQRT2) / 2;
}

/** The two-sided p of a standard normal statistic: P(|Z| > |z|). */
export function twoSidedNormalP(z: number): number {
  return erfc(Math.abs(z) / Math.SQRT2);
}

/** Γ(a) for a positive multiple of ½, exactly as far as doubles allow: Γ(½) = √π, Γ(1) = 1, Γ(a + 1) = aΓ(a). */
export function gammaHalfInteger(a: number): number {
  if (a <= 0 || !Number.isInteger(2 * a)) throw new RangeError(`gammaHalfInteger: ${a} is not a positive multiple of 1/2`);
  let g = Number.isInteger(a) ? 1 : SQRT_PI;
  for (let k = Number.isInteger(a) ? 1 : 0.5; k < a; k++) g *= k;
  return g;
}

/**
 * The regularized upper incomplete gamma Q(a, x) for a a multiple of ½ (χ² with whole degrees of freedom): the
 * series for P(a, x) below x = a + 1, the continued fraction for Q(a, x) above (Numerical Recipes §6.2's split).
 */
export function regularizedGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const logPrefix = a * Math.log(x) - x;
  if (x < a + 1) return 1 - Math.exp(logPrefix) / gammaHalfInteger(a) * gammaSeries(a, x);
  return Math.exp(logPrefix) / gammaHalfInteger(a) * gammaContinuedFraction(a, x);
}

/** Σ xⁿ / (a (a+1) … (a+n)), so that P(a, x) = e^(−x) xᵃ / Γ(a) · the sum. */
function gammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < 10_000; n++) {
    term *= x / (a + n);
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * 1e-17) return sum;
  }
  throw new Error(`regularizedGammaQ: series did not converge at a=${a}, x=${x}`);
}

/** 1/(x+1−a− 1·(1−a)/(x+3−a− 2·(2−a)/(x+5−a− …))), so that Q(a, x) = e^(−x) xᵃ / Γ(a) · it (modified Lentz). */
function gammaContinuedFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = Math.abs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) return h;
  }
  throw new Error(`regularizedGammaQ: continued fraction did not converge at a=${a}, x=${x}`);
}

/** P(χ²_df > x): the upper tail Kruskal–Wallis' p reads. */
export function chiSquareUpperTail(x: number, df: number): number {
  return regularizedGammaQ(df / 2, x / 2);
}
