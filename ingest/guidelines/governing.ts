/**
 * The governing verdicts (docs/guidelines.md, "One verdict per result"): a result is compared with every guideline
 * that applies to it, and several of one publisher may apply for the same term (dissolved oxygen's life stages,
 * warm- and cold-water biota). Of those, the one that decides the result's verdict governs: the most protective of
 * the comparisons with a determinate verdict (meets or exceeds), else of all of them. The water quality index reads
 * the governing long-term comparisons: this is the one place the rule is written.
 */

/** SQL: a ProtectionLevel's term: short-term (Acute…), long-term (Chronic…), or the level itself (each sediment level). */
export function termSql(level: string): string {
  return `CASE WHEN ${level} LIKE 'Acute%' THEN 'short-term' WHEN ${level} LIKE 'Chronic%' THEN 'long-term' ELSE ${level} END`;
}

/**
 * SQL: a comparison's rank among the comparisons (ObservationId, GuidelineId, Publisher, Term, Verdict, the bounds L
 * and U in the result's unit) of its result, publisher and term; rank 1 governs. Governing first: a determinate
 * verdict before an indeterminate one; then the most protective bound (the lowest maximum, else the highest
 * minimum); then the lowest GuidelineId, so that ties always resolve alike.
 */
export const governingRankSql = `row_number() OVER (PARTITION BY ObservationId, Publisher, Term ORDER BY Verdict = 'indeterminate', U ASC NULLS LAST, L DESC NULLS LAST, GuidelineId)`;

/** SQL: whether a comparison governs (its rank is 1), over the same columns. */
export const governingSql = `${governingRankSql} = 1`;

/**
 * SQL: a guideline's Alternatives among the guidelines (GuidelineId, ProtectionLevel) that apply alike, the rows
 * `alike` partitions by (the same result's pairing, publisher and term): the others, in Id order, as
 * `Id ProtectionLevel`; NULL when it stands alone. What applies depends on the pairing only, so this is computed
 * once per pairing, not per result.
 */
export function alternativesSql(alike: string): string {
  const stood = `list({'id': GuidelineId, 'level': ProtectionLevel}) OVER (PARTITION BY ${alike})`;
  const others = `list_filter(list_sort(${stood}), x -> x.id <> GuidelineId)`;
  return `NULLIF(array_to_string(list_transform(${others}, x -> x.id || ' ' || x.level), '; '), '')`;
}
