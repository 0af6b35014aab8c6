#!/usr/bin/env bash
# A result and its citation side by side with curl: records.csv, then records.bib and records.ris from the citation
# of the same query, found in the export's Link header (rel="describedby", pinned to the publication the rows came
# from) and asked for by content negotiation, as doi.org answers it.
# TRIBUTARY_URL=https://api.example.org bash docs/recipes/curl_citation.sh [folder]
# (TRIBUTARY_API_KEY, when set, goes in the x-api-key header). Tested in services/api/recipes.test.ts.
set -euo pipefail

BASE="${TRIBUTARY_URL:-http://localhost:3000}"
DIR="${1:-.}"
mkdir -p "$DIR"
KEY_HEADER=()
if [ -n "${TRIBUTARY_API_KEY:-}" ]; then KEY_HEADER=(-H "x-api-key: ${TRIBUTARY_API_KEY}"); fi

# -D saves the response headers beside the rows.
curl -fsS -G "${KEY_HEADER[@]}" "$BASE/v1/export/Records" \
  --data-urlencode "\$filter=CharacteristicName eq 'pH'" \
  --data-urlencode '$format=csv' \
  -D "$DIR/records.headers" -o "$DIR/records.csv"

# The Link header lists rel="next" first when there is one; take the link whose rel is describedby.
CITATION=$(grep -i '^link:' "$DIR/records.headers" | sed -E 's/.*<([^>]*)>; rel="describedby".*/\1/' | tr -d '\r')
curl -fsS "${KEY_HEADER[@]}" -H 'Accept: application/x-bibtex' "$CITATION" -o "$DIR/records.bib"
curl -fsS "${KEY_HEADER[@]}" -H 'Accept: application/x-research-info-systems' "$CITATION" -o "$DIR/records.ris"

echo "records.csv: $(grep -i '^x-total-count:' "$DIR/records.headers" | tr -dc '0-9') rows"
echo "records.bib: $(grep -c '^@misc{' "$DIR/records.bib") datasets, cited from $CITATION"
echo "records.ris: $(grep -c '^TY  - DATA' "$DIR/records.ris") datasets"
