/**
 * The Mermaid diagrams of the docs, and a parser for them. GitHub renders a ```mermaid block with the mermaid
 * library in a browser; a diagram with a syntax error shows as an error box instead. Mermaid's own parser needs a
 * DOM (DOMPurify, the diagram registry), so the check runs the library's browser bundle in Debian's Chromium
 * through playwright-core, as the board's browser test does: nothing is downloaded.
 */
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export interface MermaidBlock {
  /** The file it was read from, as given. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly text: string;
}

const OPENING = /^(`{3,}|~{3,})\s*mermaid\s*$/;

/**
 * The ```mermaid fenced blocks of a Markdown text. A block whose fence is never closed would swallow the rest of
 * the page, so it is an error naming its line.
 * @example mermaidBlocks('README.md', '```mermaid\nflowchart LR\n  a --> b\n```\n') // [{ file: 'README.md', line: 1, text: 'flowchart LR\n  a --> b' }]
 */
export function mermaidBlocks(file: string, markdown: string): MermaidBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: MermaidBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = OPENING.exec(lines[i]!)?.[1];
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence) && /^(`+|~+)$/.test(l.trim()));
    if (end < 0) throw new Error(`${file}:${i + 1}: the mermaid block is never closed (${fence})`);
    blocks.push({ file, line: i + 1, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

export interface MermaidParser {
  /** Undefined when the diagram parses, else Mermaid's message (with the line and what it expected). */
  check(text: string): Promise<string | undefined>;
  close(): Promise<void>;
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

/** Mermaid's browser bundle in a blank Chromium page; `check` parses and then renders each diagram to SVG. */
export async function openMermaidParser(executablePath = '/usr/bin/chromium'): Promise<MermaidParser> {
  const bundle = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const page: Page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ path: bundle });
    await page.evaluate(() => (window as unknown as { mermaid: { initialize(o: object): void } }).mermaid.initialize({ startOnLoad: false }));
    let n = 0;
    return {
      async check(text) {
        n++;
        return page.evaluate(
          async ({ text, id }) => {
            const mermaid = (window as unknown as { mermaid: { parse(t: string): Promise<unknown>; render(id: string, t: string): Promise<unknown> } }).mermaid;
            try {
              await mermaid.parse(text);
              // Rendering lays the diagram out too: it catches what the grammar accepts but the diagram cannot draw.
              await mermaid.render(id, text);
              return undefined;
            } catch (err) {
              return String((err as Error)?.message ?? err);
            }
          },
          { text, id: `diagram-${n}` },
        );
      },
      close: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
