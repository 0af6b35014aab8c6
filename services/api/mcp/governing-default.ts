/**
 * An assistant asking how many results exceed a guideline means one verdict per result: on GuidelineComparisons, a
 * filter or `$apply` that does not name `Governing` reads the governing comparisons only (one per result,
 * publisher and term; docs/guidelines.md, "One verdict per result"), and the answer says so in its `note`. Naming
 * `Governing` (e.g. `Governing eq false`, or `Governing eq true or Governing eq false` for every comparison) keeps
 * the filter as given.
 */

const RESOURCE = 'GuidelineComparisons';
export const GOVERNING_FILTER = 'Governing eq true';
export const GOVERNING_NOTE =
  'Read the governing comparisons only (Governing eq true): one per result, publisher and term, the most protective guideline with a verdict. ' +
  "Each row's Alternatives names the other guidelines it stands among; name Governing in the filter to read them too.";

/** True when the text names the field `Governing` outside its string literals. */
function namesGoverning(text: string): boolean {
  return /\bGoverning\b/.test(text.replace(/'(?:[^']|'')*'/g, "''"));
}

/** The `$filter` a tool sends for `resource`, and the note to add to its answer when it chose the governing rows. */
export function governingFilter(resource: string, filter: string | undefined): { readonly filter: string | undefined; readonly note?: string } {
  if (resource !== RESOURCE || (filter !== undefined && namesGoverning(filter))) return { filter };
  return { filter: filter ? `(${filter}) and ${GOVERNING_FILTER}` : GOVERNING_FILTER, note: GOVERNING_NOTE };
}

/**
 * The `$apply` the aggregate tool sends for `resource`: when it names no `Governing`, its `filter(…)` step (one at
 * most, first) with the governing rows' condition added, or that step put first.
 */
export function governingApply(resource: string, apply: string): { readonly apply: string; readonly note?: string } {
  if (resource !== RESOURCE || namesGoverning(apply)) return { apply };
  const close = /^\s*filter\(/.test(apply) ? closingParen(apply, apply.indexOf('(')) : -1;
  if (close < 0) return { apply: `filter(${GOVERNING_FILTER})/${apply}`, note: GOVERNING_NOTE };
  const condition = apply.slice(apply.indexOf('(') + 1, close);
  return { apply: `filter((${condition}) and ${GOVERNING_FILTER})${apply.slice(close + 1)}`, note: GOVERNING_NOTE };
}

/** The index of the parenthesis closing the one at `open`, string literals skipped; -1 when none does. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      i = text.indexOf("'", i + 1);
      while (i >= 0 && text[i + 1] === "'") i = text.indexOf("'", i + 2);
      if (i < 0) return -1;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}
