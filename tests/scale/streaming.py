#!/usr/bin/env python3
"""The loader reads a spool front to back and drops the pages it passed
(blob_drop, BLOB_WINDOW of 1 MiB in analyzer/profile/blob.h), so that a large
spool is not resident whole.

- The same samples as SAMPLE records (format 2.2, 27 MB: each sample
  added as it comes) and as SAMPLES records (2.3, 3 MB: summed per stack
  and thread), both several windows long, give the same reports byte
  for byte, as tests/scale/same-reports.sh checks on small spools.
- Reading the 27 MB spool takes no more memory than reading one of the
  same shape twenty times smaller: the peak resident set of profanalyze
  (wait4) grows by less than a quarter of the difference of the files'
  sizes. Before the pages were dropped it grew by all of it.

usage: streaming.py GENSPOOL PROFANALYZE
"""
import os
import subprocess
import sys
import tempfile

WINDOW = 1 << 20
REPORTS = (["--flat", "--show-all"], ["--graph"], ["--outline"],
           ["--threads"])


def gen(genspool, path, samples, fmt):
    subprocess.run([genspool, "-n", str(samples), "-d", "4", "-k", "300",
                    "-t", "2", "-j", "-f", fmt, path], check=True)
    return os.path.getsize(path)


def run(ana, args):
    """Standard output and the peak resident set in KiB."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([ana] + args, stdout=out,
                             stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if p.returncode != 0:
        sys.exit(f"{args}: exit {p.returncode}: {text[-500:]!r}")
    return text, ru.ru_maxrss


def main():
    genspool, ana = sys.argv[1], sys.argv[2]
    fail = False
    with tempfile.TemporaryDirectory() as tmp:
        old = os.path.join(tmp, "old.spool")
        new = os.path.join(tmp, "new.spool")
        small = os.path.join(tmp, "small.spool")
        old_size = gen(genspool, old, 400000, "sample")
        new_size = gen(genspool, new, 400000, "samples")
        small_size = gen(genspool, small, 20000, "sample")
        # Otherwise nothing here would be dropped: the test would pass
        # whatever the loader does.
        if new_size < 2 * WINDOW or old_size < 20 * WINDOW:
            sys.exit(f"spools too small: {old_size}, {new_size} bytes")
        for args in REPORTS:
            a, _ = run(ana, args + [old])
            b, _ = run(ana, args + [new])
            a = a.replace(old.encode(), b"SPOOL")
            b = b.replace(new.encode(), b"SPOOL")
            if a != b or not a:
                print(f"differ or empty: {args}")
                fail = True
        _, rss_small = run(ana, ["--flat", small])
        _, rss_big = run(ana, ["--flat", old])
        grown = (rss_big - rss_small) * 1024
        bound = (old_size - small_size) / 4
        print(f"peak RSS {rss_small} KiB ({small_size} bytes of spool), "
              f"{rss_big} KiB ({old_size} bytes); grown {grown} bytes, "
              f"at most {bound:.0f}")
        if grown > bound:
            print("the spool stays resident as it is read")
            fail = True
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
