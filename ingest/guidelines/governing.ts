/**
 * The governing step (docs/guidelines.md, "One verdict per result"): a result is compared with every guideline that
 * applies to it, and several of one publisher may apply for the same term (dissolved oxygen's life stages,
 * warm- and cold-water biota). Of those, the one that decides the result's verdict governs: the most protective of
 * the comparisons with a determinate verdict (meets or exceeds), else of all of them. The water quality index reads
 * the governing long-term comparisons: this is the one place the rule is written.
 */

/** A ProtectionLevel's term: short-term (Acute…), long-term (Chronic…), or the level itself (each sediment level). */
export function termSql(level: string): string {
  return `CASE WHEN ${level} LIKE 'Acute%' THEN 'short-term' WHEN ${level} LIKE 'Chronic%' THEN 'long-term' ELSE ${level} END`;
}

/**
 * The comparisons one governs among, in order, governing first: a determinate verdict before an indeterminate one;
 * then the most protective bound (in the result's unit: the lowest maximum, else the highest minimum); then the
 * lowest GuidelineId, so that ties always resolve alike.
 */
const among = `PARTITION BY ObservationId, Publisher, Term ORDER BY Verdict = 'indeterminate', U ASC NULLS LAST, L DESC NULLS LAST, GuidelineId`;

/** An alternative as `Alternatives` names it: its Id and ProtectionLevel, the governing one marked. */
const alternative = `(x, i) -> CASE WHEN x.id <> GuidelineId THEN x.id || ' ' || x.level || CASE WHEN i = 1 THEN ' (governing)' ELSE '' END END`;

/**
 * SQL of the CTEs ending in `named`, over the comparisons `from` (ObservationId, GuidelineId, Publisher,
 * ProtectionLevel, Verdict, the bounds L and U in the result's unit): each row with its Term, whether it governs,
 * and its Alternatives, the other guidelines of its publisher and term for the same result, in the order above.
 */
export function governedSql(from: string, named: string): string {
  return `${named}_term AS (SELECT ${from}.*, ${termSql('ProtectionLevel')} AS Term FROM ${from}),
     ${named}_among AS (
       SELECT ${named}_term.*, row_number() OVER gov = 1 AS Governing,
         list({'id': GuidelineId, 'level': ProtectionLevel}) OVER (gov ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS stood
       FROM ${named}_term WINDOW gov AS (${among})
     ),
     ${named} AS (
       SELECT * EXCLUDE (stood),
         CASE WHEN len(stood) > 1 THEN array_to_string(list_filter(list_transform(stood, ${alternative}), s -> s IS NOT NULL), '; ') END AS Alternatives
       FROM ${named}_among
     )`;
}
