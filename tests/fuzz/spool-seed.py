#!/usr/bin/env python3
"""spool-seed: turns a real spool into a small fuzzing seed.

usage: spool-seed.py IN OUT [--samples N] [--keep-image] [--chunk BYTES]
                     [--map OLD=NEW]... [--damage KIND]

The records are copied in file order into one contiguous stream (a version 2
header with no chunk size: a chunked spool is mostly unused chunk space),
or with --chunk into chunks of that size, each padded with zeros,
keeping at most N SAMPLE, N ALLOC, N FREE and N ALLOCS records (default 24
of each) and no MODULE_IMAGE unless --keep-image. Paths (the process's executable, module
loads and unloads) are renamed by --map, and the other absolute ones become
their file names: the fuzz harnesses run with their scratch directory as the
current one, so a relative path names a file there, and the system's
libraries, absent from it, are not read at every execution (and cannot
differ from one machine to another).
The footer's sample count is set to the samples kept (SAMPLE records and
SAMPLES entries, what the loader compares it with), so that a seed is a
consistent spool and damage comes from the fuzzer alone; unless --damage
asks for some, as a truncated or corrupt real spool has it:
  cut-record   the file ends in the middle of its last record's payload
  long-length  the last record's length points 4096 bytes past the end
  cut-header   the file ends inside its 16-byte header (after 11 bytes)
"""
import argparse
import struct
import sys

MAGIC = b"PRFSPOOL"
HEADER_LEN = 16
REC_HEADER_LEN = 8
PROCESS, MODULE_LOAD, MODULE_UNLOAD, SAMPLE, FOOTER, MODULE_IMAGE, ALLOC = (
    1, 2, 3, 5, 6, 7, 8)
FREE = 9
SAMPLES = 12
ALLOCS = 14


def records(data):
    """Yields (type, payload) for each whole record, as common/spool.c
    reads them (chunk padding skipped)."""
    chunk = struct.unpack_from("<I", data, 12)[0] if data[8] >= 2 else 0
    pos = HEADER_LEN
    while pos < len(data):
        if chunk:
            room = chunk - pos % chunk
            if room < REC_HEADER_LEN or (len(data) - pos >= 4 and
                                         struct.unpack_from("<I", data, pos)[0] == 0):
                pos += room
                continue
        if len(data) - pos < REC_HEADER_LEN:
            return
        rtype, rlen = struct.unpack_from("<II", data, pos)
        if len(data) - pos - REC_HEADER_LEN < rlen:
            return
        yield rtype, data[pos + REC_HEADER_LEN:pos + REC_HEADER_LEN + rlen]
        pos += REC_HEADER_LEN + rlen


def rename_str(payload, off, mapping):
    """The payload with the str at off renamed by mapping."""
    n = struct.unpack_from("<I", payload, off)[0]
    old = payload[off + 4:off + 4 + n]
    new = mapping.get(old, old.rsplit(b"/", 1)[-1])
    return payload[:off] + struct.pack("<I", len(new)) + new + \
        payload[off + 4 + n:]


def varint(p, pos):
    """The LEB128 varint at p[pos]: (value, next pos)."""
    value, shift = 0, 0
    while pos < len(p):
        byte = p[pos]
        pos += 1
        value |= (byte & 0x7f) << shift
        shift += 7
        if not byte & 0x80:
            break
    return value, pos


def samples_entries(p):
    """The entries of a SAMPLES payload (profspool(5)): each a sample."""
    pos, n = 24, 0
    while pos < len(p) and p[pos]:
        key, pos = varint(p, pos)
        _dt, pos = varint(p, pos)
        _dw, pos = varint(p, pos)
        if key & 1:  # it defines its stack: flags, depth, PCs
            _flags, pos = varint(p, pos)
            depth, pos = varint(p, pos)
            for _ in range(depth):
                _pc, pos = varint(p, pos)
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--keep-image", action="store_true")
    ap.add_argument("--chunk", type=int, default=0)
    ap.add_argument("--map", action="append", default=[])
    ap.add_argument("--damage",
                    choices=["cut-record", "long-length", "cut-header"])
    a = ap.parse_args()
    mapping = {}
    for m in a.map:
        old, new = m.split("=", 1)
        mapping[old.encode()] = new.encode()

    data = open(a.input, "rb").read()
    if data[:8] != MAGIC:
        sys.exit(f"{a.input}: not a spool")
    out = bytearray(data[:12] + struct.pack("<I", a.chunk))
    kept = {SAMPLE: 0, ALLOC: 0, FREE: 0, ALLOCS: 0}
    last = None  # (offset, payload length) of the last record written
    batches = 0  # SAMPLES entries, which the footer counts as SAMPLEs
    for rtype, p in records(data):
        if rtype in kept:
            if kept[rtype] >= a.samples:
                continue
            kept[rtype] += 1
        if rtype == MODULE_IMAGE and not a.keep_image:
            continue
        if rtype == SAMPLES:
            batches += samples_entries(p)
        if rtype == PROCESS:
            p = rename_str(p, 48, mapping)
        elif rtype in (MODULE_LOAD, MODULE_UNLOAD):
            p = rename_str(p, 16, mapping)
        elif rtype == FOOTER:
            p = p[:24] + struct.pack("<Q", kept[SAMPLE] + batches) + \
                p[32:]
        rec = struct.pack("<II", rtype, len(p)) + p
        if a.chunk and len(out) % a.chunk + len(rec) > a.chunk:
            if len(rec) > a.chunk:
                continue
            out += bytes(a.chunk - len(out) % a.chunk)
        last = (len(out), len(p))
        out += rec
    out = damage(out, last, a.damage)
    open(a.output, "wb").write(out)


def damage(out, last, kind):
    """out damaged as --damage KIND says (see the top)."""
    if kind == "cut-header":
        return out[:11]
    if kind and last is None:
        sys.exit("spool-seed: no record to damage")
    off, plen = last
    if kind == "cut-record":
        return out[:off + REC_HEADER_LEN + plen // 2]
    if kind == "long-length":
        struct.pack_into("<I", out, off + 4, plen + 4096)
    return out


if __name__ == "__main__":
    main()
