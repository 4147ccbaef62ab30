#!/usr/bin/env python3
"""profanalyze --disassemble and --list on real runs.

tests/targets/annotate.c: hot() loops over an inlined mix(), a division by
a volatile divisor and, every 64 iterations, a call of callee(). Checked:

- the disassembly's hits add up exactly to hot's self samples in the flat
  report (also with --thread and for two spools merged), and its header
  says so;
- AT&T syntax by default (%registers), Intel with --intel, the call named
  <callee> in both;
- with --hide=callee, callee's samples become hot's hits marked "after
  call" on the instruction after the call, exactly callee's self samples;
- --list: the self column adds up to hot's self samples; the call's line
  has callee's samples in its total and not in its self; mix's lines are
  in a block marked as inlined; the work is where the code does it (the
  loop's lines hold nearly all, the division's line a large part);
- without the source file (annotate_nosrc), one note and the listing
  without text, hits still exact;
- a FUNCTION that names nothing is one error line, exit 2;
- without --no-inline (the default), where the reports show mix as a
  frame [inlined]: hot's header splits its hits into its own lines' and
  mix's, exactly the flat report's figures, and mix's outline line and
  name select hot;
- space (space_split): the bytes per instruction add up to the site's self
  bytes, all after the call of malloc.

usage: test_annotate.py ANNOTATE ANNOTATE_NOSRC SPACE_SPLIT
"""
import os
import re
import sys

import prof

INSN = re.compile(r'^\s*(?:(\d+) \(\s*\d+%\))?\s+(\d+): ((?:[0-9a-f]{2} )+)'
                  r'\s*(.*?)(?:   ; (\d+) after call)?$')
ROW = re.compile(r'^\s*(\d+|\.)\s+(\d+|\.)\s+(\d+)(?:  (.*))?$')


def disasm(spool, *args, spools=()):
    r, _ = prof.analyze(spool, args=tuple(args) + tuple(spools))
    insns = []
    for line in r.stdout.split('\n'):
        if line.startswith(';;') or not line.strip():
            continue
        m = INSN.match(line)
        if not m:
            continue  # a continuation line of bytes
        insns.append({'hits': int(m.group(1) or 0), 'off': int(m.group(2)),
                      'text': m.group(4),
                      'after': int(m.group(5) or 0)})
    return r, insns


def listing(spool, *args):
    r, _ = prof.analyze(spool, args=tuple(args))
    rows, block = [], None
    for line in r.stdout.split('\n'):
        if line.startswith(';; inlined into '):
            block = line
            continue
        if line.startswith(';; /') or line.startswith(';; .'):
            block = None
            continue
        m = ROW.match(line)
        if m:
            num = [0 if g == '.' else int(g) for g in m.group(1, 2)]
            rows.append({'self': num[0], 'total': num[1],
                         'line': int(m.group(3)), 'text': m.group(4) or '',
                         'inlined': block})
    return r, rows


def self_of(spool, name, *args, key='self_samples'):
    _, rep = prof.analyze(spool, args=('--json',) + tuple(args))
    return prof.field(prof.need_func(rep, name), key)


def header_hits(r):
    m = re.search(r'^;; (\d+) hits of \d+ samples', r.stdout, re.M)
    if not m:
        raise prof.Fail(f'no hits header:\n{r.stdout[:2000]}')
    return int(m.group(1))


def check_sum(what, got, want):
    print(f'{what}: {got}, want {want}')
    if got != want:
        raise prof.Fail(f'{what}: {got}, not {want}')


def check_syntax(insns, intel):
    texts = [i['text'] for i in insns]
    calls = [t for t in texts if t.startswith('call') and '<callee>' in t]
    if not calls:
        raise prof.Fail('no call named <callee>:\n' + '\n'.join(texts))
    with_pct = [t for t in texts if '%' in t]
    if intel and with_pct:
        raise prof.Fail('--intel shows AT&T registers: ' + with_pct[0])
    if not intel and not any(re.search(r'%r[a-z0-9]+', t) for t in texts):
        raise prof.Fail('no AT&T register (%rax...) in the default syntax')
    if not any(re.match(r'div[a-z]*\b', t) for t in texts):
        raise prof.Fail('no div instruction:\n' + '\n'.join(texts))


def test_time(target):
    p = prof.profile(target, ['1.5'], opts=['-F', '1000'])
    s_hot = self_of(p.spool, 'hot')
    s_callee = self_of(p.spool, 'callee')
    if s_hot < prof.MIN_SAMPLES or s_callee < prof.MIN_SAMPLES // 4:
        raise prof.Fail(f'too few samples: hot {s_hot}, callee {s_callee}')

    r, insns = disasm(p.spool, '--disassemble=hot')
    check_sum('disassembly hits', sum(i['hits'] for i in insns), s_hot)
    check_sum('header hits', header_hits(r), s_hot)
    check_syntax(insns, intel=False)
    _, intel = disasm(p.spool, '--disassemble=hot', '--intel')
    check_sum('--intel hits', sum(i['hits'] for i in intel), s_hot)
    check_syntax(intel, intel=True)
    _, rep = prof.analyze(p.spool)
    tid = str(prof.field(prof.field(rep, 'thread_list')[0], 'tid'))
    _, one = disasm(p.spool, '--disassemble=hot', '--thread=' + tid)
    check_sum('--thread hits', sum(i['hits'] for i in one),
              self_of(p.spool, 'hot', '--thread=' + tid))
    _, merged = disasm(p.spool, '--disassemble=hot', spools=[p.spool])
    check_sum('two spools merged', sum(i['hits'] for i in merged), 2 * s_hot)

    # callee hidden: its samples are hot's, after the call.
    _, hid = disasm(p.spool, '--disassemble=hot', '--hide=callee')
    check_sum('hits with callee hidden', sum(i['hits'] for i in hid),
              self_of(p.spool, 'hot', '--hide=callee'))
    check_sum('after-call hits', sum(i['after'] for i in hid), s_callee)
    for k, i in enumerate(hid):
        if i['after'] and not (k and '<callee>' in hid[k - 1]['text']):
            raise prof.Fail(f'after-call hits at +{i["off"]}, not after '
                            f'the call of callee')
    return p, s_hot, s_callee


def test_list(p, s_hot, s_callee):
    r, rows = listing(p.spool, '--list=hot')
    check_sum('--list self column', sum(x['self'] for x in rows), s_hot)
    own = {x['line']: x for x in rows if not x['inlined']}

    def marked(tag):
        got = [x for x in rows if tag in x['text']]
        if not got:
            raise prof.Fail(f'no line marked {tag}:\n{r.stdout}')
        return got

    call = marked('ANNOTATE-CALL')[0]
    check_sum('callee samples on the call line (total - self)',
              call['total'] - call['self'], s_callee)
    mix = marked('ANNOTATE-MIX')
    if any(not x['inlined'] or 'mix' not in x['inlined'] for x in mix):
        raise prof.Fail(f'mix\'s lines are not marked as inlined:\n'
                        f'{r.stdout}')
    mix_self = sum(x['self'] for x in mix)
    div = marked('ANNOTATE-DIV')[0]
    loop = sum(x['self'] for x in rows
               if x['inlined'] or x['line'] >= marked('for (')[0]['line']
               and x['line'] <= div['line'])
    print(f'div line {div["self"]}, mix lines {mix_self}, loop {loop} of '
          f'{s_hot}')
    if mix_self == 0:
        raise prof.Fail('no hits in the inlined mix():\n' + r.stdout)
    if loop < 0.95 * s_hot:
        raise prof.Fail(f'only {loop} of {s_hot} hits in the loop:\n'
                        + r.stdout)
    if div['self'] < 0.25 * s_hot:
        raise prof.Fail(f'the division line has {div["self"]} of {s_hot} '
                        'hits, under a quarter:\n' + r.stdout)
    if not own:
        raise prof.Fail('no line of hot itself:\n' + r.stdout)


def shown(spool, *args):
    """profanalyze ARGS SPOOL as a user types it: without --no-inline,
    which prof.analyze adds."""
    r = prof.run([prof.profanalyze_path()] + list(args) + [spool])
    if r.returncode != 0:
        raise prof.Fail(f'profanalyze {" ".join(args)}: exit '
                        f'{r.returncode}\n{r.stderr}')
    return r


def insns_of(r):
    """The hits of each instruction line of a disassembly."""
    lines = [ln for ln in r.stdout.split('\n') if not ln.startswith(';;')]
    return [int(m.group(1) or 0) for m in map(INSN.match, lines) if m]


def test_inline_default(p, s_hot):
    """The default --inline: mix is a frame of its own in the reports.
    FUNCTION is read there: hot's hits are still all its code's, and its
    header splits them into its own lines' and mix's, the figures of the
    flat report; mix's outline line and its name give hot's code."""
    _, rep = prof.analyze(p.spool, args=('--json', '--inline'))
    own = prof.field(prof.need_func(rep, 'hot'), 'self_samples')
    mix = [f for f in prof.field(rep, 'functions')
           if prof.field(f, 'name') == 'mix' and f.get('inlined')]
    if len(mix) != 1:
        raise prof.Fail(f'no one inlined mix in the report: {mix}')
    mix = prof.field(mix[0], 'self_samples')
    r = shown(p.spool, '--disassemble=hot')
    check_sum('default --inline: hits', sum(insns_of(r)), s_hot)
    check_sum('default --inline: own and inlined', own + mix, s_hot)
    m = re.search(r'^;; of them (\d+) hits? in its own lines and (\d+) in '
                  r'code inlined into it', r.stdout, re.M)
    if not m or (int(m.group(1)), int(m.group(2))) != (own, mix):
        raise prof.Fail(f'the header does not give hot {own} and mix '
                        f'{mix}:\n{r.stdout[:1500]}')
    line = None
    for ln in shown(p.spool, '--outline').stdout.split('\n'):
        om = re.match(r'^[ /\\|]*[0-9.]+ mix \[inlined\] (\d+)$', ln)
        if om:
            line = om.group(1)
    if line is None:
        raise prof.Fail('no line of mix [inlined] in the outline')
    for spec in (line, 'mix'):
        r = shown(p.spool, f'--disassemble={spec}')
        if not r.stdout.startswith(';; disassembly of hot '):
            raise prof.Fail(f'--disassemble={spec} (mix [inlined]) is not '
                            f'hot\'s code:\n{r.stdout[:500]}')
        check_sum(f'--disassemble={spec} hits', sum(insns_of(r)), s_hot)


def test_nosrc(target):
    p = prof.profile(target, ['0.3'], opts=['-F', '1000'])
    s_hot = self_of(p.spool, 'hot')
    r, rows = listing(p.spool, '--list=hot')
    check_sum('--list self without source', sum(x['self'] for x in rows),
              s_hot)
    notes = [l for l in r.stderr.split('\n') if l.strip()]
    if len(notes) != 1 or 'No such file or directory' not in notes[0] \
            or 'annotate.c' not in notes[0]:
        raise prof.Fail(f'want one note about the missing annotate.c, '
                        f'got:\n{r.stderr}')
    if any(x['text'] for x in rows):
        raise prof.Fail('lines with text from a missing file')
    bad, _ = prof.analyze(p.spool, args=('--disassemble=no_such_function',),
                          expect_rc=2)
    line = prof.one_line(bad.stderr, 'error for an unknown FUNCTION')
    if 'no_such_function' not in line:
        raise prof.Fail(f'the error does not name the function: {line}')


def test_space(target):
    p = prof.profile(target, ['0.3'], opts=['--no-time'])
    want = self_of(p.spool, 'site_small_60', key='self')
    _, insns = disasm(p.spool, '--disassemble=site_small_60')
    check_sum('space: bytes per instruction', sum(i['hits'] for i in insns),
              want)
    check_sum('space: bytes after the call', sum(i['after'] for i in insns),
              want)
    for k, i in enumerate(insns):
        if i['hits'] and not (k and 'malloc' in insns[k - 1]['text']):
            raise prof.Fail(f'bytes at +{i["off"]}, not after malloc')
    _, rows = listing(p.spool, '--list=site_small_60')
    check_sum('space: --list self column', sum(x['self'] for x in rows),
              want)


def test():
    p, s_hot, s_callee = test_time(sys.argv[1])
    test_inline_default(p, s_hot)
    test_list(p, s_hot, s_callee)
    test_nosrc(sys.argv[2])
    test_space(sys.argv[3])


prof.main(test)
