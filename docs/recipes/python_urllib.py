#!/usr/bin/env python3
"""Tributary with the Python standard library only.

Lists datasets with their citation, pages through every observation of one dataset by @odata.nextLink,
checks the total against $count, reads the cite-as link, and counts observations per characteristic.

    TRIBUTARY_URL=https://api.example.org TRIBUTARY_API_KEY=... python3 docs/recipes/python_urllib.py

Tested in services/api/recipes.test.ts.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ.get("TRIBUTARY_URL", "http://localhost:3000").rstrip("/") + "/v1/odata/v4"
HEADERS = {"Accept": "application/json"}
if os.environ.get("TRIBUTARY_API_KEY"):
    HEADERS["x-api-key"] = os.environ["TRIBUTARY_API_KEY"]


def get(resource_or_url, options=None):
    """One GET; returns (parsed JSON, response headers). Exits with the API's message on an error status."""
    url = resource_or_url if resource_or_url.startswith("http") else f"{BASE}/{resource_or_url}"
    if options:
        # quote_via=quote encodes spaces as %20; the default quote_plus would send '+'.
        url += "?" + urllib.parse.urlencode(options, quote_via=urllib.parse.quote)
    request = urllib.request.Request(url, headers=HEADERS)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response), response.headers
    except urllib.error.HTTPError as err:
        body = json.load(err)
        sys.exit(f"HTTP {err.code}: {body['message'] or body['errors'][0]['detail']}")


def rows(resource, options):
    """Every row matching the options, page after page."""
    page, _ = get(resource, options)
    while True:
        yield from page["value"]
        if "@odata.nextLink" not in page:
            return
        page, _ = get(page["@odata.nextLink"])


def quoted(text):
    """An OData string literal: quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


datasets, _ = get("Metadata", {"$select": "DOI,DatasetName,Citation,Licence", "$top": "1000"})
for d in datasets["value"]:
    print(f"{d['DatasetName']}: https://doi.org/{d['DOI']} licence: {d['Licence']}")

dataset = datasets["value"][0]
doi_filter = f"DOI eq {quoted(dataset['DOI'])}"
select = "Id,LocationId,CharacteristicName,ActivityStartDate,ResultValue,ResultUnit"
paged = sum(1 for _ in rows("Observations", {"$filter": doi_filter, "$select": select, "$top": "1000"}))
count, headers = get("Observations", {"$filter": doi_filter, "$count": "true"})
print(f"{dataset['DOI']}: {paged} rows paged, $count {count['value']}")

cite_as = re.search(r'<([^>]*)>;\s*rel="cite-as"', headers.get("Link", ""))
print(f"cite as: {cite_as.group(1) if cite_as else '(no cite-as link)'}")

groups, _ = get("Observations", {"$apply": "groupby((CharacteristicName),aggregate($count as Count))"})
for g in groups["value"][:5]:
    print(f"{g['CharacteristicName']}: {g['Count']}")

sys.exit(0 if paged == count["value"] else 1)
