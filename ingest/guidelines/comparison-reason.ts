/**
 * SQL of a comparison's `Reason` (docs/guidelines.md, "Verdicts"): one sentence, clauses joined by `; `, whenever
 * the verdict is not a plain comparison of a value with its bounds; NULL when it is. Reads the columns of
 * comparisons.ts's last step (the bounds in the result's unit, the verdict, the formula's sentences).
 */

const num = (x: string) => `CAST(round(${x}, 6) AS VARCHAR)`;

/** The guideline as a sentence names it: its bound (or range) in the result's unit. */
const bound = `CASE Bound WHEN 'maximum' THEN ${num('U')} WHEN 'minimum' THEN ${num('L')} ELSE ${num('L')} || '–' || ${num('U')} END || ' ' || coalesce(r_unit, '')`;

/** What a non-detect's or an over-range result's limit says against the guideline. */
const limitSentence = `CASE
    WHEN d IS NULL THEN "ResultDetectionCondition" || ': its limit''s unit ' || coalesce(limit_unit, '(none)') || ' does not convert to ' || r_unit
    WHEN Verdict = 'meets' THEN "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is within the guideline (' || ${bound} || ')'
    WHEN Verdict = 'exceeds' THEN "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is outside the guideline (' || ${bound} || ')'
    WHEN Bound = 'range' AND above THEN "ResultDetectionCondition" || ': a lower limit (' || ${num('d')} || ' ' || r_unit || ') cannot place a result within a range (' || ${bound} || ')'
    ELSE "ResultDetectionCondition" || ': its limit ' || ${num('d')} || ' ' || r_unit || ' is ' || CASE WHEN below THEN 'above' ELSE 'below' END || ' the guideline (' || ${bound} || '), so the result may or may not exceed it'
  END`;

/**
 * A result of an ambiguous characteristic, or with nothing to compare, says so alone; otherwise each sentence that
 * applies, in this order.
 */
const nothing = `"ResultValue" IS NULL AND (limit_value IS NULL OR NOT coalesce(below OR above, false))`;

export const reasonSql = `CASE WHEN ambiguity IS NOT NULL THEN ambiguity WHEN ${nothing} THEN coalesce("ResultDetectionCondition" || ': no value or limit to compare', 'no value and no detection condition') ELSE NULLIF(concat_ws('; ',
    CASE WHEN r_unit IS NULL THEN 'the result has no unit'
         WHEN NOT converts THEN 'unit ' || r_unit || ' does not convert to the guideline''s unit ' || CASE WHEN g_unit = '' THEN '(none)' ELSE g_unit END END,
    CASE WHEN is_formula AND lo_g IS NULL AND hi_g IS NULL THEN coalesce(missing, 'the inputs fall outside every case of the formula') END,
    CASE WHEN is_formula AND (lo_g IS NOT NULL OR hi_g IS NOT NULL) AND missing IS NOT NULL THEN missing || ': the value the guideline gives without it is used' END,
    CASE WHEN is_formula AND len(clamps) > 0 THEN array_to_string(clamps, '; ') END,
    CASE WHEN bounded AND "ResultValue" IS NULL THEN ${limitSentence} END), '') END`;
