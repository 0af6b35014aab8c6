/**
 * A whole RFC 4180 document in memory: quoted fields, doubled quotes, line breaks inside quotes, CRLF or LF. For
 * small files read whole (the vendored guideline summary, tests); data files go through DuckDB's reader (load.ts)
 * and headers through csv-header.ts, which reads only the first record of a stream.
 *
 * Fields are sliced between the characters that matter, not built a character at a time: that made ~470k
 * one-character strings for the guideline summary, and their garbage collection was most of loading it, a fixed
 * cost of every ingest process.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  const special = /[",\n\r]/g;
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const j = special.exec(text)?.index ?? text.length;
    field += text.slice(i, j);
    const ch = text[j];
    i = j + 1;
    if (ch === '"' && field === '') {
      // Inside quotes up to the next lone quote ("" is one quote).
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quoted field');
        field += text.slice(i, q);
        if (text[q + 1] !== '"') {
          i = q + 1;
          break;
        }
        field += '"';
        i = q + 2;
      }
    } else if (ch === '"') field += ch; // a quote inside an unquoted field is text
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
