/*
 * report_processes: the --processes listing (see report_processes.h).
 */
#include "report_processes.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "report.h"
#include "spool.h"
#include "textesc.h"

static const char *
ending(const struct family_proc *p, char *buf, size_t len)
{
	if (!p->complete)
		return "running or killed";
	switch (p->end_reason) {
	case SPOOL_END_EXIT:
		return "exit";
	case SPOOL_END_EXEC:
		return "exec";
	case SPOOL_END__EXIT:
		return "_exit";
	case SPOOL_END_SIGNAL:
		snprintf(buf, len, "signal %u (SIG%s)", p->end_signal,
			 sigabbrev_np((int)p->end_signal) ?
				 sigabbrev_np((int)p->end_signal) : "?");
		return buf;
	default:
		return "unknown";
	}
}

void
report_processes_write(FILE *out, const struct family *f)
{
	int w = 3; /* the PID column: indentation and pid */

	for (size_t i = 0; i < f->n; i++) {
		char pid[16];
		int len = snprintf(pid, sizeof(pid), "%u", f->procs[i].pid);
		if (len + 2 * (int)f->procs[i].depth > w)
			w = len + 2 * (int)f->procs[i].depth;
	}
	fprintf(out, "%-*s %7s %8s %8s %8s  %-18s %s\n", w, "PID", "PPID",
		"SAMPLES", "ALLOCS", "CPU(s)", "ENDED", "SPOOL  COMMAND");
	for (size_t i = 0; i < f->n; i++) {
		const struct family_proc *p = &f->procs[i];
		char pid[64], cpu[32], end[64];
		snprintf(pid, sizeof(pid), "%*s%u", 2 * (int)p->depth, "",
			 p->pid);
		if (p->complete)
			snprintf(cpu, sizeof(cpu), "%.2f",
				 report_seconds(p->cpu_ns));
		else
			snprintf(cpu, sizeof(cpu), "-");
		fprintf(out, "%-*s %7u %8llu %8llu %8s  %-18s ", w, pid,
			p->ppid, (unsigned long long)p->samples,
			(unsigned long long)p->allocs, cpu,
			ending(p, end, sizeof(end)));
		/* The command line, and the spool's name, are the program's
		 * bytes. */
		textesc_put(out, p->path);
		fputs("  ", out);
		textesc_put(out, p->cmdline && *p->cmdline ? p->cmdline :
				 p->exe ? p->exe : "?");
		fputc('\n', out);
	}
}
