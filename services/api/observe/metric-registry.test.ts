/** The registry's series as prometheus_client's parser reads them. */
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../../scripts/testing/prometheus-parse.js';
import { metricRegistry } from './metric-registry.js';

describe('metricRegistry', () => {
  it('keeps one series per label combination, and histogram buckets cumulative', () => {
    const r = metricRegistry();
    const c = r.counter('req_total', 'Requests.', ['family', 'status']);
    const g = r.gauge('in_flight', 'In flight.', ['family']);
    const h = r.histogram('dur_seconds', 'Durations.', ['family'], [0.1, 1]);
    c.inc({ family: 'odata', status: '200' });
    c.inc({ family: 'odata', status: '200' }, 2);
    c.inc({ family: 'export', status: '429' });
    g.inc({ family: 'export' });
    g.inc({ family: 'export' });
    g.dec({ family: 'export' });
    for (const v of [0.05, 0.5, 0.7, 3]) h.observe({ family: 'odata' }, v);
    r.collect(() => [{ name: 'scraped', help: 'Read at scrape.', type: 'gauge', samples: [{ value: 7 }] }]);
    const families = parsePrometheusText(r.render());
    expect(sampleValue(families, 'req_total', { family: 'odata', status: '200' })).toBe(3);
    expect(sampleValue(families, 'req_total', { family: 'export', status: '429' })).toBe(1);
    expect(sampleValue(families, 'in_flight', { family: 'export' })).toBe(1);
    expect(['0.1', '1', '+Inf'].map((le) => sampleValue(families, 'dur_seconds_bucket', { family: 'odata', le }))).toEqual([1, 3, 4]);
    expect(sampleValue(families, 'dur_seconds_count', { family: 'odata' })).toBe(4);
    expect(sampleValue(families, 'dur_seconds_sum', { family: 'odata' })).toBeCloseTo(4.25);
    expect(sampleValue(families, 'scraped')).toBe(7);
  });

  it('refuses what would make an invalid or unbounded exposition', () => {
    const r = metricRegistry();
    expect(() => r.counter('requests', 'No _total.', [])).toThrow(/_total/);
    r.gauge('twice', 'T.', []);
    expect(() => r.gauge('twice', 'T.', [])).toThrow(/twice/);
    expect(() => r.histogram('h', 'H.', ['le'], [1])).toThrow(/le/);
    expect(() => r.histogram('h2', 'H.', [], [1, 0.5])).toThrow(/ascend/);
    const c = r.counter('c_total', 'C.', ['a']);
    expect(() => c.inc({ a: 'x' }, -1)).toThrow(/cannot go down/);
    expect(() => c.inc({} as { a: string })).toThrow(/label a missing/);
  });
});
