import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';

const MAX_HEADER_BYTES = 1 << 20;

/**
 * Parses the first RFC 4180 record of `text` (quoted fields, doubled quotes, CRLF or LF). Returns null when the
 * record does not end within `text` (the caller reads more or gives up).
 */
export function parseFirstRecord(text: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let quoted = false;
  let atFieldStart = true;
  for (; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (ch === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
    } else if (ch === '\n' || ch === '\r') {
      fields.push(field);
      return fields;
    } else {
      field += ch;
      atFieldStart = false;
    }
  }
  return null;
}

/** The header names of a `.csv` or `.csv.gz` file (BOM stripped). Throws with a readable message. */
export async function readCsvHeader(path: string): Promise<string[]> {
  const raw = createReadStream(path, { highWaterMark: 64 * 1024 });
  const stream = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  // Not fatal: a chunk runs past the header, and a byte of another encoding further down is its row's fault (load
  // rejects that row with its line), not the header's. The header is judged by its own characters below.
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let bytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      text += decoder.decode(chunk, { stream: true });
      bytes += chunk.length;
      const record = parseFirstRecord(text);
      if (record) return utf8Header(record);
      if (bytes > MAX_HEADER_BYTES) throw new Error('no end of the header line in the first 1 MiB');
    }
    const record = parseFirstRecord(`${text}\n`);
    if (!record || (record.length === 1 && record[0] === '')) throw new Error('the file is empty (no header row)');
    return utf8Header(record);
  } finally {
    raw.destroy();
  }
}

/** The decoder writes U+FFFD for every byte that is not UTF-8; column names never hold one. */
function utf8Header(record: string[]): string[] {
  const bad = record.findIndex((name) => name.includes('\uFFFD'));
  if (bad >= 0) throw new Error(`the header is not valid UTF-8 (column ${bad + 1}): save the file as UTF-8`);
  return record;
}
