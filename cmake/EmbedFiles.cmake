# Writes OUT: a C++ array `kDeviceHeaders` of {include path, contents} for
# every .cuh/.h under ROOT/collc/device and ROOT/collc/vocab.h (the shared
# vocabulary the device headers include), so collc carries its device headers
# (an installed compiler needs no source tree). Run at build time by
# compiler/lib/Target/Cuda/CMakeLists.txt; rewrites OUT only on change.
file(GLOB_RECURSE files RELATIVE "${ROOT}"
  "${ROOT}/collc/device/*.cuh" "${ROOT}/collc/device/*.h"
  "${ROOT}/collc/vocab.h")
list(SORT files)
set(content "// Generated from runtime/include/collc/device by cmake/EmbedFiles.cmake.\n")
string(APPEND content "static const std::pair<const char *, const char *> kDeviceHeaders[] = {\n")
foreach(f IN LISTS files)
  file(READ "${ROOT}/${f}" text)
  string(FIND "${text}" ")collc_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter )collc_embed\"")
  endif()
  string(APPEND content "  {\"${f}\", R\"collc_embed(${text})collc_embed\"},\n")
endforeach()
string(APPEND content "};\n")
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
