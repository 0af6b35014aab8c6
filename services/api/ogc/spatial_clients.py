"""Python clients of the spatial filters (issue 40), run by spatial-clients.test.ts against a live server.

  spatial_clients.py shapes      (shapely + urllib) fetch every location from the API, build test shapes around them
                                 (a polygon with a hole, a multipolygon, a triangle whose vertices are locations, a
                                 line through two locations, a box), compute with shapely which locations each spatial
                                 function selects, and ask the API the same by POSTed CQL2-JSON and OData $query.
  spatial_clients.py owslib FILE (OWSLib) send each shape of FILE as a CQL2-Text filter through OWSLib's Features.

Both print JSON on stdout. TRIBUTARY_URL and TRIBUTARY_API_KEY name the server and key.
"""
import json
import os
import sys
import urllib.parse
import urllib.request

BASE = os.environ["TRIBUTARY_URL"]
KEY = os.environ["TRIBUTARY_API_KEY"]
RELATIONS = ["intersects", "within", "touches", "disjoint", "contains", "equals", "overlaps", "crosses"]


def request(path, body=None, content_type=None):
    req = urllib.request.Request(BASE + path, data=body.encode() if body is not None else None, headers={"x-api-key": KEY, **({"Content-Type": content_type} if content_type else {})})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())


def all_locations():
    out, path = [], "/v1/odata/v4/Locations?$select=Id,Longitude,Latitude&$top=10000"
    while path:
        page = request(path)
        out += page["value"]
        link = page.get("@odata.nextLink")
        path = link[len(BASE):] if link else None
    return out


def item_ids(collection_path, body):
    ids, path = [], collection_path
    while path:
        page = request(path, body, "application/query-cql-json")
        ids += [f["id"] for f in page["features"]]
        nxt = next((l["href"] for l in page["links"] if l["rel"] == "next"), None)
        if not nxt:
            break
        # The next link carries the filter as cql2-json; POST the body again to it without the filter.
        url = urllib.parse.urlsplit(nxt)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(url.query) if k not in ("filter", "filter-lang")]
        path = url.path + "?" + urllib.parse.urlencode(query)
    return sorted(ids)


def shapes_mode():
    from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box, mapping

    locations = all_locations()
    xs = sorted(l["Longitude"] for l in locations)
    ys = sorted(l["Latitude"] for l in locations)
    cx, cy = xs[len(xs) // 2], ys[len(ys) // 2]
    span = max(xs[-1] - xs[0], ys[-1] - ys[0])
    ring = Point(cx, cy).buffer(span / 4, quad_segs=40)
    hole = Point(cx, cy).buffer(span / 12, quad_segs=10)
    with_hole = Polygon(ring.exterior.coords, [hole.exterior.coords])
    far = Point(xs[len(xs) // 10], ys[len(ys) // 10]).buffer(span / 15, quad_segs=8)
    multi = MultiPolygon([with_hole, far]) if not with_hole.intersects(far) else MultiPolygon([with_hole])
    # Vertices at locations: those locations are on the boundary (touches), not within.
    a, b, c = (locations[i] for i in (0, len(locations) // 3, 2 * len(locations) // 3))
    triangle = Polygon([(a["Longitude"], a["Latitude"]), (b["Longitude"], b["Latitude"]), (c["Longitude"], c["Latitude"])])
    line = LineString([(a["Longitude"], a["Latitude"]), (b["Longitude"], b["Latitude"]), (b["Longitude"] + 0.1, b["Latitude"] + 0.1)])
    square = box(xs[len(xs) // 4], ys[len(ys) // 4], xs[3 * len(xs) // 4], ys[3 * len(ys) // 4])
    cases = {"polygon with a hole": with_hole, "multipolygon": multi, "triangle through three locations": triangle, "line through two locations": line, "box with locations on its edges": square}
    if not triangle.is_valid or triangle.area == 0:
        del cases["triangle through three locations"]
    points = [(l["Id"], Point(l["Longitude"], l["Latitude"])) for l in locations]
    out = {"locations": len(locations), "cases": []}
    for name, g in cases.items():
        for relation in RELATIONS:
            predicate = {"intersects": lambda p: p.intersects(g), "within": lambda p: p.within(g), "touches": lambda p: p.touches(g), "disjoint": lambda p: p.disjoint(g),
                         "contains": lambda p: p.contains(g), "equals": lambda p: p.equals(g), "overlaps": lambda p: p.overlaps(g), "crosses": lambda p: p.crosses(g)}[relation]
            expected = sorted(i for i, p in points if predicate(p))
            body = json.dumps({"op": "s_" + relation, "args": [{"property": "geometry"}, mapping(g)]})
            got = item_ids("/v1/features/collections/locations/items?limit=10000", body)
            case = {"shape": name, "relation": relation, "wkt": g.wkt, "expected": expected, "cql2json": got}
            if relation == "intersects":
                odata = request("/v1/odata/v4/Locations/$query", "$select=Id&$top=10000&$filter=" + urllib.parse.quote("geo.intersects(Location,geography'SRID=4326;" + g.wkt + "')"), "text/plain")
                case["odata"] = sorted(r["Id"] for r in odata["value"])
            out["cases"].append(case)
    print(json.dumps(out))


def owslib_mode(path):
    from owslib.ogcapi.features import Features

    cases = json.load(open(path))["cases"]
    w = Features(BASE + "/v1/features", headers={"x-api-key": KEY})
    out = []
    for case in cases:
        text = "S_" + case["relation"].upper() + "(geometry, " + case["wkt"] + ")"
        items = w.collection_items("locations", limit=10000, filter=text)
        out.append(sorted(f["id"] for f in items["features"]))
    print(json.dumps(out))


if __name__ == "__main__":
    shapes_mode() if sys.argv[1] == "shapes" else owslib_mode(sys.argv[2])
