#!/usr/bin/env bash
# Installs what the full build needs (Debian 12): LLVM/MLIR 22, fmt,
# nlohmann/json, GoogleTest, CMake, Ninja, zstd (check_module.py reads the
# modules' compressed fat binaries with it), pytest, pip and setuptools (the
# Python package's tests and its offline install), PyTorch (collc.torch's
# tests: CPU, gloo), matplotlib
# (collc-trace-plot); with --fuzz, clang and
# libFuzzer too. CUDA 13 is expected at /usr/local/cuda. Skips apt entirely
# when everything is already there.
set -euo pipefail

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libfmt-dev
          nlohmann-json3-dev libgtest-dev ninja-build cmake g++ python3 zstd
          python3-pytest python3-pip python3-setuptools python3-matplotlib
          python3-torch)
# --fuzz: also clang and libFuzzer, for scripts/fuzz.sh.
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-22 libclang-rt-22-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -f /usr/local/cuda/include/nvrtc.h ]; then
  echo "install-deps: CUDA 13 toolkit not found at /usr/local/cuda (nvrtc.h missing)" >&2
  exit 1
fi
