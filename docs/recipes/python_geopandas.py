#!/usr/bin/env python3
"""A dataset's file and a whole filtered export into geopandas as point layers: both are GeoParquet 1.1.

Reads `/v1/downloads`, downloads the dataset given (a DOI) or the first one as Parquet, and asks
`/v1/export/Records` for every Record of one characteristic as Parquet; `geopandas.read_parquet` opens each as a
GeoDataFrame whose geometry is each Record's monitoring location (CRS OGC:CRS84, WGS 84 longitude/latitude), from
the `geo` metadata the files carry. Prints the rows, the CRS and the bounds of each, and the locations of the
dataset. The same files open in QGIS (drag them in) and in GDAL 3.8+ (`ogrinfo file.parquet`).

    pip install geopandas pyarrow
    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/python_geopandas.py [DOI] [characteristic] [folder]

Tested in services/api/routes/geoparquet.test.ts.
"""
import json
import os
import sys
import tempfile
import urllib.parse
import urllib.request

import geopandas as gpd

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
HEADERS = {"x-api-key": os.environ["TRIBUTARY_API_KEY"]} if os.environ.get("TRIBUTARY_API_KEY") else {}


def download(url, path):
    with urllib.request.urlopen(urllib.request.Request(url, headers=HEADERS), timeout=300) as response, open(path, "wb") as out:
        while chunk := response.read(1 << 20):
            out.write(chunk)
    return path


with urllib.request.urlopen(urllib.request.Request(f"{BASE}/v1/downloads", headers=HEADERS), timeout=60) as response:
    datasets = json.load(response)["datasets"]
if not datasets:
    sys.exit("the server lists no dataset files yet")
doi = sys.argv[1] if len(sys.argv) > 1 else datasets[0]["DOI"]
characteristic = sys.argv[2] if len(sys.argv) > 2 else "pH"
folder = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp()
dataset = next((d for d in datasets if d["DOI"] == doi), None)
if dataset is None:
    sys.exit(f"{doi} is not in {BASE}/v1/downloads")

file = download(dataset["files"]["parquet"]["url"], os.path.join(folder, "dataset.parquet"))
# OData string literals double their quotes; quote_via=quote sends spaces as %20.
query = urllib.parse.urlencode({"$filter": f"CharacteristicName eq '{characteristic.replace(chr(39), chr(39) * 2)}'", "$format": "parquet"}, quote_via=urllib.parse.quote)
export = download(f"{BASE}/v1/export/Records?{query}", os.path.join(folder, "export.parquet"))

for name, path in (("dataset", file), ("export", export)):
    frame = gpd.read_parquet(path)
    print(f"{name}: {len(frame)} rows, geometry {frame.geometry.name} ({', '.join(sorted(set(frame.geom_type)))}), CRS {frame.crs.to_string()}, bounds {list(frame.total_bounds)}")

frame = gpd.read_parquet(file)
locations = frame.drop_duplicates("MonitoringLocationID")[["MonitoringLocationID", "MonitoringLocationName", "geometry"]]
print(f"{doi}: {len(locations)} locations")
print(locations.head(5).to_string(index=False))
