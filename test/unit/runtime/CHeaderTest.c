//===- CHeaderTest.c - collc.h compiles and works as C ------------*- C -*-===//
//
// Part of the collc project.
//
//===----------------------------------------------------------------------===//
//
// Compiled as C99 so that a C++-only construct in collc.h breaks the build.
// The C++ tests call these functions to check the C side's behaviour.
//
//===----------------------------------------------------------------------===//

#include "collc/collc.h"

#include <stddef.h>

collcResult_t collcTestValidateInitializerFromC(void);
int collcTestConfigSizeFromC(void);

collcResult_t collcTestValidateInitializerFromC(void) {
  collcConfig_t config = COLLC_CONFIG_INITIALIZER;
  return collcConfigValidate(&config);
}

int collcTestConfigSizeFromC(void) { return (int)sizeof(collcConfig_t); }
