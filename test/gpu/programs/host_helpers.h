//===- host_helpers.h - host helpers of the GPU program tests ---*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// The host side of the GPU program tests (allreduce_probe.cu,
// runtime_programs.cpp): bf16 bits to and from float for the references,
// random inputs that contain the values the readiness encodings must carry
// unchanged, and the options that say where results go.
//
//===----------------------------------------------------------------------===//

#ifndef COLLC_TEST_GPU_PROGRAMS_HOST_HELPERS_H
#define COLLC_TEST_GPU_PROGRAMS_HOST_HELPERS_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

/// float -> bf16 bits, round to nearest even; every NaN -> 0x7FFF, as the
/// device's __float2bfloat16_rn.
inline uint16_t bf16FromFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return 0x7FFF;
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/// bf16 bits -> float, exactly.
inline float floatFromBf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Random bf16 bits, with the special values sprinkled in.
inline uint16_t randomBf16(std::mt19937_64 &rng) {
  switch (rng() % 16) {
  case 0:
    return 0xFFFF; // the sentinel pattern (a negative NaN)
  case 1:
    return 0x8000; // -0.0
  case 2:
    return 0x7F80 | (rng() % 2 ? 0x8000 : 0); // +-inf
  case 3:
    return static_cast<uint16_t>((rng() % 0x7F) + 1); // subnormal
  case 4:
    return static_cast<uint16_t>(0x7FC1 + rng() % 8); // NaN payloads
  default: {
    // A finite value of moderate exponent, either sign.
    const uint16_t exp = static_cast<uint16_t>(120 + rng() % 16);
    const uint16_t sign = static_cast<uint16_t>((rng() & 1) << 15);
    return static_cast<uint16_t>(sign | (exp << 7) | (rng() & 0x7F));
  }
  }
}

/// Where the results of a run go: --json=FILE (one record a line), and the
/// --machine= and --date= the records carry.
struct ResultOptions {
  FILE *json = nullptr;
  std::string machine = "unknown", date = "unknown";
  /// Takes `arg` if it is one of these options.
  bool parse(const std::string &arg) {
    if (arg.rfind("--json=", 0) == 0)
      json = std::fopen(arg.c_str() + 7, "w");
    else if (arg.rfind("--machine=", 0) == 0)
      machine = arg.substr(10);
    else if (arg.rfind("--date=", 0) == 0)
      date = arg.substr(7);
    else
      return false;
    return true;
  }
};

#endif // COLLC_TEST_GPU_PROGRAMS_HOST_HELPERS_H
