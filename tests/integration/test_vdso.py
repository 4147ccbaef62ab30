#!/usr/bin/env python3
"""vdso_loop reads the clock in a loop, so most of its samples are in the
vdso, which has no file: the spool carries its image (one MODULE_IMAGE
record, at the base of the [vdso] MODULE_LOAD, an ELF image of at most
64 KiB), and its frames must be named from it (clock_gettime's code)
rather than shown as [vdso]+0xOFFSET.

The leaf itself need not be a named function: with the kvm-clock
clocksource the vdso reads the clock in a local function that has no
symbol (kernel 6.18 here: the pvclock reader at 0x780, which
clock_gettime calls), so its samples are [vdso]+0xOFFSET by design. What
must hold whatever the clocksource is that the vdso samples fall under
clock_gettime, named from the image, by total (inclusive) samples: this
needs both the image's symbols and the unwind through its .eh_frame.

usage: test_vdso.py VDSO_LOOP
"""
import re
import struct
import sys

import prof

MODULE_LOAD, MODULE_IMAGE = 2, 7


def check_image_record(spool):
    vdso_bases, images = [], []
    for rtype, p in prof.spool_records(spool):
        if rtype == MODULE_LOAD:
            base, = struct.unpack_from('<Q', p, 8)
            plen, = struct.unpack_from('<I', p, 16)
            if p[20:20 + plen] == b'[vdso]':
                vdso_bases.append(base)
        elif rtype == MODULE_IMAGE:
            base, n = struct.unpack_from('<QI', p, 8)
            images.append((base, p[20:20 + n]))
    if len(vdso_bases) != 1 or len(images) != 1:
        raise prof.Fail(f'{len(vdso_bases)} [vdso] MODULE_LOAD and '
                        f'{len(images)} MODULE_IMAGE records, want 1 each')
    base, image = images[0]
    if base != vdso_bases[0] or image[:4] != b'\x7fELF' or \
            not 0 < len(image) <= 65536:
        raise prof.Fail(f'MODULE_IMAGE at {base:#x} ({len(image)} bytes, '
                        f'{image[:4]!r}), [vdso] at {vdso_bases[0]:#x}')


def kernel_maps_a_vdso():
    """Whether this kernel gives processes a vdso (not with vdso=0),
    as it gave this one."""
    with open('/proc/self/maps') as f:
        return any(line.rstrip().endswith('[vdso]') for line in f)


def test():
    # The one reason to skip: a kernel without a vdso. Anything else (no
    # [vdso] record, samples under another name or none) is the
    # regression this test guards, and fails.
    if not kernel_maps_a_vdso():
        raise prof.Skip('this kernel maps no vdso into processes')
    p = prof.profile(sys.argv[1], opts=['-F', '1000'])
    r = p.report
    check_image_record(p.spool)
    in_vdso = [f for f in prof.field(r, 'functions')
               if f.get('module') == '[vdso]']
    if not in_vdso:
        raise prof.Fail('no function of the module [vdso] in the report '
                        '(vdso_loop spends most of its time there); '
                        'heaviest:\n' + prof.top(r))
    total = sum(f['self_samples'] for f in in_vdso)
    unnamed = sum(f['self_samples'] for f in in_vdso
                  if re.match(r'^\[vdso\]\+0x', f['name']))
    # max, not sum: clock_gettime and __vdso_clock_gettime are one
    # address, and a nested pair must not count twice.
    clock = max((f['total_samples'] for f in in_vdso
                 if 'clock_gettime' in f['name']), default=0)
    print(f'{total} self samples in the vdso, {clock} under clock_gettime, '
          f'{unnamed} unnamed: '
          + ', '.join(f'{f["name"]} {f["self_samples"]}' for f in in_vdso))
    if total < prof.MIN_SAMPLES:
        raise prof.Fail(f'only {total} samples in the vdso; heaviest:\n'
                        + prof.top(r))
    if clock < total * 0.9:
        raise prof.Fail(f'{clock} of {total} vdso samples under '
                        'clock_gettime')
    if 'warning' in p.analyze_stderr and 'vdso' in p.analyze_stderr:
        raise prof.Fail(f'warning about the vdso: {p.analyze_stderr}')


prof.main(test)
