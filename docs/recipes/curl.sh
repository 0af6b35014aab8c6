#!/usr/bin/env bash
# Tributary with curl: discovery, datasets and how to cite them, a filtered page, a count, an aggregate and a
# CSV extract. Run against any server: TRIBUTARY_URL=https://api.example.org bash docs/recipes/curl.sh
# (TRIBUTARY_API_KEY, when set, goes in the x-api-key header). Tested in services/api/recipes.test.ts.
set -euo pipefail

BASE="${TRIBUTARY_URL:-http://localhost:3000}/v1/odata/v4"
KEY_HEADER=()
if [ -n "${TRIBUTARY_API_KEY:-}" ]; then KEY_HEADER=(-H "x-api-key: ${TRIBUTARY_API_KEY}"); fi

# -G turns every --data-urlencode into a percent-encoded query parameter: no hand-encoding of spaces and quotes.
# -f fails on 4xx/5xx (the JSON error body says why; drop -f to read it).
api() { curl -fsS -G "${KEY_HEADER[@]}" "$@"; }

echo '## The service document: what there is'
api "$BASE/"
echo

echo '## Datasets, with their citation and licence'
api "$BASE/Metadata" \
  --data-urlencode '$select=DOI,DatasetName,Citation,Licence' \
  --data-urlencode '$top=3'
echo

echo '## pH observations since 2020, five at a time (follow @odata.nextLink for more)'
api "$BASE/Observations" \
  --data-urlencode "\$filter=CharacteristicName eq 'pH' and ActivityStartYear ge 2020" \
  --data-urlencode '$select=Id,DOI,LocationId,ActivityStartDate,ResultValue,ResultUnit' \
  --data-urlencode '$top=5'
echo

echo '## How many pH observations'
api "$BASE/Observations" \
  --data-urlencode "\$filter=CharacteristicName eq 'pH'" \
  --data-urlencode '$count=true'
echo

echo '## Observations per characteristic'
api "$BASE/Observations" \
  --data-urlencode '$apply=groupby((CharacteristicName),aggregate($count as Count))'
echo

echo '## A CSV extract of one dataset; the Link header carries its DOI as rel="cite-as"'
DOI=$(api "$BASE/Metadata" --data-urlencode '$select=DOI' --data-urlencode '$top=1' | sed -E 's/.*"DOI":"([^"]*)".*/\1/')
# OData doubles a quote inside a quoted string.
api -D - "$BASE/Records" \
  --data-urlencode "\$filter=DOI eq '${DOI//\'/\'\'}'" \
  --data-urlencode '$select=DOI,MonitoringLocationID,CharacteristicName,ActivityStartDate,ResultValue,ResultUnit' \
  --data-urlencode '$top=3' \
  --data-urlencode '$format=csv'
