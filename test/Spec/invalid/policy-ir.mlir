// The coll IR verifier refuses what the front end refuses: a .mlir input
// cannot carry a policy key or value that nothing implements.
// RUN: collc-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{policy key 'pipeline_stages' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {pipeline_stages = 4 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy key 'll_max_bytes' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {ll_max_bytes = 65536 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy key 'path' is not implemented yet: the path follows from the call's size: one-shot programs up to 'one_hop_max_bytes', the schedule above; remove the key}}
coll.collective @a types [f32] ranks [2] policy {path = "two_hop"} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy key 'direction' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {direction = "pull"} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy 'staging_slots = 0' (one slot per chunk) is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {staging_slots = 0 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy 'ctas' value 100000000000000000000 is out of range; it must be in [1, 1024]}}
coll.collective @a types [f32] ranks [2] policy {ctas = 100000000000000000000 : i128} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{module policy: policy key 'path' is not implemented yet}}
module attributes {coll.policy = {path = "one_hop"}} {
}

// -----

// expected-error@+1 {{module policy: policy 'one_hop_max_bytes' must be in [0, 1073741824], got -1}}
module attributes {coll.policy = {one_hop_max_bytes = -1 : i64}} {
}

// -----

// Every encoding is accepted (`ll` is the alias of `ll16`).
module attributes {coll.policy = {protocol = "ll"}} {
coll.collective @a types [f32] ranks [2] policy {protocol = "sentinel", staging_slots = 1 : i64} {
  coll.transform copy packed -> scattered
}
}
