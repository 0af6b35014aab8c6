/**
 * The import rules docs/architecture.md states, each checked against the imports of every source file (tests
 * included unless a rule says otherwise): the boundaries hold because a change that breaks one fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImports } from './import-graph.js';

const ROOT = join(import.meta.dirname, '..', '..');
const graph = readImports(ROOT, ['services', 'ingest', 'schemas', 'scripts']);
const isTest = (file: string) => /\.test\.ts$/.test(file);

interface Rule {
  readonly rule: string;
  /** The files the rule is about. */
  readonly from: RegExp;
  /** What they must not import. */
  readonly forbid: RegExp;
  /** Tests of these files may reach past the rule (they check internals). */
  readonly testsExempt?: boolean;
}

const API = 'services/api';
/** ingest/'s stages (pipeline.ts), each one file; load's sub-step and every helper are outside the list. */
const INGEST_STAGES = /^ingest\/(read|ingest-build|load|derive|statistics|guidelines-stage|trends-stage|dataset-files-stage|publish-ingest)\.ts$/;
const IMPORT_RULES: readonly Rule[] = [
  { rule: 'services/api never imports ingest/ (they meet only in schemas/)', from: /^services\/api\//, forbid: /^ingest\// },
  { rule: 'ingest/ never imports services/ (they meet only in schemas/)', from: /^ingest\//, forbid: /^services\// },
  { rule: 'ingest/ stages stand side by side: no stage imports another (what they share is in stage-parts.ts)', from: INGEST_STAGES, forbid: INGEST_STAGES },
  { rule: 'the board imports nothing of ours outside services/board/', from: /^services\/board\//, forbid: /^(?!services\/board\/)/ },
  { rule: 'schemas/ imports only schemas/', from: /^schemas\//, forbid: /^(?!schemas\/)/ },
  { rule: 'scripts/ are imported by nothing but scripts/', from: /^(services|ingest|schemas)\//, forbid: /^scripts\//, testsExempt: true },
  { rule: 'odata/ knows nothing of the catalogue or of later stages', from: new RegExp(`^${API}/odata/`), forbid: new RegExp(`^(schemas/|${API}/(query|exec|db|stream|routes)/)`) },
  { rule: 'cql2/ is a parser beside odata/: it imports only odata/, assert-never.ts and its own files', from: new RegExp(`^${API}/cql2/`), forbid: new RegExp(`^(?!${API}/(cql2|odata)/|${API}/assert-never\\.ts$)`), testsExempt: true },
  { rule: 'query/ never imports db/, exec/, stream/ or routes/', from: new RegExp(`^${API}/query/`), forbid: new RegExp(`^${API}/(db|exec|stream|routes)/`) },
  { rule: 'exec/ knows nothing of HTTP: not routes/, stream/ or middleware/', from: new RegExp(`^${API}/exec/`), forbid: new RegExp(`^${API}/(routes|stream|middleware)/`) },
  { rule: 'routes/, pages/ and downloads/ call the stages; they never compile SQL', from: new RegExp(`^${API}/(routes|pages|downloads)/`), forbid: new RegExp(`^${API}/query/(compile|sql)`) },
  { rule: 'routes/ imports neither pages/ nor downloads/: the handler folders stand apart', from: new RegExp(`^${API}/routes/`), forbid: new RegExp(`^${API}/(pages|downloads)/`) },
  { rule: 'downloads/ imports neither pages/ nor routes/', from: new RegExp(`^${API}/downloads/`), forbid: new RegExp(`^${API}/(pages|routes)/`) },
  { rule: 'pages/ imports no routes/ (it reads downloads/\' file links, never the reverse: no circle)', from: new RegExp(`^${API}/pages/`), forbid: new RegExp(`^${API}/routes/`) },
  { rule: 'ogc/ calls the stages as routes/ do; it never compiles SQL', from: new RegExp(`^${API}/ogc/`), forbid: new RegExp(`^${API}/query/(compile|sql)`) },
  { rule: 'only db/extract/extract.ts is imported from outside db/extract/', from: new RegExp(`^(?!${API}/db/extract/)`), forbid: new RegExp(`^${API}/db/extract/(?!extract\\.ts$)`) },
  { rule: 'the edge (http/) imports no handler folder: handlers stand on it, so a new one changes nothing under it', from: new RegExp(`^${API}/http/`), forbid: new RegExp(`^${API}/(routes|ogc|pages|downloads)/`) },
  { rule: 'ogc/ imports no routes/, pages/ or downloads/: paths, links and the lease come from the edge', from: new RegExp(`^${API}/ogc/`), forbid: new RegExp(`^${API}/(routes|pages|downloads)/`) },
  { rule: 'metadata/ (discovery documents) imports no handler: it reads paths from the edge', from: new RegExp(`^${API}/metadata/`), forbid: new RegExp(`^${API}/(routes|ogc|pages|downloads)/`) },
  { rule: 'middleware/ imports no handler folder: a route\'s policy is its row (http/route-table.ts), never a list of handler paths', from: new RegExp(`^${API}/middleware/`), forbid: new RegExp(`^${API}/(routes|ogc|pages|downloads|citation|metadata|explore)/`) },
];

interface ContentRule {
  readonly rule: string;
  /** The files searched, among the API's production code (tests and testing/ set up their own snapshots). */
  readonly files: RegExp;
  readonly pattern: RegExp;
  /** The only files allowed to hold it. */
  readonly allowed: readonly string[];
}

const CONTENT_RULES: readonly ContentRule[] = [
  {
    rule: "only the lease takes a snapshot (acquire()): every data request gets its ETag, deadline, publication and one release the same way; main.ts hands the database's acquire to the app",
    // db/ defines the snapshot's acquire (and acquirer, the app's), and its pool of extract pipes has one of the same name.
    files: new RegExp(`^${API}/(?!db/)`),
    pattern: /\.acquire\(\)|\.acquirePinned\(|\bacquirer\(|deps\.acquire\(/,
    allowed: [`${API}/http/lease.ts`, `${API}/main.ts`],
  },
  {
    rule: 'one HTML template: only http/html-template.ts defines the escaping template every page uses',
    files: new RegExp(`^${API}/`),
    pattern: /export function (html|escapeHtml)\b/,
    allowed: [`${API}/http/html-template.ts`],
  },
  {
    rule: 'one SVG map: only http/svg-map.ts draws an <svg>',
    files: new RegExp(`^${API}/`),
    pattern: /<svg\b/,
    allowed: [`${API}/http/svg-map.ts`],
  },
  {
    rule: 'one page shell: only http/page-shell.ts writes a document (and the explorer, an app page with its own script and CSP)',
    files: new RegExp(`^${API}/`),
    pattern: /<!doctype html>/i,
    allowed: [`${API}/http/page-shell.ts`, `${API}/routes/explore.ts`],
  },
  {
    rule: 'only app.ts calls app.use with a path: every other middleware is a row\'s, composed by mount (http/mount.ts), so no route\'s policy hides in a register function',
    files: new RegExp(`^${API}/`),
    pattern: /\bapp\.use\(\s*['"`]/,
    allowed: [`${API}/app.ts`],
  },
];

describe('import rules (docs/architecture.md)', () => {
  it('reads a graph of the whole tree', () => {
    expect(graph.length).toBeGreaterThan(200);
    expect(graph.find((g) => g.file === `${API}/app.ts`)?.files).toContain(`${API}/routes/collection.ts`);
  });

  it.each(IMPORT_RULES.map((r) => [r.rule, r] as const))('%s', (_, r) => {
    expect(graph.filter((g) => r.from.test(g.file) && g.files.length > 0).length, 'files the rule is about').toBeGreaterThan(0);
    const broken = graph
      .filter((g) => r.from.test(g.file) && !(r.testsExempt && isTest(g.file)))
      .flatMap((g) => g.files.filter((f) => r.forbid.test(f)).map((f) => `${g.file} → ${f}`));
    expect(broken).toEqual([]);
  });

  it.each(CONTENT_RULES.map((r) => [r.rule, r] as const))('%s', (_, r) => {
    const production = graph.filter((g) => r.files.test(g.file) && !isTest(g.file) && !g.file.startsWith(`${API}/testing/`));
    const holding = production.filter((g) => r.pattern.test(readFileSync(join(ROOT, g.file), 'utf8'))).map((g) => g.file);
    expect(holding.length, 'files the rule is about').toBeGreaterThan(0);
    expect(holding.filter((f) => !r.allowed.includes(f))).toEqual([]);
  });

  it('ingest/ has no import cycle (a helper that calls back into a stage ties them together)', () => {
    expect(cycles(graph.filter((g) => g.file.startsWith('ingest/')))).toEqual([]);
  });

  it("the API's test support lives in services/api/testing/ alone, and no production file imports it", () => {
    const support = /(^|\/)(test-support|test-fixture|fixture-app|test-server)\.ts$/;
    expect(graph.filter((g) => g.file.startsWith(`${API}/`) && !g.file.startsWith(`${API}/testing/`) && support.test(g.file)).map((g) => g.file)).toEqual([]);
    const production = graph.filter((g) => g.file.startsWith(`${API}/`) && !isTest(g.file) && !g.file.startsWith(`${API}/testing/`));
    expect(production.flatMap((g) => g.files.filter((f) => f.startsWith(`${API}/testing/`)).map((f) => `${g.file} → ${f}`))).toEqual([]);
  });

  it('schemas/ uses no package but zod', () => {
    const used = graph.filter((g) => g.file.startsWith('schemas/') && !isTest(g.file)).flatMap((g) => g.packages);
    expect([...new Set(used)].filter((p) => p !== 'zod')).toEqual([]);
  });
});

/** Each cycle of the graph as the files on it (strongly connected components of more than one file, or a self-import). */
function cycles(imports: readonly { readonly file: string; readonly files: readonly string[] }[]): string[][] {
  const edges = new Map(imports.map((g) => [g.file, g.files]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, low.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || edges.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}
