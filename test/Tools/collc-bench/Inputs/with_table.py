#!/usr/bin/env python3
"""with_table.py MODULE TABLE OUT: MODULE's manifest with TABLE as its
policy_table (what `collc --policy-table=TABLE` stores), for the lit test."""
import json
import sys

m = json.load(open(sys.argv[1]))
m["policy_table"] = json.load(open(sys.argv[2]))
json.dump(m, open(sys.argv[3], "w"), indent=1)
