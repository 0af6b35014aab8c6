"""Reads JSON-LD or Turtle on stdin with rdflib (a real JSON-LD processor and Turtle parser) and prints its triples
as JSON lines: {"s", "p", "o", "kind": iri|blank|literal, "datatype"}. The network is closed first, so a document
that needs a remote @context fails here instead of fetching it. Used by services/api/testing/rdf.ts.

    python3 rdf-triples.py json-ld|turtle < document
"""
import json
import socket
import sys

import rdflib


def refuse(*_args, **_kwargs):
    raise OSError("rdf-triples: no network (the document must carry its @context inline)")


socket.socket.connect = refuse
socket.create_connection = refuse

fmt = sys.argv[1]
graph = rdflib.Graph()
graph.parse(data=sys.stdin.read(), format=fmt, publicID="http://invalid.example/")
for s, p, o in graph:
    kind = "literal" if isinstance(o, rdflib.Literal) else "blank" if isinstance(o, rdflib.BNode) else "iri"
    row = {"s": str(s), "p": str(p), "o": str(o), "kind": kind}
    if kind == "literal" and o.datatype is not None:
        row["datatype"] = str(o.datatype)
    print(json.dumps(row))
