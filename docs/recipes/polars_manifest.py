#!/usr/bin/env python3
"""The whole hub in polars, read over HTTP: the manifest's Parquet files as one lazy frame.

polars reads each file's footer, then only the column chunks a query needs, with range requests, several at once.
The API meters dataset files by their bytes, not by requests (docs/api.md, rate limits), so these reads are never
refused under the default limits. The files need no key on a server without keys (`make start`); polars' HTTP reader
sends no x-api-key, so where keys are required download the files first (duckdb_manifest.py) and scan the copies.

    pip install polars
    TRIBUTARY_URL=http://localhost:3000 python3 docs/recipes/polars_manifest.py

Tested in services/api/recipes.test.ts.
"""
import json
import os
import urllib.request

import polars as pl

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")

with urllib.request.urlopen(f"{BASE}/v1/downloads/manifest.json", timeout=60) as response:
    manifest = json.load(response)
urls = [f["url"] for f in manifest["files"]]

hub = pl.scan_parquet(urls)
rows = hub.select(pl.len()).collect().item()
ph = hub.filter(pl.col("CharacteristicName") == "pH").select(pl.len(), pl.col("ResultValue").mean()).collect()
print(f"{rows} rows in {len(urls)} files, publication {manifest['publication']}")
print(f"pH: {ph.item(0, 0)} results, mean {ph.item(0, 1):.2f}")
