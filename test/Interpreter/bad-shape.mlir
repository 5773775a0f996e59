// RUN: collc-opt %s -verify-diagnostics --snac-simulate="shapes=triangle"
// expected-error@below {{unknown partition shape 'triangle'; expected uniform, zipf or skew}}
module {
}
