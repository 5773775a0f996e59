#!/usr/bin/env python3
"""Compiles a CUDA source with NVRTC (ctypes, the library collc itself uses)
to a cubin for each architecture given, so that ptxas checks the inline PTX
too: the program kernels of kernels.cu instantiate every op of program.cuh
(put, take, reduce_take; LL16, sentinel, flag), which a header compiled on
its own (collc --check-device-headers) does not. Used by
test/Target/Cuda/device-headers.test; needs no GPU.

usage: nvrtc_check.py PTXAS INCLUDE_DIR SOURCE [-DNAME...] [--count=TEXT...]
                      ARCH...
Prints one line per architecture: "<arch>: ok", or the compile log. For a
virtual architecture (compute_90: PTX, no cubin) each --count=TEXT adds
"<arch>: N TEXT", N the times TEXT occurs in the PTX.
"""
import ctypes
import os
import sys

ptxas, include, source = sys.argv[1], sys.argv[2], sys.argv[3]
defines = [a.encode() for a in sys.argv[4:] if a.startswith("-D")]
counts = [a[len("--count="):] for a in sys.argv[4:]
          if a.startswith("--count=")]
arches = [a for a in sys.argv[4:]
          if not a.startswith("-D") and not a.startswith("--count=")]
cuda = os.path.dirname(os.path.dirname(os.path.realpath(ptxas)))
lib = None
for name in ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"):
    path = os.path.join(cuda, "lib64", name)
    if os.path.exists(path):
        lib = ctypes.CDLL(path)
        break
if lib is None:
    sys.exit("nvrtc_check: no libnvrtc.so under " + cuda)

text = open(source, "rb").read()
failed = 0
for arch in arches:
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), text,
                                  os.path.basename(source).encode(), 0, None,
                                  None) == 0
    opts = [b"--gpu-architecture=" + arch.encode(), b"--std=c++17",
            b"-I" + include.encode(), b"-default-device",
            b"-I" + os.path.join(cuda, "include").encode()] + defines
    arr = (ctypes.c_char_p * len(opts))(*opts)
    res = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if res != 0:
        failed += 1
        print("%s: FAILED\n%s" % (arch, log.value.decode(errors="replace")))
    else:
        print("%s: ok" % arch)
        if arch.startswith("compute_") and counts:
            size = ctypes.c_size_t()
            lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
            ptx = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetPTX(prog, ptx)
            for word in counts:
                print("%s: %d %s" % (arch, ptx.value.decode().count(word),
                                     word))
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
sys.exit(1 if failed else 0)
