import { describe, expect, it } from 'vitest';
import { getResource } from '../../../schemas/index.js';
import { parseQuery } from '../odata/index.js';
import { compileMembershipRanges } from './compile-membership-ranges.js';
import { clipRanges, mergeRanges, splitMemberships } from './membership.js';
import { planQuery, type PagePlan } from './plan.js';

const where = (filter: string) =>
  (planQuery(parseQuery(`$filter=${encodeURIComponent(filter)}`), getResource('Records')!) as PagePlan).where;

describe('splitMemberships', () => {
  it('takes positive region conjuncts out of an AND chain and keeps the rest', () => {
    const { memberships, rest } = splitMemberships(where("RegionId eq 'a' and CharacteristicName eq 'pH' and RegionId in ('b','c')"));
    expect(memberships.map((m) => m.kind)).toEqual(['compare', 'in']);
    expect(rest).toMatchObject({ kind: 'compare', dim: { name: 'CharacteristicName' } });
  });

  it.each(["RegionId ne 'a'", "RegionId eq 'a' or LocationId eq 1", "not (RegionId eq 'a')"])('leaves %s to the general path', (f) => {
    expect(splitMemberships(where(f)).memberships).toHaveLength(0);
  });
});

describe('ranges', () => {
  it('merges touching and overlapping ranges in order', () => {
    expect(mergeRanges([[11n, 20n], [1n, 10n], [30n, 40n], [35n, 36n]])).toEqual([[1n, 20n], [30n, 40n]]);
  });
  it('clips to a window', () => {
    expect(clipRanges([[1n, 20n], [30n, 40n], [50n, 60n]], 15n, 35n)).toEqual([[15n, 20n], [30n, 35n]]);
  });
  it('binds region values, never pastes them', () => {
    const q = compileMembershipRanges(splitMemberships(where("RegionId eq 'x'' OR 1=1 --'")).memberships);
    expect(q.sql).not.toContain('OR 1=1');
    expect(q.params).toEqual(["x' OR 1=1 --"]);
  });
});
