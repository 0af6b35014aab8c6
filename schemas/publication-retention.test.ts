import { describe, expect, it } from 'vitest';
import { PUBLICATIONS_KEPT, retainedPublications } from './publication-retention.js';

const now = new Date('2026-11-26T12:00:00Z');
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

describe('retainedPublications', () => {
  it('keeps the newest three whatever their age, and older ones only within the retention', () => {
    const ids = [
      { id: 'a', stoppedAt: ago(300) },
      { id: 'b', stoppedAt: ago(90) },
      { id: 'c', stoppedAt: ago(30) },
      { id: 'd', stoppedAt: ago(200) },
      { id: 'e', stoppedAt: ago(100) },
      { id: 'f' },
    ];
    expect([...retainedPublications(ids, now, 60 * 60_000)].sort()).toEqual(['c', 'd', 'e', 'f']);
    expect([...retainedPublications(ids, now, 0)].sort()).toEqual(['d', 'e', 'f']);
    expect(retainedPublications(ids, now, 400 * 60_000).size).toBe(ids.length);
  });

  it('keeps the current one alone, and fewer than three when fewer exist', () => {
    expect([...retainedPublications([{ id: 'only' }], now, 0)]).toEqual(['only']);
    expect(PUBLICATIONS_KEPT).toBe(3);
  });
});
