/**
 * The statistics README's expected values (../shared/statistics/README.md §8 small and edge cases, §9 worked
 * examples from NADA, EnvStats and the EPA), as data for the tests: each case's results as a laboratory writes them
 * (`<0.5` a non-detect at that limit, `>200` a result above it, `×n` n times) and what a summary of them reports.
 */

/** One result: a detected value, or a limit with the side it censors. */
export interface CaseResult {
  readonly kind: 'detected' | 'left' | 'right';
  readonly x: number;
}

/** What a group reports: a number, a qualified bound (`<5`, `>2419.6`) or null. */
export interface CaseExpectation {
  readonly method: 'exact' | 'km' | 'none';
  readonly reason: string;
  readonly p10: string | null;
  readonly median: string | null;
  readonly p90: string | null;
  readonly mean: string | null;
  readonly min: string | null;
  readonly max: string | null;
}

export interface KmCase extends CaseExpectation {
  readonly name: string;
  /** The results in the README's notation. */
  readonly values: string;
}

/** `<0.5×6 1 >200` → the results, in order. */
export function parseResults(values: string): CaseResult[] {
  return values.split(/\s+/).filter(Boolean).flatMap((token) => {
    const [text, times = '1'] = token.split('×') as [string, string?];
    const kind = text.startsWith('<') ? 'left' : text.startsWith('>') ? 'right' : 'detected';
    const x = Number(kind === 'detected' ? text : text.slice(1));
    if (!Number.isFinite(x)) throw new Error(`not a result: ${token}`);
    return Array.from({ length: Number(times) }, () => ({ kind, x }) as const);
  });
}

/** A reported statistic as the README writes it: the qualifier and the number. */
export function parseReported(text: string | null): { readonly qualifier: '<' | '>' | null; readonly value: number } | null {
  if (text === null) return null;
  const qualifier = text.startsWith('<') ? '<' : text.startsWith('>') ? '>' : null;
  return { qualifier, value: Number(qualifier ? text.slice(1) : text) };
}

const L = 'left-censored results';
const R = 'right-censored results';
const B = 'left- and right-censored results';
const TOO = 'more than 80 % of results censored';

const row = (name: string, values: string, method: KmCase['method'], reason: string, cells: readonly (string | null)[]): KmCase => {
  const [p10 = null, median = null, p90 = null, mean = null, min = null, max = null] = cells;
  return { name, values, method, reason, p10, median, p90, mean, min, max };
};
const none = (name: string, values: string, reason: string, min: string, max: string) => row(name, values, 'none', reason, [null, null, null, null, min, max]);

/** §8 (µg/L). */
export const EDGE_CASES: readonly KmCase[] = [
  row('n = 1 detected', '1.7', 'exact', 'no censored results', ['1.7', '1.7', '1.7', '1.7', '1.7', '1.7']),
  none('n = 1 censored', '<0.05', TOO, '<0.05', '<0.05'),
  row('n = 2, 50 %', '12 <5', 'km', L, ['<5', '<5', '12', '12', '<5', '12']),
  none('n = 2, all censored', '<1 <2', TOO, '<1', '<2'),
  row('a limit above the only detect', '0.9 <0.5 <1', 'km', L, ['<0.5', '<0.5', '0.9', '0.9', '<0.5', '<1']),
  row('n = 3 detected', '3.1 2.2 4', 'exact', 'no censored results', ['2.38', '3.1', '3.82', '3.1', '2.2', '4']),
  row('80 % exactly', '<0.5×6 <1×2 0.7 1.4', 'km', L, ['<0.5', '<0.5', '0.7', '0.77', '<0.5', '1.4']),
  none('85 %', '<0.02×17 0.03 0.05 0.08', TOO, '<0.02', '0.08'),
  row('flat part at the median', '<0.5 1 2 3', 'km', L, ['<0.5', '1', '3', '1.75', '<0.5', '3']),
  row('P10 on the censored weight', '<0.5 1 2 3 4 5 6 7 8 9', 'km', L, ['<0.5', '4', '8', '4.6', '<0.5', '9']),
  row('flat part at P90', '<0.1 1×3 2×2 3×2 4 5', 'km', L, ['<0.1', '2', '4', '2.3', '<0.1', '5']),
  row('a > below the detect', '0.4 >0.2', 'km', R, ['0.4', '0.4', '0.4', '0.4', '>0.2', '0.4']),
  row('> above everything', '10 20 30 40 >2419.6', 'km', R, ['10', '30', '>2419.6', null, '10', '>2419.6']),
  row('separable', '20 30 40 50 60 <10×2 >2419.6', 'km', B, ['<10', '30', '>2419.6', null, '<10', '>2419.6']),
  row('> among detects, case R', '1 50 300 500 1000 <1 >200×2', 'km', B, ['<1', '300', '1000', '381.5', '<1', '1000']),
  none('overlap', '3 50 900 <10 >200', 'left- and right-censored results overlap', '3', '900'),
];

/** §9: every one `km`, `left-censored results`. */
export const WORKED_EXAMPLES: readonly KmCase[] = [
  row('NADA DFe', '20 <10 <10 <10 <10 7 3 <3 <3', 'km', L, ['<3', '3', '20', '5.777778', '<3', '20']),
  row(
    'NADA Atrazine, June',
    '0.38 0.04 <0.01 0.03 0.03 0.05 0.02 <0.01 <0.01 <0.01 0.11 0.09 <0.01 <0.01 <0.01 <0.01 0.02 0.03 0.02 0.02 0.05 0.03 0.05 <0.01',
    'km', L, ['<0.01', '0.02', '0.09', '0.04791667', '<0.01', '0.38'],
  ),
  row(
    'NADA Atrazine, September',
    '2.66 0.63 0.59 0.05 0.84 0.58 0.02 <0.01 <0.01 <0.01 0.09 0.31 0.02 <0.01 0.5 0.03 0.09 0.06 0.03 <0.01 0.1 0.25 0.03 88.36',
    'km', L, ['<0.01', '0.06', '0.84', '3.9725', '<0.01', '88.36'],
  ),
  row('Beal (2010) lead', '<1 <1 2 2.5 2.8 <3 3.4 3.9 <4 <4 <4 4.5 4.9 5.5 5.5 5.5 <6 6.7 6.9 7.4 <9 9.5 <10 <10 10 15 49 200 9060', 'km', L, [
    '<1', '4.5', '49', '325.339571', '<1', '9060',
  ]),
  row('EPA (2009) manganese', '<5 12.1 16.9 21.6 <2 <5 7.7 53.6 9.5 45.9 <5 5.3 12.6 106.3 34.5 6.3 11.9 10 <2 77.2 17.9 22.7 3.3 8.4 <2', 'km', L, [
    '<2', '10', '53.6', '20.14', '<2', '106.3',
  ]),
  row(
    'Helsel & Cohn (1988) silver',
    '0.8 0.1 2 0.2 <5 <1 <2 <25 2.7 <1 1.2 3.2 <20 <10 <5 <0.1 <10 <1 2 <5 560 <0.2 <20 <1 1 10 <10 <5 <0.5 1.4 <0.2 <6 1 <10 0.1 5 2 1 <1 4.4 90 <20 <0.3 <2.5 <10 0.7 <1 1.5 <1 <0.2 2 <0.2 <1 <1 <1 <0.1',
    'km', L, ['<0.1', '0.2', '4.4', '12.668342', '<0.1', '560'],
  ),
];

/** Atrazine over both months: the two vectors as one group. */
export const ATRAZINE_BOTH: KmCase = row(
  'NADA Atrazine, both months',
  `${WORKED_EXAMPLES[1]!.values} ${WORKED_EXAMPLES[2]!.values}`,
  'km', L, ['<0.01', '0.03', '0.59', '2.010208', '<0.01', '88.36'],
);
