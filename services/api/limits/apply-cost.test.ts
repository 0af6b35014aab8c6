import { describe, expect, it } from 'vitest';
import { applyCost, DEFAULT_APPLY_ROWS_READ_PER_ROW } from './apply-cost.js';

describe('applyCost', () => {
  it.each([
    ['a median over ten million observations: its rows read, not its 40 groups', { rowsRead: 10_000_000, groups: 40 }, undefined, 10_000],
    ['a count from a small rollup: at least the groups it sends', { rowsRead: 500, groups: 40 }, undefined, 40],
    ['a part of a row read is a whole row of the budget', { rowsRead: 1001, groups: 1 }, undefined, 2],
    ['one row read is one row of the budget at ratio 1', { rowsRead: 12_345, groups: 3 }, 1, 12_345],
    ['nothing read, nothing returned', { rowsRead: 0, groups: 0 }, undefined, 0],
  ])('%s', (_name, result, ratio, cost) => {
    expect(applyCost(result, ratio)).toBe(cost);
  });

  it('the default is the documented 1000', () => {
    expect(DEFAULT_APPLY_ROWS_READ_PER_ROW).toBe(1000);
  });
});
