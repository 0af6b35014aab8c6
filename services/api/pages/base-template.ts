/**
 * A document made once per publication for every host (issue 47 item 9): the DCAT catalogue was rebuilt for each new
 * `Host` a client sent (a third of a second of main thread and 12 MB per keyless request at 2,000 datasets). It is
 * now written once with a placeholder origin, cut at each occurrence, and each response streams the pieces with its
 * own base URL between them, a chunk at a time as the client reads: no whole copy per request.
 */
import { randomUUID } from 'node:crypto';

/** An origin no data can contain (a fresh UUID under `.invalid`, RFC 6761), valid wherever a base URL goes. */
export const PLACEHOLDER_BASE = `http://base-${randomUUID()}.invalid`;

/** The document cut at each place the base URL goes. */
export interface BaseTemplate {
  readonly pieces: readonly string[];
  /** The document's length with no base in it, for a quick size estimate. */
  readonly bytes: number;
}

export function baseTemplate(document: string): BaseTemplate {
  const pieces = document.split(PLACEHOLDER_BASE);
  return { pieces, bytes: pieces.reduce((n, p) => n + p.length, 0) };
}

/** Characters that would need escaping in a JSON string, a Turtle IRI or XML text: a base with one is built directly. */
const UNSAFE = /[\u0000-\u0020<>"{}|\\^`&'\u007f]/;

/** Whether `base` may be spliced into a template's pieces as it is. */
export function spliceable(base: string): boolean {
  return !UNSAFE.test(base);
}

/** Roughly this many characters per chunk streamed. */
const CHUNK = 64 * 1024;

/**
 * The document with `base` in every place, as a stream pulled a chunk at a time.
 * @example await new Response(templateStream(baseTemplate(`x ${PLACEHOLDER_BASE}/a`), 'https://h')).text() // → 'x https://h/a'
 */
export function templateStream(template: BaseTemplate, base: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        let chunk = '';
        while (i < template.pieces.length && chunk.length < CHUNK) {
          chunk += (i > 0 ? base : '') + template.pieces[i]!;
          i++;
        }
        if (chunk) controller.enqueue(encoder.encode(chunk));
        if (i >= template.pieces.length) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
