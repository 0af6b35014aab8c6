"""OWSLib (Debian python3-owslib) paging a Tributary collection to its end through OGC API – Features.

    TRIBUTARY_URL=http://localhost:3000 TRIBUTARY_API_KEY=... python3 owslib_features.py observations CharacteristicName=pH

Prints one JSON line: the collection, numberMatched of the first page, how many features were read and in how many
pages, and the first and last feature ids. Each page's `next` link carries the cursor of the page after it.
"""
import json
import os
import sys
from urllib.parse import parse_qsl, urlparse

from owslib.ogcapi.features import Features

BASE = os.environ.get('TRIBUTARY_URL', 'http://localhost:3000').rstrip('/')
KEY = os.environ.get('TRIBUTARY_API_KEY')

collection = sys.argv[1] if len(sys.argv) > 1 else 'locations'
params = dict(arg.split('=', 1) for arg in sys.argv[2:])
params.setdefault('limit', '1000')

api = Features(f'{BASE}/v1/features', headers={'x-api-key': KEY} if KEY else None)
ids, pages, matched = [], 0, None
while True:
    page = api.collection_items(collection, **params)
    pages += 1
    matched = page['numberMatched'] if matched is None else matched
    ids += [feature['id'] for feature in page['features']]
    following = next((link['href'] for link in page['links'] if link['rel'] == 'next'), None)
    if following is None:
        break
    params = dict(parse_qsl(urlparse(following).query))

print(json.dumps({'collection': collection, 'numberMatched': matched, 'read': len(ids), 'pages': pages,
                  'first': ids[0] if ids else None, 'last': ids[-1] if ids else None}))
