#!/usr/bin/env python3
"""Checks a collc module file with standard tools, independently of collc.

- every collective x element type x world size has a kernel on every target;
- every target's PTX image was assembled: the module's cubin for that
  target is an ELF whose size and sha256 are the manifest's and whose
  symbol table has every kernel of the target as a function (collc
  assembles each image with nvJitLink, the toolkit's own ptxas, so the
  standalone `ptxas -arch=<target>` runs only for a PTX image without a
  cubin; re-assembling the library's images took most of lit's time);
- with --no-spills TARGET: no kernel of that target spills registers;
- with --programs N: N program kernels (SNAC v2), each with a receive
  buffer whose size follows from its policy by the formulas of
  docs/module-format.md, recomputed here (not read from collc).
Prints one line per check; exits non-zero on the first failure.
"""
import argparse
import base64
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--no-spills", action="append", default=[])
    ap.add_argument("--programs", type=int)
    args = ap.parse_args()
    with open(args.module) as f:
        m = json.load(f)

    have = {(k["target"], k["collective"], k["element_type"], k["world_size"])
            for k in m["kernels"]}
    expected = 0
    for c in m["collectives"]:
        for t in m["targets"]:
            for e in c["element_types"]:
                for n in c["world_sizes"]:
                    expected += 1
                    if (t, c["name"], e, n) not in have:
                        sys.exit(f"missing kernel: {c['name']} {e} n={n} on {t}")
    print(f"kernels: {expected} expected, all present")

    cubins = {i["target"]: i for i in m["images"] if i["kind"] == "cubin"}
    for image in m["images"]:
        if image["kind"] != "ptx":
            continue
        target = image["target"]
        if target in cubins:
            names = [k["name"] for k in m["kernels"] if k["target"] == target]
            check_cubin(cubins[target], names)
            print(f"{target}: assembled (cubin with {len(names)} kernels)")
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(image["data"])
            path = f.name
        try:
            r = subprocess.run([args.ptxas, "-arch=" + target, "-o",
                                os.devnull, path], capture_output=True, text=True)
        finally:
            os.unlink(path)
        if r.returncode != 0:
            sys.exit(f"ptxas -arch={target} rejected the PTX:\n{r.stderr}")
        print(f"ptxas -arch={target}: ok")

    if args.programs is not None:
        check_programs(m, args.programs)

    for target in args.no_spills:
        kernels = [k for k in m["kernels"] if k["target"] == target]
        if not kernels:
            sys.exit(f"no kernels for {target}")
        for k in kernels:
            r = k["resources"]
            if r["spill_store_bytes"] or r["spill_load_bytes"]:
                sys.exit(f"{k['name']} spills on {target}: {r}")
        worst = max(k["resources"]["registers"] for k in kernels)
        print(f"spills on {target}: none in {len(kernels)} kernels "
              f"(most registers: {worst})")


def elf_functions(data):
    """Names of the function symbols of a little-endian ELF64 file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("cubin is not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for s in sections:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strings = sections[s[6]][4]
        for off in range(s[4], s[4] + s[5], s[9]):
            name, info = struct.unpack_from("<IB", data, off)
            if info & 0xF == 2:  # STT_FUNC
                end = data.index(b"\0", strings + name)
                names.add(data[strings + name:end].decode())
    return names


def check_cubin(image, kernels):
    data = base64.b64decode(image["data"])
    target = image["target"]
    if len(data) != image["size"]:
        sys.exit(f"{target} cubin: {len(data)} bytes, manifest says {image['size']}")
    if hashlib.sha256(data).hexdigest() != image["sha256"]:
        sys.exit(f"{target} cubin: sha256 differs from the manifest's")
    functions = elf_functions(data)
    for k in kernels:
        if k not in functions:
            sys.exit(f"{target} cubin has no function {k}")


def round16(n):
    return (n + 15) // 16 * 16


def check_programs(m, expected):
    """The program kernels: their count, and each one's receive buffer."""
    programs = [k for k in m["kernels"] if "program" in k]
    if len(programs) != expected:
        sys.exit(f"{len(programs)} program kernels, expected {expected}")
    if programs and m.get("program_abi_version") != 1:
        sys.exit("program kernels without program_abi_version 1")
    encodings = set()
    for k in programs:
        p = k["program"]
        lo, hi = p["band"]
        n = k["world_size"]
        buffers = 1
        if p["variant"] == "two_shot":
            # A region holds one partition: the band's top split evenly
            # over the ranks in 16-byte units; one buffer per phase.
            hi = -(-(-(-hi // 16)) // n) * 16
            buffers = 2
        elif p["variant"] != "one_shot":
            sys.exit(f"{k['name']}: unknown variant {p['variant']}")
        chunk = p.get("chunk", 0)
        # A zero-copy program (it names the buffers a call must register)
        # stages nothing: flag, chunked, words only.
        registered = p.get("registered", [])
        if registered and (p["encoding"] != "flag" or not chunk or
                           p["speculate"] or
                           sorted(registered) not in (["input"],
                                                      ["input", "output"])):
            sys.exit(f"{k['name']}: bad zero-copy program {p}")
        # Flag words: one per warp, or one per CTA in a chunked program,
        # and a row of agreement words (one per CTA, the row padded to 16
        # bytes) where the ranks agree on a call's steps (a transposing
        # `_v` copy).
        agree = p.get("agree", False)
        if agree and (p["encoding"] != "flag" or not chunk):
            sys.exit(f"{k['name']}: agree without a chunked flag program {p}")
        words = (2 * (k["grid"] + k["grid"] % 2) if agree
                 else k["grid"] if chunk
                 else k["grid"] * k["threads"] // 32)
        # A chunked region holds one step: a chunk per CTA; a zero-copy one
        # a where word and a retire word per CTA (then the ready words).
        payload = (2 * round16(k["grid"] * 8) if registered
                   else k["grid"] * chunk if chunk else round16(max(hi, 16)))
        if p["encoding"] == "ll16":
            region = 2 * payload  # a 16-byte packet carries 8 bytes
        elif p["encoding"] == "flag":
            region = payload + round16(words * 8)
        else:
            region = payload
        want = {"region_bytes": region,
                "rx_bytes": buffers * p["slots"] * n * region,
                "rx_fill": 255 if p["encoding"] == "sentinel" else 0,
                "counter_words": k["grid"]}
        for field, value in want.items():
            if p[field] != value:
                sys.exit(f"{k['name']} on {k['target']}: {field} is "
                         f"{p[field]}, expected {value}")
        if "workspace" in k or not 0 <= lo <= p["band"][1] or p["slots"] < 2:
            sys.exit(f"{k['name']} on {k['target']}: bad program {p}")
        name = (f"collc_{k['collective']}__{p['variant']}_{p['encoding']}"
                f"{'_zero_copy' if registered else '_chunked' if chunk else ''}_"
                f"{k['element_type']}_n{k['world_size']}")
        if k["name"] != name:
            sys.exit(f"program kernel {k['name']}, expected {name}")
        encodings.add(p["encoding"])
    print(f"programs: {len(programs)} kernels ({', '.join(sorted(encodings))}),"
          " receive buffers as the policy says")


if __name__ == "__main__":
    main()
