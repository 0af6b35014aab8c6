/**
 * Building DOM nodes from data. Text from the API (names, citations) only ever becomes text nodes or
 * attribute values through these helpers, never markup, so no value can inject HTML.
 */
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
};

const number = new Intl.NumberFormat('en-CA');
export const fmt = (n: number): string => number.format(n);

/** A short message in a panel's status line (role=status or alert in the page), replacing the last one. */
export function say(el: HTMLElement, text: string, kind: 'info' | 'error' = 'info'): void {
  el.textContent = text;
  el.dataset['kind'] = kind;
}
