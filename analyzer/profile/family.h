/*
 * family: the spools of one run's process tree.
 *
 * profrun writes one spool per process image: the first process into
 * FILE, a forked child into FILE.PID, an exec'd image into FILE.PID (or
 * FILE.PID.N when that name is taken, as after an exec in a process that
 * already wrote FILE.PID). Each spool's PROCESS record holds the pid, the
 * parent's pid and the start time, which is what ties them into a tree:
 * an image's parent is the latest earlier image of the same pid (the
 * program that exec'd it), else the latest earlier image of its parent
 * pid (the process that forked it). Spools of the same naming left from
 * other runs do not attach: a child starts after its parent.
 */
#ifndef PROFANALYZE_FAMILY_H
#define PROFANALYZE_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FAMILY_NONE UINT32_MAX

struct family_proc {
	char *path;      /* the spool */
	bool has_process;
	uint32_t pid, ppid;
	uint64_t start_mono_ns;
	char *exe;       /* NULL when unknown */
	char *cmdline;   /* arguments separated by spaces, NULL unknown */
	uint64_t samples; /* time samples */
	uint64_t allocs;  /* sampled allocations */
	bool complete;   /* a footer was read */
	uint64_t cpu_ns; /* from the footer */
	uint32_t end_reason, end_signal;
	uint32_t parent; /* index of the parent, FAMILY_NONE for the root */
	uint32_t depth;  /* 0 for the root */
};

struct family {
	struct family_proc *procs; /* procs[0] is the root; parents come
				    * before their children, siblings in
				    * order of their start */
	size_t n, cap;
};

/* Reads the spool at path and, when children is set, the spools of its
 * descendants found beside it. Returns 0, or -1 after one error line
 * naming path when path itself cannot be read. */
int
family_read(struct family *f, const char *path, bool children);

/* --from/--to: the samples taken from from_ns up to, not including,
 * to_ns (UINT64_MAX: the end) after each process's start. */
struct family_window {
	uint64_t from_ns, to_ns;
};

/* family_read, with each process's samples and allocations those of the
 * window w (NULL: all of them); the rest is the whole run's. */
int
family_read_window(struct family *f, const char *path, bool children,
		   const struct family_window *w);

void
family_free(struct family *f);

/* The parent of procs[i] among procs[0..n) (any order, read with
 * family_read(..., false) each) by the rule above: the latest image of
 * its pid that started before it, else the latest of its parent pid.
 * Returns its index, or FAMILY_NONE. */
uint32_t
family_parent_of(const struct family_proc *procs, size_t n, size_t i);

#endif
