#!/usr/bin/env python3
"""A whole filtered result into pandas in one request: Tributary's export route as Parquet.

Asks for every Records row of one characteristic (`/v1/export/Records?$filter=...`), reads it with pandas
(pyarrow underneath) straight from the URL, checks the row count against the X-Total-Count header of a HEAD
request, and prints the mean value per year. The same URL works in polars (`pl.read_parquet`), DuckDB
(`read_parquet`, with its httpfs extension) and R arrow (`read_parquet`).

    pip install pandas pyarrow
    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/python_pandas_export.py [characteristic]

Tested in services/api/recipes.test.ts.
"""
import os
import sys
import urllib.parse
import urllib.request

import pandas as pd

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
HEADERS = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}
characteristic = sys.argv[1] if len(sys.argv) > 1 else "pH"

# OData string literals double their quotes; quote_via=quote sends spaces as %20.
odata_filter = "CharacteristicName eq '{}'".format(characteristic.replace("'", "''"))
query = urllib.parse.urlencode({"$filter": odata_filter, "$format": "parquet"}, quote_via=urllib.parse.quote)
url = f"{BASE}/v1/export/Records?{query}"

# HEAD: the exact count, before any row is sent.
with urllib.request.urlopen(urllib.request.Request(url, method="HEAD", headers=HEADERS), timeout=60) as response:
    expected = int(response.headers["X-Total-Count"])

# pandas sends storage_options as HTTP headers for http(s) URLs.
frame = pd.read_parquet(url, storage_options=HEADERS or None)
if len(frame) != expected:
    sys.exit(f"read {len(frame)} rows, X-Total-Count said {expected}")
print(f"{len(frame)} {characteristic} rows (X-Total-Count {expected}), columns: {', '.join(frame.columns[:6])}, ...")
# Parquet DATE columns arrive as Python dates; to_datetime gives pandas' datetime accessors.
per_year = frame.groupby(pd.to_datetime(frame["ActivityStartDate"]).dt.year)["ResultValue"].mean().round(3)
print(per_year.to_string())
