/**
 * A clock that moves only when a test says so: idle timeouts fire on `advance`, never because the machine was slow.
 */
import type { IdleClock } from '../db/extract/extract.js';

export interface ManualClock extends IdleClock {
  /** Moves time forward, firing every timer that falls due, in order. */
  advance(ms: number): void;
}

export function manualClock(start = 0): ManualClock {
  let now = start;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => now,
    after(ms, fn) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return { cancel: () => (timers = timers.filter((t) => t !== timer)) };
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at);
      timers = timers.filter((t) => t.at > now);
      for (const t of due) t.fn();
    },
  };
}
