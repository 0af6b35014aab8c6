#!/usr/bin/env bash
# GDAL's OGC API – Features driver (OAPIF), the engine inside QGIS, against Tributary's /v1/features:
# the collections and their exact feature counts, then the pH observations in a box copied into a GeoPackage.
# The attribute filter and the box are sent to the server (as CharacteristicName=pH and bbox=…), not applied by GDAL.
#   TRIBUTARY_URL      the server (default http://localhost:3000)
#   TRIBUTARY_API_KEY  your key, sent as the x-api-key header through GDAL_HTTP_HEADERS
#   OUT                the GeoPackage to write (default tributary-ph.gpkg)
#   CHARACTERISTIC, BBOX (west south east north) narrow the copy (defaults pH, all of Canada)
set -euo pipefail
URL="${TRIBUTARY_URL:-http://localhost:3000}/v1/features"
OUT="${OUT:-tributary-ph.gpkg}"
CHARACTERISTIC="${CHARACTERISTIC:-pH}"
read -r WEST SOUTH EAST NORTH <<< "${BBOX:--141 41.7 -52.6 83.2}"
if [ -n "${TRIBUTARY_API_KEY:-}" ]; then export GDAL_HTTP_HEADERS="x-api-key: ${TRIBUTARY_API_KEY}"; fi

# Every collection with its feature count (numberMatched: exact, from the server's statistics).
ogrinfo -ro -so "OAPIF:${URL}" locations | grep -E '^(Layer name|Feature Count):'
ogrinfo -ro -so "OAPIF:${URL}" observations | grep -E '^(Layer name|Feature Count):'

# PAGE_SIZE: features per request (the server's maximum is 10000; GDAL's own default is 10).
rm -f "$OUT"
ogr2ogr -f GPKG "$OUT" "OAPIF:${URL}" observations -oo PAGE_SIZE=1000 \
  -where "CharacteristicName = '${CHARACTERISTIC}'" -spat "$WEST" "$SOUTH" "$EAST" "$NORTH"
ogrinfo -ro -so "$OUT" observations | grep -E '^Feature Count:'
