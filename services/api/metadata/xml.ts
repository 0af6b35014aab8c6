/** A minimal XML writer: every attribute value and text passes through one escaper. */

export interface XmlNode {
  readonly name: string;
  readonly attrs?: Readonly<Record<string, string | undefined>>;
  readonly children?: readonly (XmlNode | string)[];
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for an attribute value or element content; control characters XML 1.0 forbids are dropped. */
export function escapeXml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '').replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

export function el(name: string, attrs: XmlNode['attrs'] = {}, children: XmlNode['children'] = []): XmlNode {
  return { name, attrs, children };
}

/** Serialises a tree with two-space indentation; string children are escaped text. */
export function renderXml(node: XmlNode, depth = 0): string {
  const pad = '  '.repeat(depth);
  const attrs = Object.entries(node.attrs ?? {})
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  const children = node.children ?? [];
  if (children.length === 0) return `${pad}<${node.name}${attrs}/>`;
  if (children.every((c) => typeof c === 'string')) return `${pad}<${node.name}${attrs}>${children.map((c) => escapeXml(c as string)).join('')}</${node.name}>`;
  const inner = children.map((c) => (typeof c === 'string' ? `${pad}  ${escapeXml(c)}` : renderXml(c, depth + 1))).join('\n');
  return `${pad}<${node.name}${attrs}>\n${inner}\n${pad}</${node.name}>`;
}
