import { describe, expect, it } from 'vitest';
import { capacityClients, percentile, serverTiming, timeSplit } from './section-capacity.js';

describe('§C capacity helpers', () => {
  it('reads Server-Timing stages as the API writes them', () => {
    expect(serverTiming('parse;dur=0.1, plan;dur=0.0, execute;dur=4.2, first-byte;dur=61.3')).toEqual({ parse: 0.1, plan: 0, execute: 4.2, 'first-byte': 61.3 });
    expect(serverTiming(undefined)).toEqual({});
  });

  it('takes percentiles by nearest rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('splits a request into waiting before the stages, the stages and the body; refused requests are left out', () => {
    const sample = (headersMs: number, ms: number, status = 200) => ({ client: 0, ms, headersMs, status, amount: 1, stages: { execute: 10, 'first-byte': 20 } });
    const split = timeSplit([sample(130, 530), sample(230, 730), sample(5, 5, 429)]);
    expect(split).toEqual({ 'waiting (limits, query gate: TTFB beyond Server-Timing)': 150, execute: 10, 'first-byte': 20, body: 450 });
  });

  it('reads BENCH_CAPACITY_CLIENTS', () => {
    expect(capacityClients(undefined)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(capacityClients('1, 3')).toEqual([1, 3]);
    expect(() => capacityClients('0,2')).toThrow(/positive integers/);
  });
});
