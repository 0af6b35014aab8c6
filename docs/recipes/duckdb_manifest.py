#!/usr/bin/env python3
"""The whole hub as one table in DuckDB: the Parquet manifest's files, checked by their SHA-256, read together.

`/v1/downloads/manifest.json` lists every current Parquet file (one per dataset, one schema: the Records fields).
This recipe downloads the ones it does not hold yet (a file's name is its hash, so a mirror never fetches a file
twice), checks each hash, and queries all of them as one table with DuckDB's `read_parquet([...])`. With DuckDB's
httpfs extension the manifest's `duckdb` query reads the URLs directly instead; polars (`pl.scan_parquet(paths)`),
pyarrow (`pyarrow.dataset.dataset(paths)`), Spark and Trino read the same list.

    pip install duckdb
    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/duckdb_manifest.py [folder]

Tested in services/api/recipes.test.ts.
"""
import hashlib
import json
import os
import shutil
import sys
import urllib.request

import duckdb

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
HEADERS = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}
folder = sys.argv[1] if len(sys.argv) > 1 else "tributary-parquet"
os.makedirs(folder, exist_ok=True)


def get(url):
    return urllib.request.urlopen(urllib.request.Request(url, headers=HEADERS), timeout=600)


with get(f"{BASE}/v1/downloads/manifest.json") as response:
    manifest = json.load(response)

paths = []
fetched = 0
for f in manifest["files"]:
    path = os.path.join(folder, f["object"])
    if not os.path.exists(path):
        with get(f["url"]) as response, open(path + ".part", "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
        os.replace(path + ".part", path)
        fetched += 1
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != f["sha256"]:
        sys.exit(f"{path}: SHA-256 {digest.hexdigest()}, the manifest says {f['sha256']}")
    paths.append(path)

rows, datasets = duckdb.sql("SELECT count(*), count(DISTINCT DOI) FROM read_parquet($paths)", params={"paths": paths}).fetchone()
if rows != manifest["rows"]:
    sys.exit(f"read {rows} rows, the manifest says {manifest['rows']}")
print(f"{rows} rows of {datasets} datasets in {len(paths)} files ({fetched} downloaded), publication {manifest['publication']}")
top = duckdb.sql(
    "SELECT CharacteristicName, count(*) AS n FROM read_parquet($paths) GROUP BY ALL ORDER BY n DESC LIMIT 3",
    params={"paths": paths},
).fetchall()
for name, n in top:
    print(f"{name}: {n}")
