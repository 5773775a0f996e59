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

// expected-error@+1 {{policy key 'one_hop_max_bytes' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {one_hop_max_bytes = 65536 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy key 'path' is not implemented yet: collc derives one path; remove the key}}
coll.collective @a types [f32] ranks [2] policy {path = "two_hop"} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy key 'direction' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {direction = "pull"} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy 'protocol = ll' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {protocol = "ll"} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy 'protocol = sentinel' is not implemented yet}}
coll.collective @a types [f32] ranks [2] policy {protocol = "sentinel"} {
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

// expected-error@+1 {{module policy: policy 'protocol = ll' is not implemented yet}}
module attributes {coll.policy = {protocol = "ll"}} {
}

// -----

// `flag` and `auto` are the one encoding the backend lowers: accepted.
module attributes {coll.policy = {protocol = "auto"}} {
coll.collective @a types [f32] ranks [2] policy {protocol = "flag", staging_slots = 1 : i64} {
  coll.transform copy packed -> scattered
}
}
