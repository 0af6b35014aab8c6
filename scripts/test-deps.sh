#!/usr/bin/env bash
# What `make test` needs beyond npm packages, installed or started when missing (Debian, as root):
# the local PostgreSQL cluster for the board's suite, Chromium for its browser test, xmllint for the CSDL
# schema check, docker-compose for the compose file check, curl, jq and python3 for the recipes the tests run, HAProxy
# and redis-server for the replica tests (which start their own Redis; the shared-limit tests use 127.0.0.1:6379),
# GDAL's ogrinfo/ogr2ogr, Python's OWSLib and QGIS's python3-qgis for the OGC API – Features clients' tests
# (services/api/ogc/).
set -euo pipefail

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "test-deps: starting the local PostgreSQL cluster"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi

need=()
command -v chromium >/dev/null || need+=(chromium)
command -v xmllint >/dev/null || need+=(libxml2-utils)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v curl >/dev/null || need+=(curl)
command -v jq >/dev/null || need+=(jq)
command -v python3 >/dev/null || need+=(python3)
command -v haproxy >/dev/null || need+=(haproxy)
command -v redis-server >/dev/null || need+=(redis-server)
command -v ogrinfo >/dev/null || need+=(gdal-bin)
# R's sf (Debian's, GDAL 3.6) runs docs/recipes/r-sf.md in services/api/ogc/gis-clients.test.ts.
command -v Rscript >/dev/null && Rscript -e 'library(sf)' >/dev/null 2>&1 || need+=(r-cran-sf)
# R's survival (with jsonlite for its input and output) is the statistics oracle's reference (scripts/testing/km-survival.R).
command -v Rscript >/dev/null && Rscript -e 'library(survival); library(jsonlite)' >/dev/null 2>&1 || need+=(r-cran-survival r-cran-jsonlite)
# Debian's OWSLib is in the system interpreter, which a pyenv python3 does not see (the test looks in both).
python3 -c 'import owslib' 2>/dev/null || /usr/bin/python3 -c 'import owslib' 2>/dev/null || need+=(python3-owslib)
# QGIS's own OGC API – Features client (its OAPIF provider, QGIS 3.22) for services/api/ogc/qgis-client.test.ts and the
# bench's layer rate, headless (Qt's offscreen platform), likewise only in the system interpreter.
QT_QPA_PLATFORM=offscreen /usr/bin/python3 -c 'import qgis.core' >/dev/null 2>&1 || need+=(python3-qgis)
if [ ${#need[@]} -gt 0 ]; then
  echo "test-deps: installing ${need[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Python packages from pip's index or mirror, each with the import that shows it is there; one pip run installs the
# missing ones. `--retries 1`: where pip's default index is unreachable and a mirror serves, five retries per lookup
# with back-off took minutes on a fresh machine.
pip_need=()
want() { python3 -c "import $1" 2>/dev/null || pip_need+=("$2"); }
# pandas, pyarrow, duckdb and polars for the export and download recipes (docs/recipes/*.py).
want pandas pandas; want pyarrow pyarrow; want duckdb duckdb; want polars polars
# geopandas and pyogrio (GDAL 3.12 in its wheel) for the GIS clients' test.
want geopandas geopandas; want pyogrio pyogrio
# prometheus-client's parser for the metrics' text format (scripts/testing/prometheus-parse.ts).
want prometheus_client prometheus-client
# requests for the citation recipe (docs/recipes/python_citation.py).
want requests requests
# rdflib for the landing pages' and catalogues' linked data (services/api/testing/rdf-triples.py): a real JSON-LD and Turtle reader.
want rdflib rdflib
# shapely, the independent point-in-polygon reference of the spatial clients' test (services/api/ogc/spatial_clients.py).
want shapely shapely
# scipy, the reference of the trends oracle's numerics, Kruskal–Wallis and Sen slope (scripts/testing/*.test.ts).
want scipy scipy
# mcp, Python's official Model Context Protocol SDK, the second client of the MCP door (services/api/mcp/mcp_client.py).
want mcp mcp
if [ ${#pip_need[@]} -gt 0 ]; then
  echo "test-deps: installing ${pip_need[*]} with pip"
  python3 -m pip install --quiet --retries 1 "${pip_need[@]}"
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "test-deps: starting Redis on 127.0.0.1:6379"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no >/dev/null
fi
