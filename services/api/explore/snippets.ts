/**
 * "Copy as": the selection's request for curl, Python, R and JavaScript, with the same `$filter` text the page
 * sends. Each fetches the CSV extract page by page (the `Link: <…>; rel="next"` header) into a file named for the
 * resource it holds (`csvFileName`: observations.csv, guideline-comparisons.csv) and prints the row count; curl,
 * which has no loop, prints the count and fetches the first page. A key comes from TRIBUTARY_API_KEY when set
 * (browsers of listed origins need none; scripts elsewhere do).
 */

export type SnippetLanguage = 'curl' | 'python' | 'r' | 'javascript';

export const SNIPPET_TITLES: Readonly<Record<SnippetLanguage, string>> = {
  curl: 'curl',
  python: 'Python (urllib)',
  r: 'R (httr2)',
  javascript: 'JavaScript (fetch, Node 18+)',
};

/** JSON's string syntax is also a valid string literal in Python, R and JavaScript. */
const lit = (s: string): string => JSON.stringify(s);
/** A bash double-quoted word: `\`, `"`, `$` and backquote escaped. */
const dq = (s: string): string => `"${s.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;

/** A resource's words, lower case: `GuidelineComparisons` → `guideline comparisons`. */
const words = (resource: string, joiner: string): string => resource.replace(/(?<=[a-z0-9])(?=[A-Z])/g, joiner).toLowerCase();

/**
 * The CSV file of a resource's rows, named for what it holds: the snippets write it, and the page's own download
 * is this name with `tributary-` before it.
 * @example csvFileName('GuidelineComparisons') // 'guideline-comparisons.csv'
 */
export function csvFileName(resource: string): string {
  return `${words(resource, '-')}.csv`;
}

/** `collectionUrl`: the resource's OData URL (`…/v1/odata/v4/<resource>`), whose last segment names the file. */
export function snippet(language: SnippetLanguage, collectionUrl: string, filter: string): string {
  const options: [string, string][] = [...(filter ? [['$filter', filter] as [string, string]] : []), ['$format', 'csv'], ['$top', '10000']];
  const resource = new URL(collectionUrl).pathname.split('/').pop() ?? '';
  const file = csvFileName(resource);
  switch (language) {
    case 'curl': {
      const f = filter ? [`     --data-urlencode ${dq(`$filter=${filter}`)} \\`] : [];
      return [
        `# How many ${words(resource, ' ')} match:`,
        `curl -G ${dq(collectionUrl)} -H "x-api-key: $TRIBUTARY_API_KEY" \\`, ...f, `     --data-urlencode '$count=true'`,
        '# The first 10,000 as CSV; the Link: <…>; rel="next" response header is the next page:',
        `curl -G ${dq(collectionUrl)} -H "x-api-key: $TRIBUTARY_API_KEY" \\`, ...f, `     --data-urlencode '$format=csv' --data-urlencode '$top=10000' -o ${file}`,
      ].join('\n');
    }
    case 'python':
      return `import csv, io, os, re, urllib.parse, urllib.request

url = ${lit(collectionUrl)} + "?" + urllib.parse.urlencode({${options.map(([k, v]) => `${lit(k)}: ${lit(v)}`).join(', ')}}, quote_via=urllib.parse.quote)
headers = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}
rows = 0
with open(${lit(file)}, "w", encoding="utf-8", newline="") as out:
    while url:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=120) as response:
            text = response.read().decode("utf-8")
            link = re.search(r'<([^>]+)>;\\s*rel="next"', response.headers.get("Link", ""))
        header, _, body = text.partition("\\n")
        if rows == 0:
            out.write(header + "\\n")
        out.write(body)
        rows += sum(1 for _ in csv.reader(io.StringIO(body)))
        url = link.group(1) if link else None
print(rows, ${lit(`rows written to ${file}`)})
`;
    case 'r':
      return `library(httr2)

req <- request(${lit(collectionUrl)}) |>
  req_url_query(${options.map(([k, v]) => `\`${k}\` = ${lit(v)}`).join(', ')})
key <- Sys.getenv("TRIBUTARY_API_KEY")
with_key <- function(r) if (nzchar(key)) req_headers(r, \`x-api-key\` = key) else r
pages <- list()
repeat {
  resp <- req_perform(with_key(req))
  pages[[length(pages) + 1]] <- read.csv(text = resp_body_string(resp))
  nxt <- resp_link_url(resp, "next")
  if (is.null(nxt)) break
  req <- request(nxt)
}
rows <- do.call(rbind, pages)
write.csv(rows, ${lit(file)}, row.names = FALSE)
cat(nrow(rows), ${lit(`rows written to ${file}\n`)})
`;
    case 'javascript':
      return `import { writeFileSync } from 'node:fs';

let url = ${lit(collectionUrl)} + '?' + new URLSearchParams({ ${options.map(([k, v]) => `${lit(k)}: ${lit(v)}`).join(', ')} }).toString().replaceAll('+', '%20');
const headers = process.env.TRIBUTARY_API_KEY ? { 'x-api-key': process.env.TRIBUTARY_API_KEY } : {};
// Newlines inside quoted values do not end a row.
const countRows = (csv) => { let n = 0, quoted = false; for (const c of csv) { if (c === '"') quoted = !quoted; else if (c === '\\n' && !quoted) n++; } return n; };
const parts = [];
let rows = 0;
while (url) {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(\`HTTP \${response.status}: \${await response.text()}\`);
  const text = await response.text();
  const cut = text.indexOf('\\n') + 1;
  parts.push(parts.length ? text.slice(cut) : text);
  rows += countRows(text.slice(cut));
  url = /<([^>]+)>;\\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
}
writeFileSync(${lit(file)}, parts.join(''));
console.log(rows, ${lit(`rows written to ${file}`)});
`;
  }
}
