//===- sha256.h - SHA-256 of module images ----------------------*- C++ -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The runtime checks every module image against the SHA-256 in the manifest
/// before handing it to the driver. Written here because the GPU machines
/// have no crypto library headers and libcollc depends on nothing but CUDA.
///
//===----------------------------------------------------------------------===//

#ifndef COLLC_RUNTIME_SRC_SHA256_H
#define COLLC_RUNTIME_SRC_SHA256_H

#include <string>

namespace collc {
/// Lower-case hex SHA-256 (FIPS 180-4) of `data`.
std::string sha256Hex(const std::string &data);
} // namespace collc

#endif // COLLC_RUNTIME_SRC_SHA256_H
