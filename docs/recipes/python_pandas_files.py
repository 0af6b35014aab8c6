#!/usr/bin/env python3
"""One dataset's whole file into pandas: the bulk downloads index, then a Parquet URL read straight into a frame.

Reads `/v1/downloads` (every dataset with its DOI, licence, citation and one file per format), picks the dataset
given (a DOI) or the first one, reads its Parquet file with pandas (pyarrow underneath) from the URL, checks the
rows against the index, and prints the citation to use. The file URL names its content's SHA-256, so it can be
cached forever; pyarrow alone reads the same URL (`pyarrow.parquet.read_table`) and so does polars
(`pl.read_parquet(url)`).

    pip install pandas pyarrow
    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/python_pandas_files.py [DOI]

Tested in services/api/recipes.test.ts.
"""
import json
import os
import sys
import urllib.request

import pandas as pd

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
HEADERS = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}

with urllib.request.urlopen(urllib.request.Request(f"{BASE}/v1/downloads", headers=HEADERS), timeout=60) as response:
    index = json.load(response)
datasets = index["datasets"]
if not datasets:
    sys.exit("the server lists no dataset files yet (published before bulk downloads)")
wanted = sys.argv[1] if len(sys.argv) > 1 else datasets[0]["DOI"]
dataset = next((d for d in datasets if d["DOI"] == wanted), None)
if dataset is None:
    sys.exit(f"{wanted} is not in {BASE}/v1/downloads")

parquet = dataset["files"]["parquet"]
# pandas sends storage_options as HTTP headers for http(s) URLs.
frame = pd.read_parquet(parquet["url"], storage_options=HEADERS or None)
if len(frame) != parquet["rows"]:
    sys.exit(f"read {len(frame)} rows, the index says {parquet['rows']}")
print(f"{dataset['DOI']}: {len(frame)} rows from {parquet['bytes']} bytes of Parquet (publication {parquet['publication']})")
print(f"cite as: https://doi.org/{dataset['DOI']} ({dataset['Citation']}); licence: {dataset['Licence']}")
print(frame.groupby("CharacteristicName")["ResultValue"].count().sort_values(ascending=False).head(5).to_string())
