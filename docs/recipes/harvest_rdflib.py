#!/usr/bin/env python3
"""Harvest Tributary as a catalogue would: robots.txt → sitemap → the DCAT catalogue (Turtle) → a landing page's
schema.org JSON-LD → every location from the NDJSON-LD dump, each read with rdflib into RDF.

None of these needs a key: they are the documents search engines and harvesters (Google Dataset Search, CKAN's
ckanext-dcat, Geoconnex) read. Every JSON-LD document carries its @context inline, so no remote context is fetched.

    pip install rdflib
    TRIBUTARY_URL=https://api.example.org python3 docs/recipes/harvest_rdflib.py

Tested in services/api/recipes.test.ts.
"""
import json
import os
import re
import urllib.request
from html.parser import HTMLParser

import rdflib
from rdflib.namespace import DCAT, DCTERMS, RDF

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/")
SCHEMA = rdflib.Namespace("https://schema.org/")
HYF = rdflib.Namespace("https://www.opengis.net/def/schema/hy_features/hyf/")


def get(url, accept="*/*"):
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept})) as res:
        return res.read().decode("utf-8")


def sitemap_urls(url):
    """Every page a sitemap lists, following a sitemap index to its parts."""
    xml = get(url)
    locs = re.findall(r"<loc>([^<]+)</loc>", xml)
    if "<sitemapindex" in xml:
        return [page for part in locs for page in sitemap_urls(part)]
    return [loc.replace("&amp;", "&") for loc in locs]


class JsonLdBlocks(HTMLParser):
    """The text of each <script type="application/ld+json"> of a page."""

    def __init__(self):
        super().__init__()
        self.blocks, self._inside = [], False

    def handle_starttag(self, tag, attrs):
        self._inside = tag == "script" and ("type", "application/ld+json") in attrs
        if self._inside:
            self.blocks.append("")

    def handle_endtag(self, tag):
        self._inside = False

    def handle_data(self, data):
        if self._inside:
            self.blocks[-1] += data


# 1. robots.txt names the sitemap; the sitemap names every landing page.
sitemap = re.search(r"^Sitemap:\s*(\S+)", get(f"{BASE}/robots.txt"), re.M).group(1)
pages = sitemap_urls(sitemap)
datasets = [p for p in pages if "/datasets/" in p]
print(f"sitemap: {len(pages)} pages, {len(datasets)} datasets")

# 2. The DCAT catalogue, as Turtle: every dataset with its licence and files.
catalogue = rdflib.Graph().parse(data=get(f"{BASE}/catalogue", "text/turtle"), format="turtle")
for ds in sorted(catalogue.subjects(RDF.type, DCAT.Dataset)):
    files = [d for d in catalogue.objects(ds, DCAT.distribution) if catalogue.value(d, DCAT.downloadURL)]
    size = sum(int(catalogue.value(d, DCAT.byteSize)) for d in files)
    print(f"dcat: {catalogue.value(ds, DCTERMS.identifier)} {catalogue.value(ds, DCTERMS.title)}: {len(files)} files, {size} bytes, licence {catalogue.value(ds, DCTERMS.license)}")

# 3. A dataset's landing page: the schema.org Dataset a search engine reads.
parser = JsonLdBlocks()
parser.feed(get(datasets[0], "text/html"))
page = rdflib.Graph().parse(data=parser.blocks[0], format="json-ld")
dataset = page.value(predicate=RDF.type, object=SCHEMA.Dataset, any=False)
print(f"page: {dataset} is a schema:Dataset named '{page.value(dataset, SCHEMA.name)}', "
      f"{len(list(page.objects(dataset, SCHEMA.variableMeasured)))} variables, {len(list(page.objects(dataset, SCHEMA.distribution)))} downloads")

# 4. Every location, streamed a line at a time from the NDJSON-LD dump.
places, measured = 0, 0
with urllib.request.urlopen(f"{BASE}/catalogue/locations.ndjson") as res:
    for line in res:
        g = rdflib.Graph().parse(data=line.decode("utf-8"), format="json-ld")
        place = g.value(predicate=RDF.type, object=HYF.HY_HydroLocation, any=False)
        places += 1
        measured += 1 if g.value(place, SCHEMA.subjectOf) is not None else 0
print(f"locations: {places} hydro locations, {measured} subjectOf a dataset")
