"""A strict reader of LispWorks profiler tree files, written from the
specification (LispWorks User Guide and Reference Manual, "The profiler
tree file"; shared/reference/lispworks-profiler-tree-format.txt), for the
tests of profanalyze --format=lispworks.

What the specification says, and this reader enforces:
  - the file is lines of UTF-8 text;
  - the first line contains "LispWorks Profiler Tree"; the text after its
    first colon, without leading and trailing spaces, is the tree's name;
  - every other line is a data line, except lines starting with ';';
  - a data line is six fields separated by '|', no spaces between them:
    five integers, then a name of any characters but newline (it may
    hold '|'): Depth|Count|Call-Count|Seen-Count|Top-Count|Name;
  - the node of depth 0 is the root; every other node's parent is the
    previous node of depth one less, so a depth can grow by one at most
    from one line to the next, and no node but the first has depth 0;
  - Call-Count, Seen-Count and Top-Count are the function-info of Name:
    every occurrence of a name carries the same three numbers.

What the definitions imply for a whole tree (Count: times the function
was seen with that chain of callers; Seen-Count: times it was seen in all
branches; Top-Count: times it was at the top of the stack), also enforced:
  - a chain of callers is one node: no two children of a node share a name;
  - a sample is on one branch: the children's Counts add up to at most
    their parent's Count;
  - a function's Top-Count is the sum of what its nodes saw themselves at
    the top (Count minus the children's Counts);
  - its Seen-Count is the sum of the Counts of its outermost occurrences
    (those without an ancestor of the same name): a recursive function
    is seen once per sample, however often it is on the stack;
  - so Top-Count <= Seen-Count <= the root's Count.
Integers are written in decimal digits only (counts are never negative).

parse(bytes) returns a Tree or raises Invalid naming the line.
"""

import re

MAGIC = 'LispWorks Profiler Tree'
_INT = re.compile(r'[0-9]+')


class Invalid(Exception):
    """The file is not a valid LispWorks profiler tree file."""


class Node:
    def __init__(self, lineno, depth, count, info, name, parent):
        self.lineno = lineno
        self.depth = depth
        self.count = count
        self.info = info  # (call_count, seen_count, top_count)
        self.name = name
        self.parent = parent  # index in Tree.nodes, None for the root
        self.children = []    # indexes in Tree.nodes

    @property
    def call_count(self):
        return self.info[0]

    @property
    def seen_count(self):
        return self.info[1]

    @property
    def top_count(self):
        return self.info[2]


class Tree:
    def __init__(self, name, nodes, comments):
        self.name = name          # None when the first line has no colon
        self.nodes = nodes        # in file order (depth first)
        self.comments = comments  # the ';' lines, without the ';'
        self.functions = {}       # name -> (call, seen, top)
        for n in nodes:
            self.functions.setdefault(n.name, n.info)

    @property
    def root(self):
        return self.nodes[0]

    def path(self, i):
        """Names from the root's child down to node i."""
        names = []
        while self.nodes[i].parent is not None:
            names.append(self.nodes[i].name)
            i = self.nodes[i].parent
        return tuple(reversed(names))

    def paths(self):
        """{path: Count} of every node but the root."""
        return {self.path(i): n.count for i, n in enumerate(self.nodes)
                if n.parent is not None}


def _lines(data):
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise Invalid(f'not UTF-8: {e}')
    lines = text.split('\n')
    if lines[-1] == '':
        lines.pop()  # the last line's newline
    if not lines:
        raise Invalid('empty file')
    return lines


def _data_line(lineno, line):
    fields = line.split('|', 5)
    if len(fields) != 6:
        raise Invalid(f'line {lineno}: {len(fields)} fields, want 6: '
                      f'{line!r}')
    for k, f in enumerate(fields[:5]):
        if not _INT.fullmatch(f):
            raise Invalid(f'line {lineno}: field {k + 1} is not an '
                          f'integer: {f!r} in {line!r}')
    nums = [int(f) for f in fields[:5]]
    return nums[0], nums[1], tuple(nums[2:5]), fields[5]


def _read_nodes(lines):
    nodes, comments, stack = [], [], []  # stack: the current path
    for lineno, line in enumerate(lines[1:], start=2):
        if line.startswith(';'):
            comments.append(line[1:])
            continue
        depth, count, info, name = _data_line(lineno, line)
        if not nodes and depth != 0:
            raise Invalid(f'line {lineno}: the first node has depth '
                          f'{depth}, not 0 (the root)')
        if nodes and depth == 0:
            raise Invalid(f'line {lineno}: a second node of depth 0')
        if depth > len(stack):
            raise Invalid(f'line {lineno}: depth {depth} after depth '
                          f'{len(stack) - 1}: a node without a parent')
        del stack[depth:]
        parent = stack[-1] if stack else None
        nodes.append(Node(lineno, depth, count, info, name, parent))
        if parent is not None:
            nodes[parent].children.append(len(nodes) - 1)
        stack.append(len(nodes) - 1)
    if not nodes:
        raise Invalid('no data lines: a tree has a root')
    return nodes, comments


def _check_info(nodes):
    first = {}
    for n in nodes:
        f = first.setdefault(n.name, n)
        if f.info != n.info:
            raise Invalid(f'line {n.lineno}: {n.name!r} has function-info '
                          f'{n.info}, but {f.info} on line {f.lineno}')


def _check_counts(nodes):
    top, seen, on_path = {}, {}, []
    for i, n in enumerate(nodes):
        names = [c.name for c in (nodes[k] for k in n.children)]
        if len(set(names)) != len(names):
            raise Invalid(f'line {n.lineno}: two children with one name '
                          f'(the same chain of callers twice)')
        below = sum(nodes[k].count for k in n.children)
        if below > n.count:
            raise Invalid(f'line {n.lineno}: the children of {n.name!r} '
                          f'count {below}, more than its {n.count}')
        top[n.name] = top.get(n.name, 0) + n.count - below
        del on_path[n.depth:]
        if n.name not in on_path:
            seen[n.name] = seen.get(n.name, 0) + n.count
        on_path.append(n.name)
    root = nodes[0].count
    for n in nodes:
        call, s, t = n.info
        if t != top[n.name]:
            raise Invalid(f'line {n.lineno}: {n.name!r} has Top-Count {t}, '
                          f'but its nodes were at the top {top[n.name]} '
                          'times')
        if s != seen[n.name]:
            raise Invalid(f'line {n.lineno}: {n.name!r} has Seen-Count {s}, '
                          f'but its outermost nodes count {seen[n.name]}')
        if not t <= s <= root:
            raise Invalid(f'line {n.lineno}: {n.name!r}: Top-Count {t}, '
                          f'Seen-Count {s}, root Count {root}')


def parse(data):
    """Reads a whole profiler tree file (bytes); returns a Tree."""
    lines = _lines(data)
    if MAGIC not in lines[0]:
        raise Invalid(f'line 1 lacks "{MAGIC}": {lines[0]!r}')
    name = None
    if ':' in lines[0]:
        name = lines[0].split(':', 1)[1].strip(' ')
    nodes, comments = _read_nodes(lines)
    _check_info(nodes)
    _check_counts(nodes)
    return Tree(name, nodes, comments)


def quoted(name):
    """A name written as a Lisp string (a node that is not a function)."""
    return '"' + name.replace('\\', '\\\\').replace('"', '\\"') + '"'
