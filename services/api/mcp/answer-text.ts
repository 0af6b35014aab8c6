/**
 * The text beside a tool's structured answer (issue 56 item 5): a summary line and the links to go on, never the
 * rows again. The specification has a tool with an output schema return its structured content, and text "for
 * backwards compatibility"; written as the same JSON, 1,000 Metadata rows were 10.5 MB of answer, every row twice.
 * A client that reads only text learns what was found and where the whole of it is (the pinned URL, the next page);
 * one that reads structured content has every value.
 */
import type { TOOLS } from './tool-descriptions.js';

export type ToolName = keyof typeof TOOLS;

/** A structured answer, as the tools build it (their output schemas say which members each has). */
type Answer = Readonly<Record<string, unknown>>;

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : String(v));
const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** "Next: <url>" when there is more, "Complete." when not. */
const more = (a: Answer) => (typeof a['next'] === 'string' ? `More: ${a['next']}` : 'Complete.');
const pinned = (a: Answer) => `Publication ${str(a['publication'])}.`;

const SUMMARIES: Readonly<Record<ToolName, (a: Answer) => string>> = {
  describe: (a) => {
    const fields = list(a['fields']) as readonly { filterable?: boolean }[];
    return `${str(a['resource'])}: ${n(a['rows'])} rows, ${fields.length} fields (${fields.filter((f) => f.filterable).length} filterable)${a['aggregate'] ? ', aggregates' : ''}${a['export'] ? ', exports' : ''}. ${pinned(a)}`;
  },
  search_datasets: (a) => {
    const found = list(a['datasets']) as readonly { DOI: string; DatasetName: string | null; rows: number }[];
    const names = found.map((d) => `${d.DOI} (${d.DatasetName ?? 'no name'}, ${n(d.rows)} rows)`).join('; ');
    return `${n(a['matched'])} datasets match${found.length < Number(a['matched']) ? `, the first ${found.length} listed` : ''}${names ? `: ${names}` : ''}. ${pinned(a)}`;
  },
  list_values: (a) => `${list(a['values']).length} values of ${str(a['field'])} on ${str(a['resource'])}, each with its count. ${more(a)} Pinned: ${str(a['url'])}`,
  count: (a) => `${n(a['count'])} ${str(a['resource'])} rows${a['filter'] ? ` match ${str(a['filter'])}` : ''}. Pinned: ${str(a['url'])}`,
  query: (a) => {
    const exports = a['exports'] as { csv?: string } | null;
    return `${n(a['returned'])} of ${n(a['total'])} ${str(a['resource'])} rows returned (in structured content). ${more(a)} The whole result: ${str(a['url'])}${exports?.csv ? `; as one CSV file: ${exports.csv}` : ''}`;
  },
  aggregate: (a) => `${list(a['groups']).length} groups of ${str(a['resource'])} (in structured content). ${more(a)} Pinned: ${str(a['url'])}`,
  // The citation text is what is asked for, and short: one line per dataset.
  cite: (a) => str(a['text']),
};

export function answerText(tool: ToolName, answer: Answer): string {
  return SUMMARIES[tool](answer);
}
