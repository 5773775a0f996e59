#!/usr/bin/env python3
"""Writes a copy of a collc module with one defect, for check_module.py's
failure tests.

usage: tamper.py MODULE sha256|kernel|arch OUT
  sha256  the first image's sha256 in the manifest changed
  kernel  the first kernel renamed in the manifest (the cubin lacks it)
  arch    the first image's first entry labelled for another architecture
          (sha256 and size updated: only reading the fatbin finds it)
"""
import base64
import hashlib
import json
import struct
import sys

path, how, out = sys.argv[1:]
with open(path) as f:
    m = json.load(f)
image = m["images"][0]
if how == "sha256":
    image["sha256"] = "0" * 64
elif how == "kernel":
    m["kernels"][0]["name"] += "_renamed"
elif how == "arch":
    data = bytearray(base64.b64decode(image["data"]))
    # The first entry's header follows the 16-byte fatbin header; its
    # architecture is at 28 (check_module.py, fatbin_entries).
    struct.pack_into("<I", data, 16 + 28, 75)
    image["data"] = base64.b64encode(bytes(data)).decode()
    image["sha256"] = hashlib.sha256(data).hexdigest()
else:
    sys.exit(f"unknown defect {how}")
with open(out, "w") as f:
    json.dump(m, f)
