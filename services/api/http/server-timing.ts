/**
 * `Server-Timing` (W3C Server Timing) for one response: each stage's own duration in milliseconds, in the order the
 * request went through them, so a client (or a browser's devtools) sees where its time went without our logs.
 */
export interface StageTimer {
  /** Ends the stage running since the previous mark (or since the timer started) and names it. */
  mark(stage: string): void;
  /** `parse;dur=0.1, plan;dur=0.0, …`: every stage marked so far. */
  header(): string;
}

/**
 * @example
 * const timing = stageTimer(); parse(); timing.mark('parse'); plan(); timing.mark('plan');
 * c.header('Server-Timing', timing.header()); // "parse;dur=0.2, plan;dur=0.1"
 */
export function stageTimer(now: () => number = () => performance.now()): StageTimer {
  let last = now();
  const stages: string[] = [];
  return {
    mark(stage) {
      const t = now();
      stages.push(`${stage};dur=${(t - last).toFixed(1)}`);
      last = t;
    },
    header: () => stages.join(', '),
  };
}
