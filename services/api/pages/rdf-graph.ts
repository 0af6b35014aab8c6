/**
 * A small RDF tree written once and serialised twice: as JSON-LD with an inline `@context` (no remote context to
 * fetch, so any JSON-LD processor reads it offline) and as Turtle. The DCAT catalogue is built as one such tree
 * (pages/dcat.ts). Predicates, types and datatypes are compact IRIs (`dct:title`) over the prefixes given.
 */

export interface Iri {
  readonly iri: string;
}
export interface Literal {
  readonly value: string;
  /** A compact IRI (`xsd:date`); none for a plain string. */
  readonly datatype?: string;
}
export interface RdfNode {
  /** The node's IRI; none for a blank node (written nested). */
  readonly id?: string;
  readonly type: readonly string[];
  readonly props: readonly (readonly [predicate: string, object: Term | readonly Term[] | null | undefined])[];
}
export type Term = Iri | Literal | RdfNode;

export const iri = (value: string): Iri => ({ iri: value });
export const lit = (value: string | number, datatype?: string): Literal => ({ value: String(value), ...(datatype ? { datatype } : {}) });

const isIri = (t: Term): t is Iri => 'iri' in t;
const isLiteral = (t: Term): t is Literal => 'value' in t;

/**
 * An IRI as both syntaxes may carry it: characters RFC 3987 forbids (spaces, `<>"{}|\^` and backquote, controls)
 * percent-encoded. URLs from the data (a dataset's source URL) pass through here.
 */
export function safeIri(value: string): string {
  return value.replace(/[\u0000-\u0020<>"{}|\\^`\u007f]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

const objects = (o: Term | readonly Term[] | null | undefined): readonly Term[] => (o === null || o === undefined ? [] : Array.isArray(o) ? o : [o as Term]);

/** JSON-LD (compacted over `prefixes`): the tree as nested objects, each literal with its datatype. */
export function toJsonLd(prefixes: Readonly<Record<string, string>>, root: RdfNode): Record<string, unknown> {
  const term = (t: Term): unknown => (isIri(t) ? { '@id': safeIri(t.iri) } : isLiteral(t) ? (t.datatype ? { '@value': t.value, '@type': t.datatype } : t.value) : node(t));
  const node = (n: RdfNode): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (n.id) out['@id'] = safeIri(n.id);
    if (n.type.length) out['@type'] = n.type.length === 1 ? n.type[0] : [...n.type];
    for (const [p, o] of n.props) {
      const list = objects(o);
      if (list.length) out[p] = list.length === 1 ? term(list[0]!) : list.map(term);
    }
    return out;
  };
  return { '@context': { ...prefixes }, ...node(root) };
}

const TURTLE_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A Turtle string: quotes, backslashes and control characters escaped (Turtle 1.1 §6.4). */
function turtleString(s: string): string {
  return `"${s.replace(/[\\"\n\r\t\b\f]|[\u0000-\u001f\u007f]/g, (ch) => TURTLE_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * Turtle: the prefixes, then the root and every node with an IRI as a block of its own; blank nodes nested as
 * `[ … ]`. A node with an IRI met inside another is written by reference and then as its own block.
 */
export function toTurtle(prefixes: Readonly<Record<string, string>>, root: RdfNode): string {
  const blocks: string[] = [];
  const pending: RdfNode[] = [root];
  const ref = (t: Term, depth: number): string => {
    if (isIri(t)) return `<${safeIri(t.iri)}>`;
    if (isLiteral(t)) return t.datatype ? `${turtleString(t.value)}^^${t.datatype}` : turtleString(t.value);
    if (t.id) {
      pending.push(t);
      return `<${safeIri(t.id)}>`;
    }
    return `[\n${body(t, depth + 1)}\n${'  '.repeat(depth)}]`;
  };
  const body = (n: RdfNode, depth: number): string => {
    const pad = '  '.repeat(depth);
    const lines = [...(n.type.length ? [`${pad}a ${n.type.join(', ')}`] : [])];
    for (const [p, o] of n.props) {
      const list = objects(o);
      if (list.length) lines.push(`${pad}${p} ${list.map((t) => ref(t, depth)).join(', ')}`);
    }
    return lines.join(' ;\n');
  };
  for (let n = pending.shift(); n; n = pending.shift()) blocks.push(`<${safeIri(n.id!)}>\n${body(n, 1)} .`);
  const head = Object.entries(prefixes).map(([p, ns]) => `@prefix ${p}: <${ns}> .`);
  return `${head.join('\n')}\n\n${blocks.join('\n\n')}\n`;
}
