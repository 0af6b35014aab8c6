/**
 * The repository paths a Markdown page names, so a test can check that each one exists. A doc that names a file
 * after it moved or was deleted reads as true and is not: links are checked by links.test.ts, but most paths sit in
 * backticks (`services/api/query/source.ts`, `previous.ts`), and those went stale unseen.
 *
 * Two kinds are recognised, to keep false alarms out rather than to find every path:
 * - rooted: the first segment is a top-level folder of the repository (`ingest/previous.ts`, `scripts/ops/`); it
 *   must exist as written, file or folder.
 * - relative: a file name with a source extension (`compile-page.ts`, `db/extract/copy-export.ts`), written beside
 *   the folder it lives in; it must end some path of the tree.
 * Globs, placeholders (`<id>`, `…`, `your-script.mjs`), URLs, `$variables` and paths outside the repository (`../shared/…`, `/tmp/…`)
 * are skipped. Rooted tokens are read from inline code, link targets and fenced shell blocks (a command names its
 * script); relative ones from inline code only.
 */

export interface DocPath {
  /** 1-based line of the page. */
  readonly line: number;
  readonly path: string;
  readonly kind: 'rooted' | 'relative';
}

/** Source files a doc names by their bare name; runtime files (`manifest.json`, `tributary.duckdb`) are not here. */
const SOURCE_FILE = /^[\w.\-/]*[\w-]\.(ts|sh|sql|py|mjs|R|md|cfg|yml|geojson|css)$/;
const SKIP = /:\/\/|[<>*{}[\]$…?@~%]|^\.\.?\/|^\/|^(your|my)[-_]/;

/** Tokens of one code span or command line: split where a path cannot continue. */
function tokens(text: string): string[] {
  return text
    .split(/[\s=(),;'"`|]+/)
    .map((t) => t.replace(/:\d+$/, '').replace(/[.,:;]+$/, ''))
    .filter(Boolean);
}

function classify(token: string, topLevel: ReadonlySet<string>, allowRelative: boolean): DocPath['kind'] | undefined {
  if (SKIP.test(token) || !token.includes('/') && !SOURCE_FILE.test(token)) return undefined;
  if (token.includes('/') && topLevel.has(token.split('/')[0]!)) return 'rooted';
  return allowRelative && SOURCE_FILE.test(token) ? 'relative' : undefined;
}

/**
 * @example docPaths('See `ingest/previous.ts` and `merge.ts`.', new Set(['ingest']))
 *   // [{ line: 1, path: 'ingest/previous.ts', kind: 'rooted' }, { line: 1, path: 'merge.ts', kind: 'relative' }]
 */
export function docPaths(markdown: string, topLevel: ReadonlySet<string>): DocPath[] {
  const out: DocPath[] = [];
  let fence: { marker: string; shell: boolean } | undefined;
  markdown.split(/\r?\n/).forEach((text, i) => {
    const line = i + 1;
    const add = (token: string, allowRelative: boolean) => {
      const kind = classify(token, topLevel, allowRelative);
      if (kind) out.push({ line, path: token, kind });
    };
    const opening = /^\s*(`{3,}|~{3,})\s*(\S*)/.exec(text);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence.marker) && !opening[2]) fence = undefined;
      else if (fence.shell) for (const t of tokens(text.replace(/#.*$/, ''))) add(t, false);
      return;
    }
    if (opening) {
      fence = { marker: opening[1]!, shell: /^(sh|bash|shell|console)?$/.test(opening[2]!) };
      return;
    }
    for (const [, span] of text.matchAll(/`([^`]+)`/g)) for (const t of tokens(span!)) add(t, true);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) add(target!.split('#')[0]!, false);
  });
  return out;
}
