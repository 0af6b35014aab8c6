"""QGIS's own OGC API - Features client (its OAPIF provider, Debian's python3-qgis), headless: opens one collection
as a layer, as a user adding it in QGIS would, and reads every feature. Run by qgis-client.test.ts and the bench
(scripts/bench/section-layer.ts) against a live server.

  qgis_layer.py URL COLLECTION [MAX]   prints {"version", "features", "distinctIds", "seconds"} as JSON on stdout

URL is the server's origin; MAX, the most features to read (QGIS's maxNumFeatures), else the whole layer. QGIS pages at its provider's own page size (1,000 features) and follows the next links.
QT_QPA_PLATFORM=offscreen lets Qt start without a display.
"""
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import Qgis, QgsApplication, QgsVectorLayer  # noqa: E402

origin, collection = sys.argv[1], sys.argv[2]
most = f" maxNumFeatures='{sys.argv[3]}'" if len(sys.argv) > 3 else ""
app = QgsApplication([], False)
app.initQgis()
try:
    layer = QgsVectorLayer(f"url='{origin}/v1/features' typename='{collection}'{most}", collection, "OAPIF")
    if not layer.isValid():
        sys.exit(f"QGIS could not open {collection}: {layer.error().summary()}")
    id_field = layer.fields().indexOf("Id")
    start = time.monotonic()
    ids = [feature.attribute(id_field) for feature in layer.getFeatures()]
    seconds = time.monotonic() - start
    print(json.dumps({"version": Qgis.QGIS_VERSION, "features": len(ids), "distinctIds": len(set(ids)), "seconds": seconds}), flush=True)
finally:
    # QGIS 3.22's exitQgis() may crash a headless script on the way out (after the work is done): leave without it.
    os._exit(0)
