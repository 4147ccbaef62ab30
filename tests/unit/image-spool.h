/*
 * image-spool: the process state of a profiled image with a fresh spool
 * open (appender_open) in a directory of its own, for the unit tests of
 * the preload modules that write spools (test-appender.c,
 * test-perfmap-copy.c). Header only; Check's assertions.
 */
#ifndef PROFRUN_TESTS_IMAGE_SPOOL_H
#define PROFRUN_TESTS_IMAGE_SPOOL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appender.h"
#include "state.h"

/* Makes dir (a mkdtemp template, "/tmp/NAME-XXXXXX", at most 63 bytes)
 * and opens dir/x.spool as this image's spool. */
static inline void
image_spool_open(char dir[64], const char *template)
{
	snprintf(dir, 64, "%s", template);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&prof_state.cfg, 0, sizeof(prof_state.cfg));
	snprintf(prof_state.cfg.spool_path, sizeof(prof_state.cfg.spool_path),
		 "%s/x.spool", dir);
	snprintf(prof_state.cfg.output, sizeof(prof_state.cfg.output),
		 "%s/x.spool", dir);
	prof_state.cfg.primary = 1;
	prof_state.pid = getpid();
	prof_state.start_mono_ns = prof_now_ns();
	prof_image_mark();
	ck_assert_int_eq(appender_open(), 0);
}

/* Removes the spool and dir. */
static inline void
image_spool_remove(const char *dir)
{
	unlink(prof_state.cfg.spool_path);
	rmdir(dir);
}

#endif
