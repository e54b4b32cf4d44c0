"""Checks `rebound export --format envoy` against Envoy's own API: every route is parsed as an
envoy.config.route.v3.Route and every cluster as an envoy.config.cluster.v3.Cluster by
protobuf's strict JSON parser (an unknown or misspelt field, or a value of the wrong type, is
refused), then checked by protoc-gen-validate against the validation rules Envoy's protos
carry (required fields, duration > 0, percent in [0, 100], ...). The protos come from PyPI's
xds-protos (generated from envoyproxy/data-plane-api by the gRPC project).

Usage: check_export.py EXPORT.json
Prints {"routes": N, "clusters": M} and exits 0, or prints {"error": "..."} and exits 1.
"""

import json
import sys

from envoy.config.cluster.v3 import cluster_pb2
from envoy.config.route.v3 import route_components_pb2
from google.protobuf import json_format
from protoc_gen_validate import validator


def check(kind, value, message):
    try:
        msg = json_format.Parse(json.dumps(value), message())
        validator.validate(msg)
    except Exception as e:  # json_format.ParseError, validator.ValidationFailed
        print(json.dumps({"error": f"{kind}: {type(e).__name__}: {e}"}))
        sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    unknown = set(doc) - {"routes", "clusters"}
    if unknown:
        print(json.dumps({"error": f"unknown top-level keys {sorted(unknown)}"}))
        sys.exit(1)
    for route in doc["routes"]:
        check("route", route, route_components_pb2.Route)
    for cluster in doc["clusters"]:
        check("cluster", cluster, cluster_pb2.Cluster)
    print(json.dumps({"routes": len(doc["routes"]), "clusters": len(doc["clusters"])}))


if __name__ == "__main__":
    main()
