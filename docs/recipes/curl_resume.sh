#!/usr/bin/env bash
# A dataset file with curl, resumed after a cut: the bulk downloads index gives the file's URL and SHA-256; a
# download that stops half-way continues with `curl -C -` (a Range request from the bytes already on disk), and
# the whole file is checked against the hash the URL names.
#
#   TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... bash docs/recipes/curl_resume.sh [folder]
#
# Tested in services/api/recipes.test.ts (jq reads the index; any JSON tool does).
set -euo pipefail
BASE="${TRIBUTARY_URL:-http://localhost:3000}"
KEY=(); [ -n "${TRIBUTARY_API_KEY:-}" ] && KEY=(-H "x-api-key: $TRIBUTARY_API_KEY")
DIR="${1:-.}"

# The largest CSV file of the index: its URL and hash.
read -r URL SHA < <(curl -fsS "${KEY[@]}" "$BASE/v1/downloads" \
  | jq -r '[.datasets[].files.csv] | max_by(.bytes) | "\(.url) \(.sha256)"')
FILE="$DIR/$(basename "$URL")"

curl -fsS "${KEY[@]}" -o "$FILE" "$URL"
SIZE=$(stat -c %s "$FILE")
# Simulate a connection cut after a third of the file.
truncate -s $((SIZE / 3)) "$FILE"
echo "cut at $(stat -c %s "$FILE") of $SIZE bytes"

# -C - : continue from the size of the file on disk (Range: bytes=<size>-, answered 206).
curl -fsS "${KEY[@]}" -C - -o "$FILE" -w 'resumed: HTTP %{http_code}, %{size_download} bytes\n' "$URL"
echo "$SHA  $FILE" | sha256sum --check --quiet && echo "sha256 ok: $SHA"
