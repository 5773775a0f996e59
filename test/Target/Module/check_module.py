#!/usr/bin/env python3
"""Checks a collc module file with standard tools, independently of collc.

- every collective x element type x world size has a kernel on every target
  (a copy's one kernel per world size, element type "bytes", serves every
  type of its collective: it moves bytes);
- every target has one image, a CUDA fat binary whose size and sha256 are
  the manifest's, read here with the zstd tool (the toolkit's fatbinary
  compresses each entry as one zstd frame): an ELF entry for the target's
  architecture whose symbol table has every kernel of the target as a
  function, and, where the manifest lists PTX in its contents (the newest
  target), a PTX entry for that architecture with every kernel as an entry
  (collc assembled the cubin from that PTX with nvJitLink, the toolkit's own
  ptxas: assembling it again took most of lit's time);
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
import struct
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--no-spills", action="append", default=[])
    ap.add_argument("--programs", type=int)
    args = ap.parse_args()
    with open(args.module) as f:
        m = json.load(f)

    # A copy's kernel moves bytes and serves every type of its collective.
    have = {(k["target"], k["collective"], t, k["world_size"])
            for k in m["kernels"]
            for t in [k["element_type"]] + k.get("serves", [])}
    expected = 0
    for c in m["collectives"]:
        for t in m["targets"]:
            for e in c["element_types"]:
                for n in c["world_sizes"]:
                    expected += 1
                    if (t, c["name"], e, n) not in have:
                        sys.exit(f"missing kernel: {c['name']} {e} n={n} on {t}")
    print(f"kernels: {expected} expected, all present")

    targets = [i["target"] for i in m["images"]]
    for t in m["targets"]:
        if targets.count(t) != 1:
            sys.exit(f"{t}: {targets.count(t)} images, expected one")
    for image in m["images"]:
        target = image["target"]
        # Entries may share a kernel (several world sizes, or collectives).
        names = sorted({k["name"] for k in m["kernels"]
                        if k["target"] == target})
        check_fatbin(image, names)
        what = " and PTX" if "ptx" in image["contents"] else ""
        print(f"{target}: fatbin with a cubin{what} of {len(names)} kernels")

    if args.programs is not None:
        check_programs(m, args.programs)
    check_v1_names(m)

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


def fatbin_entries(data, where):
    """(kind, architecture, payload) of each entry of a CUDA fat binary, as
    the toolkit's fatbinary 13.0 writes it: a 16-byte header (magic
    0xBA55ED50, version, header size, entries' size), then per entry a
    header (kind 1 PTX / 2 ELF at 0, its size at 4, the padded payload's at
    8, the compressed payload's at 16, the architecture at 28, flags at 40,
    0x8000 compressed) and its payload."""
    magic, _, size, total = struct.unpack_from("<IHHQ", data, 0)
    if magic != 0xBA55ED50 or size + total != len(data):
        sys.exit(f"{where}: not a CUDA fat binary")
    entries, off = [], size
    while off < len(data):
        kind, _, head, padded = struct.unpack_from("<HHIQ", data, off)
        packed, = struct.unpack_from("<I", data, off + 16)
        arch, = struct.unpack_from("<I", data, off + 28)
        flags, = struct.unpack_from("<I", data, off + 40)
        payload = data[off + head:off + head + padded]
        if flags & 0x8000:
            r = subprocess.run(["zstd", "-d", "-c"], input=payload[:packed],
                               capture_output=True)
            if r.returncode != 0:
                sys.exit(f"{where}: a compressed entry does not decompress: "
                         f"{r.stderr.decode()}")
            payload = r.stdout
        entries.append((kind, arch, payload))
        off += head + padded
    return entries


def check_fatbin(image, kernels):
    target = image["target"]
    where = f"{target} fatbin"
    if image["kind"] != "fatbin" or image["encoding"] != "base64":
        sys.exit(f"{target}: a {image['kind']} image, expected a fatbin")
    data = base64.b64decode(image["data"])
    if len(data) != image["size"]:
        sys.exit(f"{where}: {len(data)} bytes, manifest says {image['size']}")
    if hashlib.sha256(data).hexdigest() != image["sha256"]:
        sys.exit(f"{where}: sha256 differs from the manifest's")
    arch = int("".join(c for c in target[3:] if c.isdigit()))
    entries = fatbin_entries(data, where)
    elf = [p for kind, a, p in entries if kind == 2 and a == arch]
    if len(elf) != 1:
        sys.exit(f"{where} has {len(elf)} cubins for {target}, expected one")
    functions = elf_functions(elf[0])
    for k in kernels:
        if k not in functions:
            sys.exit(f"{where}: its cubin has no function {k}")
    ptx = [p for kind, a, p in entries if kind == 1 and a == arch]
    if len(ptx) != ("ptx" in image["contents"]):
        sys.exit(f"{where} has {len(ptx)} PTX entries, its contents say "
                 f"{image['contents']}")
    for text in ptx:
        for k in kernels:
            if f".entry {k}(".encode() not in text:
                sys.exit(f"{where}: its PTX has no entry {k}")


def round16(n):
    return (n + 15) // 16 * 16


def check_programs(m, expected):
    """The program kernels: their count, and each one's receive buffer."""
    programs = [k for k in m["kernels"] if "program" in k]
    if len(programs) != expected:
        sys.exit(f"{len(programs)} program kernels, expected {expected}")
    if programs and m.get("program_abi_version") != 2:
        sys.exit("program kernels without program_abi_version 2")
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
        # a where word, a retire word and an output where word per CTA (then
        # the ready words).
        payload = (3 * round16(k["grid"] * 8) if registered
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
        def name_of(collective):
            return (f"collc_{collective}__{p['variant']}_{p['encoding']}"
                    f"{'_zero_copy' if registered else '_chunked' if chunk else ''}_"
                    f"{k['element_type']}_n{k['world_size']}")
        # Its own kernel, or the same kernel another collective's program
        # owns (printed word for word: compiled once): the same launch
        # shape and receive buffers (its root and band, the host's, may
        # differ).
        same = ("variant", "encoding", "slots", "region_bytes", "rx_bytes",
                "speculate", "input_packed")
        owner = [o for o in programs
                 if o["target"] == k["target"] and o["name"] == k["name"]
                 and o["name"] == name_of(o["collective"])
                 and all(o["program"].get(f) == p.get(f) for f in same)
                 and o["grid"] == k["grid"] and o["threads"] == k["threads"]]
        if k.get("capacity", k["world_size"]) != k["world_size"] or not owner:
            sys.exit(f"program kernel {k['name']}, expected "
                     f"{name_of(k['collective'])} or another collective's "
                     "same program")
        encodings.add(p["encoding"])
    print(f"programs: {len(programs)} kernels ({', '.join(sorted(encodings))}),"
          " receive buffers as the policy says")


def check_v1_names(m):
    """A v1 kernel serves every world size of its collective: one name,
    `_upto<largest>`, and that capacity, for each (world size) entry; one
    world size: `_n<n>`, no capacity."""
    sizes = {c["name"]: c["world_sizes"] for c in m["collectives"]}
    for k in m["kernels"]:
        if "program" in k:
            continue
        ws = sizes[k["collective"]]
        most = max(ws)
        want = (f"collc_{k['collective']}_{k['element_type']}_"
                + (f"upto{most}" if len(ws) > 1 else f"n{k['world_size']}"))
        cap = k.get("capacity", k["world_size"])
        if k["name"] != want or cap != (most if len(ws) > 1 else k["world_size"]):
            sys.exit(f"v1 kernel {k['name']} (capacity {cap}), expected {want}")


if __name__ == "__main__":
    main()
