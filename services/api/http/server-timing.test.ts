import { describe, expect, it } from 'vitest';
import { stageTimer } from './server-timing.js';

describe('stageTimer', () => {
  it('gives each stage its own duration, in order, from a clock it is handed', () => {
    const clock = [10, 10.25, 12, 42.04];
    const timing = stageTimer(() => clock.shift()!);
    timing.mark('parse');
    timing.mark('plan');
    timing.mark('execute');
    expect(timing.header()).toBe('parse;dur=0.3, plan;dur=1.8, execute;dur=30.0');
  });
});
