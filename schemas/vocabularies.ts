import { upstreamColumns, upstreamVocabularies, type VocabularyName } from './upstream.js';

export type { VocabularyName } from './upstream.js';

/** The controlled vocabularies of the DataStream upload schema: upstream's value lists (schemas/upstream/). */
export const vocabularies: Readonly<Record<VocabularyName, readonly string[]>> = upstreamVocabularies;

/**
 * Every upload column whose non-empty values must belong to a vocabulary, as upstream's definitions say (each unit
 * column has its own list). Columns not listed here are free text or typed (numbers, dates, times).
 */
export const vocabularyOfColumn: Readonly<Record<string, VocabularyName>> = Object.freeze(
  Object.fromEntries(upstreamColumns.flatMap((c) => (c.vocabulary ? [[c.name, c.vocabulary] as const] : []))),
);

const sets = new Map<VocabularyName, ReadonlySet<string>>();

/** Whether `value` belongs to the vocabulary (exact, case-sensitive match). Sets are built on first use. */
export function inVocabulary(name: VocabularyName, value: string): boolean {
  let set = sets.get(name);
  if (!set) {
    set = new Set(vocabularies[name]);
    sets.set(name, set);
  }
  return set.has(value);
}
