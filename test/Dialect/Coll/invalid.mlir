// RUN: collc-opt %s -split-input-file -verify-diagnostics

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{copy takes no reduction operator, got '<sum>'}}
  coll.transform copy<sum> packed -> scattered
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{reduce needs a reduction operator: reduce<sum|max|min|avg>}}
  coll.transform reduce scattered -> packed
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{variable-size layout 'transposed_v' cannot pair with fixed-size layout 'scattered'}}
  coll.transform copy scattered -> transposed_v
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{reduce(packed -> scattered) is not a collective; reduce accepts scattered -> packed, packed -> packed (or their V variants), never with a packed_v input}}
  coll.transform reduce<sum> packed -> scattered
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{reduce(packed_v -> packed_v) is not a collective: a reduction combines equal-sized contributions, but packed_v gives each rank's contribution its own size; use reduce(packed -> packed), whose count is also given at run time}}
  coll.transform reduce<sum> packed_v -> packed_v
}

// -----

// Rooted, or after a broadcast_v (where every rank would hold the root's
// size), it is refused all the same: the rule is on the transform.
coll.collective @a types [bf16] ranks [2] {
  coll.transform copy packed_v -> packed_v root producer
  // expected-error@+1 {{reduce(packed_v -> packed_v) is not a collective}}
  coll.transform reduce<max> packed_v -> packed_v
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{reduce(packed_v -> packed_v) is not a collective}}
  coll.transform reduce<sum> packed_v -> packed_v root consumer
}

// -----

// A pair that is not a collective in fixed sizes either gets the general
// message.
coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{reduce(packed_v -> scattered_v) is not a collective; reduce accepts scattered -> packed, packed -> packed (or their V variants), never with a packed_v input}}
  coll.transform reduce<sum> packed_v -> scattered_v
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{copy(packed -> packed) takes root producer, got root none}}
  coll.transform copy packed -> packed
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{copy(packed -> scattered) takes root none or consumer, got root producer}}
  coll.transform copy packed -> scattered root producer
}

// -----

coll.collective @a types [bf16] ranks [2] {
  coll.transform copy packed -> scattered
  // expected-error@+1 {{cannot compose: output layout 'scattered' of the first transform does not match input layout 'packed' of the second}}
  coll.transform copy packed -> scattered
}

// -----

coll.collective @a types [bf16] ranks [2] {
  coll.transform copy scattered -> packed root producer
  // expected-error@+1 {{a composition may have at most one rooted transform}}
  coll.transform copy packed -> scattered root consumer
}

// -----

coll.collective @a types [bf16] ranks [2] {
  // expected-error@+1 {{a root consumer transform must come last in a composition}}
  coll.transform copy packed -> scattered root consumer
  coll.transform reduce<sum> scattered -> packed
}

// -----

coll.collective @a types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  // expected-error@+1 {{a root producer transform must come first in a composition}}
  coll.transform copy packed -> packed root producer
}

// -----

// expected-error@+1 {{has 3 transforms; a collective is one transform or a composition of two}}
coll.collective @a types [bf16] ranks [2] {
  coll.transform reduce<sum> scattered -> packed
  coll.transform copy packed -> scattered
  coll.transform reduce<sum> scattered -> packed
}

// -----

// expected-error@+1 {{body is empty; expected one coll.transform or two composed}}
coll.collective @a types [bf16] ranks [2] {
}

// -----

// expected-error@+1 {{unsupported element type 'i32'; supported: bf16, f16, f32, f8e4m3, f8e5m2}}
coll.collective @a types [bf16, i32] ranks [2] {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{needs at least one element type}}
coll.collective @a types [] ranks [2] {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{world size must be in [1, 576], got 1000}}
coll.collective @a types [f32] ranks [2, 1000] {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{needs at least one world size}}
coll.collective @a types [f32] ranks [] {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{world size 2 is listed twice}}
coll.collective @a types [f32] ranks [2, 2] {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{policy 'ctas' must be in [1, 1024], got 0}}
coll.collective @a types [f32] ranks [2] policy {ctas = 0 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{unknown policy key 'speed'}}
coll.collective @a types [f32] ranks [2] policy {speed = 11 : i64} {
  coll.transform copy packed -> scattered
}

// -----

// expected-error@+1 {{unknown target 'sm_91'; supported targets: sm_75}}
module attributes {coll.targets = ["sm_91"]} {
}

// -----

// expected-error@+1 {{'coll.targets' must be an array of strings}}
module attributes {coll.targets = "sm_90"} {
}

// -----

// expected-error@+1 {{module policy: policy 'protocol' expects one of auto, flag, ll16, sentinel, ll}}
module attributes {coll.policy = {protocol = "smoke_signals"}} {
}

// -----

// expected-error@+1 {{unknown coll dialect attribute 'coll.tragets'}}
module attributes {coll.tragets = ["sm_90"]} {
}

// -----

// expected-error@+1 {{'coll.transform' op expects parent op 'coll.collective'}}
coll.transform copy packed -> scattered

// -----

coll.collective @a types [f32] ranks [2] {
  // expected-error@+1 {{expected 'packed', 'scattered', 'transposed', 'packed_v', 'scattered_v' or 'transposed_v', got 'gathered'}}
  coll.transform copy packed -> gathered
}
