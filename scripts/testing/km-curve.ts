/**
 * The method of a group and its Kaplan–Meier curve, in exact rational arithmetic: ../shared/statistics/README.md §3
 * and §4, written from the README alone. Every probability is a Fraction, so the curve is the one the definition
 * gives, not an approximation of it.
 */
import { Fraction } from './fraction.js';

/** A group's usable numbers, split by kind (§2.1), in the group's unit. */
export interface UsableValues {
  readonly detected: readonly number[];
  readonly left: readonly number[];
  readonly right: readonly number[];
}

export type Method = 'exact' | 'km' | 'none';

export interface MethodChoice {
  readonly Method: Method;
  readonly MethodReason: string;
}

/** §3, the first row that applies. */
export function chooseMethod({ detected, left, right }: UsableValues): MethodChoice {
  const n = detected.length + left.length + right.length;
  const censored = left.length + right.length;
  if (n === 0) return { Method: 'none', MethodReason: 'no usable results' };
  // On integers, as the README says: 8 of 10 is km, 17 of 20 is none.
  if (5 * censored > 4 * n) return { Method: 'none', MethodReason: 'more than 80 % of results censored' };
  if (censored === 0) return { Method: 'exact', MethodReason: 'no censored results' };
  if (left.length > 0 && right.length > 0 && !rightAboveAll({ detected, left, right }) && !leftBelowAll({ detected, left, right })) {
    return { Method: 'none', MethodReason: 'left- and right-censored results overlap' };
  }
  const reason = left.length > 0 && right.length > 0 ? 'left- and right-censored results'
    : left.length > 0 ? 'left-censored results' : 'right-censored results';
  return { Method: 'km', MethodReason: reason };
}

/** §3 row 4 (a): every right limit ≥ every detected value and every left limit. */
function rightAboveAll({ detected, left, right }: UsableValues): boolean {
  return right.every((r) => detected.every((d) => r >= d) && left.every((l) => r >= l));
}

/** §3 row 4 (b): every left limit ≤ every detected value and every right limit. */
function leftBelowAll({ detected, left, right }: UsableValues): boolean {
  return left.every((l) => detected.every((d) => l <= d) && right.every((r) => l <= r));
}

/** One step of the curve: a distinct detected value d_j with F(d_j) and F(d_j−). */
export interface Step {
  readonly value: number;
  readonly F: Fraction;
  readonly Fminus: Fraction;
}

/** The curve of a `km` group: its steps ascending, and the masses below d₁ and above d_k (§4). */
export interface Curve {
  readonly steps: readonly Step[];
  readonly mLow: Fraction;
  readonly mHigh: Fraction;
}

/** The distinct detected values ascending, each with its count e_j. */
function distinctDetected(detected: readonly number[]): { value: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const d of detected) counts.set(d, (counts.get(d) ?? 0) + 1);
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => a.value - b.value);
}

const count = (xs: readonly number[], test: (x: number) => boolean): number => xs.filter(test).length;

/**
 * §4: case L (walking down from the largest detected value) when there is no right limit or every right limit is
 * above everything; otherwise case R (walking up), which §3 guarantees applies. Where both apply they agree (§4.2).
 */
export function kmCurve(values: UsableValues): Curve {
  if (values.detected.length === 0) throw new Error('kmCurve: a km group has at least one detected value (§3)');
  return values.right.length === 0 || rightAboveAll(values) ? curveWalkingDown(values) : curveWalkingUp(values);
}

/** §4.1, case L. */
function curveWalkingDown({ detected, left, right }: UsableValues): Curve {
  const n = detected.length + left.length + right.length;
  const distinct = distinctDetected(detected);
  const steps: Step[] = [];
  let F = Fraction.one.sub(Fraction.of(right.length, n));
  for (const { value, count: e } of [...distinct].reverse()) {
    // At risk at d_j: detected values ≤ d_j and left limits ≤ d_j (a `<3` beside a detected 3 is at risk at it, §4.3).
    const r = count(detected, (d) => d <= value) + count(left, (l) => l <= value);
    const Fminus = F.mul(Fraction.of(r - e, r));
    steps.unshift({ value, F, Fminus });
    F = Fminus;
  }
  return { steps, mLow: F, mHigh: Fraction.of(right.length, n) };
}

/** §4.2, case R, with S = 1 − F. */
function curveWalkingUp({ detected, left, right }: UsableValues): Curve {
  const n = detected.length + left.length + right.length;
  const steps: Step[] = [];
  let S = Fraction.one.sub(Fraction.of(left.length, n));
  for (const { value, count: e } of distinctDetected(detected)) {
    const s = count(detected, (d) => d >= value) + count(right, (r) => r >= value);
    const Safter = S.mul(Fraction.of(s - e, s));
    steps.push({ value, F: Fraction.one.sub(Safter), Fminus: Fraction.one.sub(S) });
    S = Safter;
  }
  return { steps, mLow: Fraction.of(left.length, n), mHigh: S };
}
