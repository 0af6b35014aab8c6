/**
 * The worked examples of ../shared/statistics/README.md (§8's small and edge cases, §9's published data sets) as data,
 * for the oracle's tests and for production tests that build datasets from them. Values are written as a laboratory
 * reports them: `12`, `<5` (below the limit 5), `>2419.6` (above it); expected statistics the same way, null where
 * the README shows —.
 */
import type { KmRow } from './km-rows.js';

/** `3.1` → detected, `<0.5` → left-censored at 0.5, `>200` → right-censored at 200. */
export function parseReported(text: string): KmRow & { kind: 'detected' | 'left' | 'right' } {
  const kind = text.startsWith('<') ? 'left' : text.startsWith('>') ? 'right' : 'detected';
  const value = Number(kind === 'detected' ? text : text.slice(1));
  if (!Number.isFinite(value)) throw new Error(`parseReported: ${text}`);
  return { kind, value };
}

/** A reported value repeated: `times('<0.5', 6)`. */
export function times(text: string, n: number): string[] {
  return Array.from({ length: n }, () => text);
}

export interface KmExpected {
  readonly Method: 'exact' | 'km' | 'none';
  readonly MethodReason: string;
  readonly P10: string | null;
  readonly Median: string | null;
  readonly P90: string | null;
  readonly Mean: number | null;
  readonly Min: string | null;
  readonly Max: string | null;
}

export interface KmExample {
  readonly name: string;
  /** In the README's unit (µg/L for §8). */
  readonly values: readonly string[];
  readonly expected: KmExpected;
}

const LEFT = 'left-censored results';
const RIGHT = 'right-censored results';
const BOTH = 'left- and right-censored results';
const OVER_80 = 'more than 80 % of results censored';

const none = (Min: string, Max: string, MethodReason = OVER_80): KmExpected =>
  ({ Method: 'none', MethodReason, P10: null, Median: null, P90: null, Mean: null, Min, Max });
const km = (MethodReason: string, P10: string, Median: string, P90: string, Mean: number | null, Min: string, Max: string): KmExpected =>
  ({ Method: 'km', MethodReason, P10, Median, P90, Mean, Min, Max });

/** §8: small and edge cases. */
export const kmEdgeCases: readonly KmExample[] = [
  { name: 'n = 1 detected', values: ['1.7'], expected: { Method: 'exact', MethodReason: 'no censored results', P10: '1.7', Median: '1.7', P90: '1.7', Mean: 1.7, Min: '1.7', Max: '1.7' } },
  { name: 'n = 1 censored', values: ['<0.05'], expected: none('<0.05', '<0.05') },
  { name: 'n = 2, 50 %', values: ['12', '<5'], expected: km(LEFT, '<5', '<5', '12', 12, '<5', '12') },
  { name: 'n = 2, all censored', values: ['<1', '<2'], expected: none('<1', '<2') },
  { name: 'a limit above the only detect', values: ['0.9', '<0.5', '<1'], expected: km(LEFT, '<0.5', '<0.5', '0.9', 0.9, '<0.5', '<1') },
  { name: 'n = 3 detected', values: ['3.1', '2.2', '4'], expected: { Method: 'exact', MethodReason: 'no censored results', P10: '2.38', Median: '3.1', P90: '3.82', Mean: 3.1, Min: '2.2', Max: '4' } },
  { name: '80 % exactly', values: [...times('<0.5', 6), ...times('<1', 2), '0.7', '1.4'], expected: km(LEFT, '<0.5', '<0.5', '0.7', 0.77, '<0.5', '1.4') },
  { name: '85 %', values: [...times('<0.02', 17), '0.03', '0.05', '0.08'], expected: none('<0.02', '0.08') },
  { name: 'flat part at the median', values: ['<0.5', '1', '2', '3'], expected: km(LEFT, '<0.5', '1', '3', 1.75, '<0.5', '3') },
  { name: 'P10 on the censored weight', values: ['<0.5', '1', '2', '3', '4', '5', '6', '7', '8', '9'], expected: km(LEFT, '<0.5', '4', '8', 4.6, '<0.5', '9') },
  { name: 'flat part at P90', values: ['<0.1', ...times('1', 3), ...times('2', 2), ...times('3', 2), '4', '5'], expected: km(LEFT, '<0.1', '2', '4', 2.3, '<0.1', '5') },
  { name: 'a > below the detect', values: ['0.4', '>0.2'], expected: km(RIGHT, '0.4', '0.4', '0.4', 0.4, '>0.2', '0.4') },
  { name: '> above everything', values: ['10', '20', '30', '40', '>2419.6'], expected: km(RIGHT, '10', '30', '>2419.6', null, '10', '>2419.6') },
  { name: 'separable', values: ['20', '30', '40', '50', '60', ...times('<10', 2), '>2419.6'], expected: km(BOTH, '<10', '30', '>2419.6', null, '<10', '>2419.6') },
  { name: '> among detects, case R', values: ['1', '50', '300', '500', '1000', '<1', ...times('>200', 2)], expected: km(BOTH, '<1', '300', '1000', 381.5, '<1', '1000') },
  { name: 'overlap', values: ['3', '50', '900', '<10', '>200'], expected: none('3', '900', 'left- and right-censored results overlap') },
];

const words = (text: string): string[] => text.trim().split(/\s+/);

/** §9's vectors, as the README lists them. */
export const kmDataSets = {
  DFe: words('20 <10 <10 <10 <10 7 3 <3 <3'),
  atrazineJune: words(`0.38 0.04 <0.01 0.03 0.03 0.05 0.02 <0.01 <0.01 <0.01 0.11 0.09 <0.01 <0.01 <0.01 <0.01 0.02 0.03 0.02
    0.02 0.05 0.03 0.05 <0.01`),
  atrazineSeptember: words(`2.66 0.63 0.59 0.05 0.84 0.58 0.02 <0.01 <0.01 <0.01 0.09 0.31 0.02 <0.01 0.5 0.03 0.09 0.06 0.03
    <0.01 0.1 0.25 0.03 88.36`),
  bealLead: words('<1 <1 2 2.5 2.8 <3 3.4 3.9 <4 <4 <4 4.5 4.9 5.5 5.5 5.5 <6 6.7 6.9 7.4 <9 9.5 <10 <10 10 15 49 200 9060'),
  epaManganese: words('<5 12.1 16.9 21.6 <2 <5 7.7 53.6 9.5 45.9 <5 5.3 12.6 106.3 34.5 6.3 11.9 10 <2 77.2 17.9 22.7 3.3 8.4 <2'),
  helselCohnSilver: words(`0.8 0.1 2 0.2 <5 <1 <2 <25 2.7 <1 1.2 3.2 <20 <10 <5 <0.1 <10 <1 2 <5 560 <0.2 <20 <1 1 10 <10 <5 <0.5 1.4
    <0.2 <6 1 <10 0.1 5 2 1 <1 4.4 90 <20 <0.3 <2.5 <10 0.7 <1 1.5 <1 <0.2 2 <0.2 <1 <1 <1 <0.1`),
} as const;

export interface KmWorkedExample extends KmExample {
  readonly n: number;
  readonly censored: number;
  /** Median / mean over the detected values only (what Tributary computed before Kaplan–Meier), where §9 gives them. */
  readonly detectedOnly?: { readonly Median: number; readonly Mean: number };
}

const worked = (name: string, values: readonly string[], n: number, censored: number, P10: string, Median: string, P90: string, Mean: number, Min: string, Max: string, detectedOnly?: [number, number]): KmWorkedExample => ({
  name, values, n, censored, expected: km(LEFT, P10, Median, P90, Mean, Min, Max),
  ...(detectedOnly === undefined ? {} : { detectedOnly: { Median: detectedOnly[0], Mean: detectedOnly[1] } }),
});

/** §9: the published examples, every one `km` / `left-censored results`. */
export const kmWorkedExamples: readonly KmWorkedExample[] = [
  worked('NADA DFe', kmDataSets.DFe, 9, 6, '<3', '3', '20', 5.777778, '<3', '20', [7, 10]),
  worked('NADA Atrazine, both months', [...kmDataSets.atrazineJune, ...kmDataSets.atrazineSeptember], 48, 14, '<0.01', '0.03', '0.59', 2.010208, '<0.01', '88.36', [0.05, 2.829706]),
  worked('NADA Atrazine, June', kmDataSets.atrazineJune, 24, 9, '<0.01', '0.02', '0.09', 0.04791667, '<0.01', '0.38'),
  worked('NADA Atrazine, September', kmDataSets.atrazineSeptember, 24, 5, '<0.01', '0.06', '0.84', 3.9725, '<0.01', '88.36'),
  worked('Beal (2010) lead', kmDataSets.bealLead, 29, 10, '<1', '4.5', '49', 325.339571, '<1', '9060', [5.5, 495]),
  worked('EPA (2009) Ex. 15-1 manganese', kmDataSets.epaManganese, 25, 6, '<2', '10', '53.6', 20.14, '<2', '106.3', [12.6, 25.457895]),
  worked('Helsel & Cohn (1988) silver', kmDataSets.helselCohnSilver, 56, 34, '<0.1', '0.2', '4.4', 12.668342, '<0.1', '560', [1.75, 31.468182]),
];
