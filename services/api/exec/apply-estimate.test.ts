/**
 * The estimate of an `$apply` before it runs (issue 56 item 1), on the shared fixture file: the rows it reads are the
 * rows it aggregates, its groups bound the groups it makes, and past MAX_APPLY_GROUPS it is refused before its GROUP BY.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSnapshot, type Snapshot } from '../db/snapshot.js';
import { ApiError } from '../errors.js';
import { apply } from '../testing/plans.js';
import { estimateApply } from './apply-estimate.js';
import { execute, type ApplyResult } from './execute.js';

let snapshot: Snapshot;
const signal = new AbortController().signal;

beforeAll(async () => {
  snapshot = await openSnapshot(inject('apiFixtureDb'));
});
afterAll(() => snapshot.close());

/** Every group of a query (up to 10,000), run. */
async function groupsOf(resource: string, qs: string): Promise<ApplyResult> {
  return (await execute(apply(resource, `${qs}&$top=10000`), snapshot, signal)) as ApplyResult;
}

describe('estimateApply', () => {
  it.each([
    ['Records', '$apply=groupby((CharacteristicName,ActivityStartYear),aggregate($count as N))'],
    ['Observations', '$apply=groupby((LocationId,ResultUnit),aggregate(ResultValue with Tributary.median as M))'],
    ['Records', "$apply=groupby((RegionId,CharacteristicName),aggregate($count as N))&$filter=ActivityStartYear ge 2010"],
    ['GuidelineComparisons', '$apply=groupby((Verdict,GuidelineId),aggregate($count as N))'],
  ])('%s %s: at least the groups it makes, at most the rows it reads', async (resource, qs) => {
    const estimate = await estimateApply(apply(resource, qs), snapshot, signal);
    const result = await groupsOf(resource, qs);
    expect(result.hasNext).toBe(false);
    expect(estimate.groups).toBeGreaterThanOrEqual(result.groups.length);
    expect(estimate.groups).toBeLessThanOrEqual(estimate.rowsRead);
    expect(result.rowsRead).toBe(estimate.rowsRead);
  });

  it('the rows a percentile reads are the observations it aggregates: their count', async () => {
    const qs = "$apply=groupby((CharacteristicName),aggregate(ResultValue with Tributary.median as M,$count as N))&$filter=ActivityStartYear ge 2010";
    const [estimate, counted] = await Promise.all([estimateApply(apply('Observations', qs), snapshot, signal), groupsOf('Observations', qs)]);
    expect(estimate.rowsRead).toBe(counted.groups.reduce((n, g) => n + Number(g.values[1]), 0));
  });

  it('a field the filter pins counts the values it is pinned to', async () => {
    const free = await estimateApply(apply('Records', '$apply=groupby((CharacteristicName,ActivityStartYear))'), snapshot, signal);
    const pinned = await estimateApply(apply('Records', "$apply=groupby((CharacteristicName,ActivityStartYear))&$filter=CharacteristicName in ('pH','Dissolved oxygen (DO)') and ActivityStartYear eq 2015"), snapshot, signal);
    expect(free.fields.map((f) => f.name)).toEqual(['CharacteristicName', 'ActivityStartYear']);
    expect(free.fields.every((f) => f.values > 2)).toBe(true);
    expect(pinned.fields.map((f) => f.values)).toEqual([2, 1]);
  });
});

describe('execute: MAX_APPLY_GROUPS', () => {
  const bomb = apply('Observations', '$apply=groupby((LocationId,CharacteristicName,ActivityStartYear,ResultUnit),aggregate(ResultValue with Tributary.median as M))');

  it('refuses an $apply estimated past it before its GROUP BY runs, naming the estimate, the limit and the remedies', async () => {
    const ran: string[] = [];
    const watched = new Proxy(snapshot, {
      get: (target, name, receiver) => (name === 'columns' ? (q: { sql: string }, s?: AbortSignal) => (ran.push(q.sql), target.columns(q as never, s)) : Reflect.get(target, name, receiver) as unknown),
    });
    const err = await execute(bomb, watched, signal, { maxApplyGroups: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('apply_too_large');
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toMatch(/^This \$apply would make about \d+ groups \(values of each grouped field: LocationId \d+ × CharacteristicName \d+ × ActivityStartYear \d+ × ResultUnit \d+, capped by the \d+ rows it reads\); one request makes at most 1000 \(MAX_APPLY_GROUPS\)\. Filter to fewer rows or values/);
    expect(ran.some((sql) => sql.includes('quantile_cont'))).toBe(false);
  });

  it('answers the same $apply under a limit above its estimate', async () => {
    const estimate = await estimateApply(bomb, snapshot, signal);
    const result = await execute(bomb, snapshot, signal, { maxApplyGroups: estimate.groups });
    expect(result.kind).toBe('apply');
  });
});
