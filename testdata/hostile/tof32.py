#!/usr/bin/env python3
"""Rewrites a safetensors file in place with every BF16 tensor widened to F32 (exact: the bf16
bits become the high half of the f32), so that the hostile suite can run a model whose
weights the CPU backend multiplies as f32. Usage: tof32.py FILE"""
import json
import os
import struct
import sys

path = sys.argv[1]
with open(path, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
    data = f.read()
out, parts, off = {}, [], 0
for name, t in header.items():
    if name == "__metadata__":
        out[name] = t
        continue
    lo, hi = t["data_offsets"]
    raw = data[lo:hi]
    if t["dtype"] == "BF16":
        wide = bytearray(len(raw) * 2)
        wide[2::4] = raw[0::2]
        wide[3::4] = raw[1::2]
        raw, t = bytes(wide), dict(t, dtype="F32")
    out[name] = dict(t, data_offsets=[off, off + len(raw)])
    parts.append(raw)
    off += len(raw)
h = json.dumps(out).encode()
h += b" " * (-(8 + len(h)) % 8)  # the data starts 8-aligned, so f32 views need no copy
with open(path + ".tmp", "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(parts))
os.replace(path + ".tmp", path)
