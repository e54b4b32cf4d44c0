"""Prints the YAML documents of the files given as one JSON list (PyYAML, a dependency of
kubernetes-validate), so that the Rust test reads the manifests as serde_json values."""
import json
import sys

import yaml

docs = []
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        for doc in yaml.safe_load_all(f):
            if doc is not None:
                docs.append({"file": path, "doc": doc})
json.dump(docs, sys.stdout)
