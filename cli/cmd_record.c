/*
 * `rdmatrace record [-o RUNDIR] [--flight-recorder SIZE] [--capture IFACE]
 * -- PROGRAM ARGS`: runs an unmodified verbs program under the LD_PRELOAD
 * probe and leaves a run directory (docs/run-directory.md):
 *
 *   traces/HOST-PID-PROGRAM.rtr  one per process that used RDMA: the probe
 *                                starts the tracer with RDMATRACE_OUTPUT=
 *                                traces/HOST-%p.rtr, so children after fork
 *                                and exec get files of their own; record
 *                                renames them after the run
 *   logs/HOST-PROGRAM.out        the program's stdout and stderr (also
 *                                passed through to ours)
 *   logs/HOST-PROGRAM.err        its stderr alone, when it wrote any (a
 *                                program says why it gives up there, and
 *                                its stdout, buffered in a pipe, may come
 *                                after it in the .out)
 *   capture.pcapng               with --capture IFACE
 *   run.json                     host, boot id, kernel, clock calibration,
 *                                command line, library versions, processes
 *                                and exit status
 *
 * A process that dies without flushing (SIGKILL) leaves its rings in its
 * shared-memory segment: record salvages them with the collector API into
 * traces/HOST-PID-PROGRAM.salvage.rtr, with how the process ended: the
 * wait status of the program record started, and of every process it
 * forked when record may listen to the kernel's process events (root;
 * tracer/process_events.c), which also give the time of the exit.
 * SIGINT/SIGTERM sent to record are forwarded to the program; record exits with the program's status (128+N
 * when it was killed by signal N).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "datadir.h"
#include "json_str.h"
#include "number_arg.h"
#include "rdmatrace/process_events.h"
#include "rdmatrace/clock.h"
#include "rdmatrace/collector.h"
#include "rdmatrace/trace_print.h"
#include "rdmatrace/live_capture.h"
#include "rdmatrace/trace_reader.h"

#ifndef RDMATRACE_VERSION
#define RDMATRACE_VERSION "0.1.0"
#endif

#define MAX_PROCS 256
/* Stream mode's per-thread ring, KiB: four times the tracer's default, so a
 * burst of events (an engine resending a window: about 60 000 events a
 * second from uroce) outlasts a collector thread held up for a quarter of a
 * second on a busy machine before anything is lost (RDMATRACE_RING_KB, when
 * set, wins). */
#define STREAM_RING_KB "1024"

struct proc_file {
	int pid;
	char program[64];
	char path[PATH_MAX + 160];
	bool salvaged;
	bool ended;             /* status known (the root's wait, or the process events) */
	int status;
};

struct rec {
	const char *rundir;
	char host[64];
	char traces[PATH_MAX + 16];
	char logs[PATH_MAX + 16];
	char log_path[PATH_MAX + 160];
	char err_log_path[PATH_MAX + 160]; /* stderr alone; "" when it wrote nothing */
	const char *capture_iface;
	int capture_snaplen;      /* --capture-snaplen, 0 the capture's default (whole packets) */
	int capture_buffer;       /* --capture-buffer in bytes, 0 the capture's default */
	size_t flight_bytes;
	char **argv;
	int argc;
	pid_t child;
	int status;
	struct rt_proc_events *events; /* NULL when record may not listen (not root) */
	char events_err[160];
	uint64_t start_real_ns, end_real_ns;
	struct rt_clock_calib calib;
	int calib_ok;
	struct proc_file files[MAX_PROCS];
	unsigned nfiles;
	/* capture */
	struct rt_live *live;
	pthread_t live_thread;
	struct rt_live_result live_res;
	int live_rc;
	char live_err[256];
};

static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t pending_sig; /* a SIGINT/SIGTERM that came with no program running */

/* Installed from record's start to its end: a signal before the program
 * runs is passed on once it does (record started and stopped at once, by a
 * script's time limit, still leaves its run.json), and one after the
 * program ended does not cut off the writing of the run's files (a lab
 * stopping a client just as it ended by itself lost its run.json). */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* A terminal ^C reaches the whole foreground group, the program included. */
	if (forward_pid > 0 && si && si->si_code != SI_KERNEL)
		kill((pid_t)forward_pid, sig);
	else if (forward_pid == 0)
		pending_sig = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static uint64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "64K", "1M", "262144": bytes, power of two, 4 KiB .. 1 GiB. */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (*end == 'i' || *end == 'B' || *end == 'b')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end || v < 4096 || v > (1ull << 30) || (v & (v - 1)))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

/* The probe: $RDMATRACE_PROBE, else librdmatrace-probe.so next to this binary. */
static int find_probe(char *out, size_t len)
{
	const char *env = getenv("RDMATRACE_PROBE");
	if (env && *env) {
		if (access(env, R_OK) != 0)
			return -errno;
		if (!realpath(env, out))
			return -errno;
		return 0;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -errno;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if (snprintf(out, len, "%s/librdmatrace-probe.so", self) >= (int)len)
		return -ENAMETOOLONG;
	return access(out, R_OK) == 0 ? 0 : -ENOENT;
}

static void base_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t i = 0;
	for (; *b && i + 1 < len; b++)
		out[i++] = (*b == '/' || *b == ' ') ? '_' : *b;
	out[i] = '\0';
}

/* ---- capture thread ---- */

static void *capture_main(void *arg)
{
	struct rec *r = arg;
	r->live_rc = rt_live_run(r->live, &r->live_res, r->live_err, sizeof(r->live_err));
	return NULL;
}

static int start_capture(struct rec *r)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/capture.pcapng", r->rundir);
	struct rt_live_opts o = { .iface = r->capture_iface, .write_path = path,
				  .comment = "rdmatrace record", .snaplen = r->capture_snaplen,
				  .buffer_bytes = r->capture_buffer };
	char err[256];
	int rc = rt_live_open(&o, &r->live, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace record: --capture %s: %s\n", r->capture_iface, err);
		return rc;
	}
	if (pthread_create(&r->live_thread, NULL, capture_main, r) != 0) {
		rt_live_close(r->live);
		r->live = NULL;
		return -EAGAIN;
	}
	return 0;
}

static void stop_capture(struct rec *r)
{
	if (!r->live)
		return;
	usleep(100000); /* let the last packets through the kernel */
	rt_live_stop(r->live);
	pthread_join(r->live_thread, NULL);
	if (r->live_rc < 0) {
		fprintf(stderr, "rdmatrace record: capture: %s\n", r->live_err);
		return;
	}
	/* packets the kernel had no room for: say so now, with what helps,
	 * not only when the run is diagnosed */
	uint64_t dropped = r->live_res.ps_drop + r->live_res.ps_ifdrop;
	if (dropped)
		fprintf(stderr,
			"rdmatrace record: the capture on %s dropped %llu packets (it kept %llu): it could not keep up. "
			"%s--capture-buffer MIB gives the kernel more room for bursts (now %d MiB)\n",
			r->capture_iface, (unsigned long long)dropped, (unsigned long long)r->live_res.packets,
			r->capture_snaplen ? "" : "--capture-snaplen 384 keeps the headers of each packet and CM messages whole (far "
						  "less to copy and write; the ICRCs then go unchecked); ",
			(r->capture_buffer ? r->capture_buffer : RT_LIVE_BUFFER_DEFAULT) >> 20);
}

/* ---- output pass-through ---- */

static void log_write(const char *path, int fd, const char *buf, ssize_t got)
{
	if (fd >= 0 && write(fd, buf, (size_t)got) != got)
		fprintf(stderr, "rdmatrace record: writing %s: %s\n", path, strerror(errno));
}

static void pump(struct rec *r, int out_fd, int err_fd, int log_fd, int err_log_fd)
{
	struct pollfd pf[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
	int open_fds = 2;
	char buf[65536];
	while (open_fds > 0) {
		int n = poll(pf, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t got = read(pf[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			int dest = i == 0 ? STDOUT_FILENO : STDERR_FILENO;
			for (ssize_t off = 0; off < got;) {
				ssize_t w = write(dest, buf + off, (size_t)(got - off));
				if (w <= 0 && errno != EINTR)
					break;
				if (w > 0)
					off += w;
			}
			log_write(r->log_path, log_fd, buf, got);
			if (i == 1)
				log_write(r->err_log_path, err_log_fd, buf, got);
		}
	}
}

/* ---- running the program ---- */

/* In a sanitizer build (make SANITIZE=address|thread) the probe is
 * instrumented too, and ASan and TSan insist that their runtime is the first
 * library loaded: the runtime this rdmatrace runs with goes ahead of it. */
static int find_sanitizer_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *name = info->dlpi_name, *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "libasan.so", 10) && strncmp(base, "libtsan.so", 10))
		return 0;
	snprintf(data, PATH_MAX, "%s", name);
	return 1;
}

static int run_program(struct rec *r, const char *probe)
{
	int out_pipe[2], err_pipe[2];
	if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
		return -errno;
	char prog[64];
	base_name(r->argv[0], prog, sizeof(prog));
	snprintf(r->log_path, sizeof(r->log_path), "%s/%s-%s.out", r->logs, r->host, prog);
	int log_fd = open(r->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0)
		fprintf(stderr, "rdmatrace record: %s: %s\n", r->log_path, strerror(errno));
	snprintf(r->err_log_path, sizeof(r->err_log_path), "%s/%s-%s.err", r->logs, r->host, prog);
	int err_log_fd = open(r->err_log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (err_log_fd < 0)
		fprintf(stderr, "rdmatrace record: %s: %s\n", r->err_log_path, strerror(errno));

	/* Environment for the program: the probe and where its tracer writes. */
	char output[PATH_MAX + 200];
	snprintf(output, sizeof(output), "%s/%s-%%p.rtr", r->traces, r->host);
	const char *old = getenv("LD_PRELOAD");
	char *preload = NULL;
	char runtime[PATH_MAX] = "";
	dl_iterate_phdr(find_sanitizer_runtime, runtime);
	if (asprintf(&preload, "%s%s%s%s%s", runtime, *runtime ? ":" : "", probe, old && *old ? ":" : "",
		     old ? old : "") < 0)
		return -ENOMEM;

	if (rt_proc_events_open(&r->events, r->events_err, sizeof(r->events_err)) < 0)
		r->events = NULL;
	r->start_real_ns = real_ns();
	/* SIGINT and SIGTERM held over the fork: the child takes them with the
	 * default action, record once it knows the child's pid */
	sigset_t stop, old_mask;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old_mask);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		free(preload);
		return -e;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		if (pending_sig)
			raise(pending_sig); /* it came before the program ran */
		setenv("LD_PRELOAD", preload, 1);
		setenv("RDMATRACE_OUTPUT", output, 1);
		unsetenv("RDMATRACE_SHM");
		if (r->flight_bytes) {
			char kb[32];
			snprintf(kb, sizeof(kb), "%zu", r->flight_bytes / 1024);
			setenv("RDMATRACE_MODE", "flight", 1);
			setenv("RDMATRACE_RING_KB", kb, 1);
		} else {
			setenv("RDMATRACE_MODE", "stream", 1);
			setenv("RDMATRACE_RING_KB", STREAM_RING_KB, 0); /* the user's own size wins */
		}
		dup2(out_pipe[1], STDOUT_FILENO);
		dup2(err_pipe[1], STDERR_FILENO);
		execvp(r->argv[0], r->argv);
		fprintf(stderr, "rdmatrace record: cannot run %s: %s\n", r->argv[0], strerror(errno));
		_exit(127);
	}
	free(preload);
	r->child = pid;
	forward_pid = pid;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (r->events && rt_proc_events_follow(r->events, pid) < 0) {
		rt_proc_events_close(r->events);
		r->events = NULL;
		snprintf(r->events_err, sizeof(r->events_err), "cannot start the process events' thread");
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	pump(r, out_pipe[0], err_pipe[0], log_fd, err_log_fd);
	if (log_fd >= 0)
		close(log_fd);
	struct stat est;
	bool wrote_stderr = err_log_fd >= 0 && fstat(err_log_fd, &est) == 0 && est.st_size > 0;
	if (err_log_fd >= 0) {
		if (!wrote_stderr)
			unlink(r->err_log_path);
		close(err_log_fd);
	}
	if (!wrote_stderr)
		r->err_log_path[0] = 0; /* run.json names no stderr log */
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	forward_pid = -1; /* (a signal now neither goes to it nor stops record) */
	r->status = st;
	r->end_real_ns = real_ns();
	rt_proc_events_stop(r->events);
	return 0;
}

/* ---- after the run: salvage, rename, metadata ---- */

/* How process pid ended, when known: from the kernel's process events (with
 * the exit's CLOCK_MONOTONIC time), else for the program record started its
 * wait status (*mono_ns 0: no time). */
static bool process_status(const struct rec *r, int pid, int *status, uint64_t *mono_ns)
{
	if (rt_proc_events_exit(r->events, pid, status, mono_ns))
		return true;
	if (pid != (int)r->child)
		return false;
	*mono_ns = 0;
	*status = r->status;
	return true;
}

static int salvage_one(const struct rt_segment_info *info, void *arg)
{
	struct rec *r = arg;
	size_t tl = strlen(r->traces);
	if (strncmp(info->output, r->traces, tl) != 0 || info->output[tl] != '/')
		return 0;
	if (info->producers_alive || info->collector_alive)
		return 0;
	char out[PATH_MAX + 16];
	size_t ol = strlen(info->output);
	if (ol > 4 && !strcmp(info->output + ol - 4, ".rtr"))
		ol -= 4;
	snprintf(out, sizeof(out), "%.*s.salvage.rtr", (int)ol, info->output);
	struct rt_collector *c = NULL;
	char err[256];
	if (rt_collector_attach(&c, info->name, out, RT_COLLECT_SALVAGE, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdmatrace record: salvaging %s: %s\n", info->name, err);
		return 0;
	}
	/* The process died without its exit handler: how it ended goes into its
	 * trace, so the diagnosis can say so (a SIGKILL, say).  The kernel's
	 * process events know it for every process of the tree, and when. */
	int status;
	uint64_t mono_ns;
	if (process_status(r, info->creator_pid, &status, &mono_ns))
		rt_collector_set_end_at(c, info->creator_pid, status, mono_ns); /* (mono_ns 0: no time) */
	else
		fprintf(stderr, "rdmatrace record: how process %d ended is not known%s%s%s\n", info->creator_pid,
			r->events ? "" : " (", r->events ? "" : r->events_err, r->events ? "" : ")");
	rt_collector_finish(c);
	rt_collector_unlink(c);
	rt_collector_destroy(c);
	fprintf(stderr, "rdmatrace record: process %d ended without writing its trace; "
		"salvaged its rings\n", info->creator_pid);
	/* What the dead process's own collector managed to write stays, unless it is empty. */
	struct rt_trace_reader *rd = rt_trace_reader_new();
	char e2[256];
	if (rd && rt_trace_reader_add_file(rd, info->output, e2, sizeof(e2)) == 0) {
		struct rt_trace_record rec;
		bool events = false;
		while (!events && rt_trace_reader_next(rd, &rec) > 0)
			events = rec.ev.kind != RT_EV_CLOCK_SYNC;
		if (!events)
			unlink(info->output); /* only its header and clock samples */
	}
	rt_trace_reader_free(rd);
	return 0;
}

/* Renames HOST-PID(.salvage).rtr to HOST-PID-PROGRAM(.salvage).rtr and lists them. */
static void collect_files(struct rec *r)
{
	DIR *d = opendir(r->traces);
	if (!d)
		return;
	struct dirent *e;
	size_t hl = strlen(r->host);
	while ((e = readdir(d)) && r->nfiles < MAX_PROCS) {
		const char *n = e->d_name;
		if (strncmp(n, r->host, hl) != 0 || n[hl] != '-')
			continue;
		char *end;
		long pid = strtol(n + hl + 1, &end, 10);
		bool salvage = !strcmp(end, ".salvage.rtr");
		if (pid <= 0 || (!salvage && strcmp(end, ".rtr") != 0))
			continue;
		struct proc_file *f = &r->files[r->nfiles++];
		f->pid = (int)pid;
		f->salvaged = salvage;
		uint64_t mono_ns;
		f->ended = process_status(r, (int)pid, &f->status, &mono_ns);
		char old[PATH_MAX + 300];
		snprintf(old, sizeof(old), "%s/%s", r->traces, n);
		struct rt_trace_reader *rd = rt_trace_reader_new();
		char err[256];
		if (rd && rt_trace_reader_add_file(rd, old, err, sizeof(err)) == 0) {
			const struct rt_trace_source *src = rt_trace_reader_source(rd, 0);
			if (src)
				base_name(src->program, f->program, sizeof(f->program));
		}
		rt_trace_reader_free(rd);
		if (!f->program[0])
			snprintf(f->program, sizeof(f->program), "unknown");
		char prog[sizeof(f->program)];
		memcpy(prog, f->program, sizeof(prog));
		snprintf(f->path, sizeof(f->path), "traces/%s-%ld-%s%s", r->host, pid, prog,
			 salvage ? ".salvage.rtr" : ".rtr");
		char neu[PATH_MAX + 300];
		snprintf(neu, sizeof(neu), "%s/%s", r->rundir, f->path);
		if (rename(old, neu) != 0)
			snprintf(f->path, sizeof(f->path), "traces/%s", n);
	}
	closedir(d);
}

static void read_line(const char *path, char *out, size_t len)
{
	out[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

/* Which file a library resolves to with the program's environment. */
static void library_path(const char *soname, char *out, size_t len)
{
	out[0] = '\0';
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
	struct link_map *lm = NULL;
	char real[PATH_MAX];
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && realpath(lm->l_name, real))
		snprintf(out, len, "%s", real);
	dlclose(h);
}

static int write_run_json(struct rec *r, const char *probe)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/run.json", r->rundir);
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	struct utsname u;
	uname(&u);
	char boot[64];
	read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	fprintf(f, "{\n  \"tool\": \"rdmatrace record\",\n  \"version\": ");
	rt_cli_json_str(f, RDMATRACE_VERSION);
	fprintf(f, ",\n  \"backend\": \"host\",\n  \"mode\": \"%s\",\n",
		r->flight_bytes ? "flight" : "stream");
	const char *kb = getenv("RDMATRACE_RING_KB");
	if (r->flight_bytes)
		fprintf(f, "  \"ring_bytes\": %zu,\n", r->flight_bytes);
	else
		fprintf(f, "  \"ring_bytes\": %lu,\n", strtoul(kb && *kb ? kb : STREAM_RING_KB, NULL, 10) * 1024ul);
	fprintf(f, "  \"hosts\": [{\"name\": ");
	rt_cli_json_str(f, r->host);
	fprintf(f, ", \"boot_id\": ");
	rt_cli_json_str(f, boot);
	fprintf(f, ", \"kernel\": ");
	rt_cli_json_str(f, u.release);
	fprintf(f, ", \"machine\": ");
	rt_cli_json_str(f, u.machine);
	fprintf(f, "}],\n  \"start_ns\": %llu,\n  \"end_ns\": %llu,\n",
		(unsigned long long)r->start_real_ns, (unsigned long long)r->end_real_ns);
	if (r->calib_ok)
		fprintf(f, "  \"clock\": {\"source\": \"%s\", \"ticks\": %llu, \"mono_ns\": %llu, "
			   "\"real_ns\": %llu, \"rate_ticks\": %llu, \"rate_ns\": %llu},\n",
			r->calib.source == RT_CLOCK_TSC ? "tsc" : "monotonic",
			(unsigned long long)r->calib.base.ticks, (unsigned long long)r->calib.base.mono_ns,
			(unsigned long long)r->calib.base.real_ns, (unsigned long long)r->calib.rate_ticks,
			(unsigned long long)r->calib.rate_ns);
	fprintf(f, "  \"command\": [");
	for (int i = 0; i < r->argc; i++) {
		if (i)
			fputs(", ", f);
		rt_cli_json_str(f, r->argv[i]);
	}
	fprintf(f, "],\n  \"libraries\": {");
	static const char *const libs[] = { "libibverbs.so.1", "librdmacm.so.1" };
	char lp[PATH_MAX];
	bool first = true;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		library_path(libs[i], lp, sizeof(lp));
		if (!lp[0])
			continue;
		fprintf(f, "%s", first ? "" : ", ");
		rt_cli_json_str(f, libs[i]);
		fputs(": ", f);
		rt_cli_json_str(f, lp);
		first = false;
	}
	fprintf(f, "%s", first ? "" : ", ");
	fputs("\"probe\": ", f);
	rt_cli_json_str(f, probe);
	fprintf(f, "},\n  \"exit\": {");
	if (WIFEXITED(r->status))
		fprintf(f, "\"code\": %d", WEXITSTATUS(r->status));
	else if (WIFSIGNALED(r->status))
		fprintf(f, "\"signal\": %d, \"signal_name\": \"%s\"", WTERMSIG(r->status),
			rt_signal_name(WTERMSIG(r->status)));
	fprintf(f, "},\n  \"log\": ");
	char rel[PATH_MAX + 200];
	const char *lb = strrchr(r->log_path, '/');
	snprintf(rel, sizeof(rel), "logs/%s", lb ? lb + 1 : r->log_path);
	rt_cli_json_str(f, rel);
	if (r->err_log_path[0]) {
		fprintf(f, ",\n  \"stderr_log\": ");
		lb = strrchr(r->err_log_path, '/');
		snprintf(rel, sizeof(rel), "logs/%s", lb ? lb + 1 : r->err_log_path);
		rt_cli_json_str(f, rel);
	}
	fprintf(f, ",\n  \"processes\": [");
	for (unsigned i = 0; i < r->nfiles; i++) {
		const struct proc_file *p = &r->files[i];
		fprintf(f, "%s\n    {\"pid\": %d, \"host\": ", i ? "," : "", p->pid);
		rt_cli_json_str(f, r->host);
		fprintf(f, ", \"program\": ");
		rt_cli_json_str(f, p->program);
		fprintf(f, ", \"trace\": ");
		rt_cli_json_str(f, p->path);
		fprintf(f, ", \"salvaged\": %s", p->salvaged ? "true" : "false");
		if (p->pid == r->child)
			fprintf(f, ", \"root\": true");
		if (p->ended && WIFEXITED(p->status))
			fprintf(f, ", \"exit_code\": %d", WEXITSTATUS(p->status));
		else if (p->ended && WIFSIGNALED(p->status))
			fprintf(f, ", \"exit_signal\": %d", WTERMSIG(p->status));
		fputc('}', f);
	}
	fprintf(f, "%s],\n  \"root_pid\": %d,\n  \"process_events\": ", r->nfiles ? "\n  " : "", (int)r->child);
	if (r->events)
		fprintf(f, "{\"lost\": %llu}", (unsigned long long)rt_proc_events_lost(r->events));
	else
		rt_cli_json_str(f, r->events_err);
	fprintf(f, ",\n  \"captures\": [");
	if (r->live) {
		fprintf(f, "{\"host\": ");
		rt_cli_json_str(f, r->host);
		fprintf(f, ", \"iface\": ");
		rt_cli_json_str(f, r->capture_iface);
		fprintf(f, ", \"file\": \"capture.pcapng\", \"packets\": %llu, \"kernel_drops\": %llu, "
			   "\"filter\": ",
			(unsigned long long)r->live_res.packets, (unsigned long long)r->live_res.ps_drop);
		rt_cli_json_str(f, r->live_res.filter);
		fputc('}', f);
	}
	fprintf(f, "]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}

static const char usage[] =
	"usage: rdmatrace record [-o RUNDIR] [--flight-recorder SIZE] [--capture IFACE [--capture-snaplen N]\n"
	"                        [--capture-buffer MIB]] -- PROGRAM [ARGS...]\n"
	"\n"
	"Run an unmodified verbs program (rping, perftest, your own) with the rdmatrace\n"
	"probe preloaded and leave a run directory: traces/HOST-PID-PROGRAM.rtr for each\n"
	"process that used RDMA (children after fork and exec included), logs/ with the\n"
	"program's output (also passed through), capture.pcapng with --capture, run.json.\n"
	"\n"
	"  -o, --output RUNDIR       run directory (default: run-YYYYmmdd-HHMMSS)\n"
	"  --flight-recorder SIZE    keep only the last SIZE bytes of events per thread\n"
	"                            (power of two, 4K..1G; e.g. 1M), written on error\n"
	"                            completions, fatal signals and exit\n"
	"  --capture IFACE           capture RoCEv2 (UDP 4791) on IFACE meanwhile\n"
	"  --capture-snaplen N       bytes kept of each captured packet (64..262144; default\n"
	"                            whole packets); 384 keeps every header and CM message,\n"
	"                            copies far less and leaves ICRCs unchecked: for a\n"
	"                            capture that drops packets\n"
	"  --capture-buffer MIB      the kernel's capture buffer (1..1024 MiB; default 64)\n"
	"\n"
	"The probe is librdmatrace-probe.so next to the rdmatrace binary, or $RDMATRACE_PROBE.\n"
	"SIGINT/SIGTERM are forwarded to the program; the exit status is the program's\n"
	"(128+N when killed by signal N).  The traces of a process that died without\n"
	"writing them (SIGKILL) are salvaged, with how it ended: the program's wait\n"
	"status, and as root (the kernel's process events) every child's and when.\n"
	"\n"
	"example:\n"
	"  rdmatrace record -o run1 -- rping -s -a 127.0.0.1 -C 10\n";

/* Claims run directory absdir (rundir as the user named it) for this
 * recording: a lock on the directory for as long as the recording runs, so
 * that a second record into it (two programs recorded with one -o) is
 * refused rather than overwriting the first one's run.json and logs and
 * salvaging its traces; and a directory that holds a finished recording
 * (its run.json) is refused too, so nothing recorded is lost.  Returns the
 * locked descriptor, or -1 with the reason said. */
static int claim_rundir(const char *rundir, const char *absdir)
{
	int fd = open(absdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rdmatrace record: cannot open %s: %s\n", rundir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "rdmatrace record: %s is in use by another rdmatrace record; record each program "
				"into a directory of its own (-o RUN/srv, -o RUN/cli: rdmatrace correlate RUN reads "
				"them together)\n", rundir);
		close(fd);
		return -1;
	}
	char rj[PATH_MAX + 16];
	snprintf(rj, sizeof(rj), "%s/run.json", absdir);
	if (access(rj, F_OK) == 0) {
		fprintf(stderr, "rdmatrace record: %s already holds a recording (its run.json); record into another "
				"directory, or remove that one first\n", rundir);
		close(fd);
		return -1;
	}
	return fd;
}

/* Option opt's value s, a whole number from lo to hi (in unit), into *out;
 * 0, or -1 with a message. */
static int range_arg(const char *opt, const char *s, uint64_t lo, uint64_t hi, const char *unit, int *out)
{
	uint64_t v;
	if (rt_parse_number_arg(s, 10, hi, &v) < 0 || v < lo) {
		fprintf(stderr, "rdmatrace record: bad %s '%s' (%llu..%llu %s)\n", opt, s, (unsigned long long)lo,
			(unsigned long long)hi, unit);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	struct rec *r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			r->rundir = argv[++i];
		} else if (!strcmp(a, "--flight-recorder") && i + 1 < argc) {
			if (parse_size(argv[++i], &r->flight_bytes) < 0) {
				fprintf(stderr, "rdmatrace record: --flight-recorder wants a power of two "
						"between 4K and 1G, not '%s'\n", argv[i]);
				free(r);
				return 2;
			}
		} else if (!strcmp(a, "--capture") && i + 1 < argc) {
			r->capture_iface = argv[++i];
		} else if (!strcmp(a, "--capture-snaplen") && i + 1 < argc) {
			if (range_arg(a, argv[++i], 64, 262144, "bytes", &r->capture_snaplen) < 0) {
				free(r);
				return 2;
			}
		} else if (!strcmp(a, "--capture-buffer") && i + 1 < argc) {
			if (range_arg(a, argv[++i], 1, 1024, "MiB", &r->capture_buffer) < 0) {
				free(r);
				return 2;
			}
			r->capture_buffer <<= 20;
		} else if (a[0] == '-') {
			fprintf(stderr, "rdmatrace record: unknown or incomplete option '%s'\n%s", a, usage);
			free(r);
			return 2;
		} else {
			break; /* PROGRAM without "--" */
		}
	}
	if (i >= argc) {
		fprintf(stderr, "rdmatrace record: no program to run\n%s", usage);
		free(r);
		return 2;
	}
	r->argv = argv + i;
	r->argc = argc - i;
	catch_stop_signals();

	char probe[PATH_MAX];
	int rc = find_probe(probe, sizeof(probe));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace record: cannot find librdmatrace-probe.so next to rdmatrace "
				"or in $RDMATRACE_PROBE: %s\n", strerror(-rc));
		free(r);
		return 2;
	}
	char defdir[64];
	if (!r->rundir) {
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(defdir, sizeof(defdir), "run-%Y%m%d-%H%M%S", &tm);
		r->rundir = defdir;
	}
	if (gethostname(r->host, sizeof(r->host)) != 0 || !r->host[0])
		snprintf(r->host, sizeof(r->host), "localhost");
	r->host[sizeof(r->host) - 1] = '\0';
	for (char *p = r->host; *p; p++)
		if (*p == '/' || *p == '-')
			*p = '_'; /* file names split HOST-PID-PROGRAM on '-' */
	char absdir[PATH_MAX];
	if ((rc = rt_mkdir_p(r->rundir)) < 0 || !realpath(r->rundir, absdir)) {
		fprintf(stderr, "rdmatrace record: cannot create %s: %s\n", r->rundir,
			strerror(rc < 0 ? -rc : errno));
		free(r);
		return 2;
	}
	int lock_fd = claim_rundir(r->rundir, absdir);
	if (lock_fd < 0) {
		free(r);
		return 2;
	}
	snprintf(r->traces, sizeof(r->traces), "%s/traces", absdir);
	snprintf(r->logs, sizeof(r->logs), "%s/logs", absdir);
	if (rt_mkdir_p(r->traces) < 0 || rt_mkdir_p(r->logs) < 0) {
		fprintf(stderr, "rdmatrace record: cannot create %s/traces and logs: %s\n", r->rundir,
			strerror(errno));
		close(lock_fd);
		free(r);
		return 2;
	}
	r->calib_ok = rt_clock_calibrate(rt_clock_default_source(), 20000000, &r->calib) == 0;
	if (r->capture_iface && start_capture(r) < 0) {
		close(lock_fd);
		free(r);
		return 2;
	}
	rc = run_program(r, probe);
	stop_capture(r);
	if (rc < 0) {
		fprintf(stderr, "rdmatrace record: cannot start %s: %s\n", r->argv[0], strerror(-rc));
		close(lock_fd);
		free(r);
		return 2;
	}
	rt_collector_list_segments(salvage_one, r);
	collect_files(r);
	if ((rc = write_run_json(r, probe)) < 0)
		fprintf(stderr, "rdmatrace record: writing run.json: %s\n", strerror(-rc));
	if (r->live)
		rt_live_close(r->live);
	rt_proc_events_close(r->events);
	close(lock_fd); /* (the run directory is the next recording's to refuse: it has a run.json now) */
	int status = r->status;
	free(r);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

const struct rt_command rt_cmd_record = {
	.name = "record",
	.summary = "run a verbs program under the probe and record a run directory",
	.usage = usage,
	.run = cmd_record,
};
