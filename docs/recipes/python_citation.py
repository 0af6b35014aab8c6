#!/usr/bin/env python3
"""A result and its citation, saved side by side: records.parquet and records.bib (plus records.json).

Exports every Records row of one characteristic as Parquet (`/v1/export/Records?$filter=...`), then follows the
export's `Link: <...>; rel="describedby"` header (FAIR signposting) to the citation of that same query, pinned to
the publication the rows came from, and saves it as BibTeX, asked for by content negotiation as doi.org answers it.
Any query works the same way: `/v1/citation/<resource>?$filter=...` with `Accept: application/x-bibtex` (BibTeX),
`application/x-research-info-systems` (RIS), `application/vnd.citationstyles.csl+json` (CSL-JSON) or `text/plain`.

    pip install requests
    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/python_citation.py [characteristic] [folder]

Tested in services/api/recipes.test.ts.
"""
import json
import os
import sys

import requests

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
HEADERS = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}
characteristic = sys.argv[1] if len(sys.argv) > 1 else "pH"
folder = sys.argv[2] if len(sys.argv) > 2 else "."
os.makedirs(folder, exist_ok=True)

# OData string literals double their quotes; requests percent-encodes the parameters.
odata_filter = "CharacteristicName eq '{}'".format(characteristic.replace("'", "''"))
with requests.get(f"{BASE}/v1/export/Records", params={"$filter": odata_filter, "$format": "parquet"},
                  headers=HEADERS, stream=True, timeout=600) as response:
    response.raise_for_status()
    rows = int(response.headers["X-Total-Count"])
    # requests parses the Link header: links["describedby"]["url"] is the citation of this query and publication.
    citation_url = response.links["describedby"]["url"]
    with open(os.path.join(folder, "records.parquet"), "wb") as out:
        for chunk in response.iter_content(chunk_size=1 << 20):
            out.write(chunk)

bibtex = requests.get(citation_url, headers={**HEADERS, "Accept": "application/x-bibtex"}, timeout=60)
bibtex.raise_for_status()
with open(os.path.join(folder, "records.bib"), "w", encoding="utf-8") as out:
    out.write(bibtex.text)

# The JSON document says how many rows each dataset gave: together, every row of the export.
document = requests.get(citation_url, headers={**HEADERS, "Accept": "application/json"}, timeout=60).json()
with open(os.path.join(folder, "records.json"), "w", encoding="utf-8") as out:
    json.dump(document, out, indent=2)
if document["rows"] != rows:
    sys.exit(f"the citation counts {document['rows']} rows, the export sent {rows}")

print(f"records.parquet: {rows} {characteristic} rows of publication {document['publication']}")
print(f"records.bib: {len(document['datasets'])} datasets to cite")
for dataset in document["datasets"]:
    print(f"  {dataset['url']} ({dataset['Rows']} rows; licence: {dataset['Licence']})")
