/*
 * tshark and Wireshark hand-off (see handoff.h).  Both run as child
 * processes with argument vectors (never through a shell); tshark's output
 * is read through a pipe with a deadline so a stuck decode cannot hang the
 * viewer.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"

#define TSHARK_TIMEOUT_MS 20000
#define TSHARK_MAX_OUT (4u << 20)

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int vw_tshark_decode(const char *program, const char *capture, uint32_t frame, char **out, size_t *len,
		     char *err, size_t errlen)
{
	char filter[64];
	int pfd[2], status = 0, rc = 0;
	pid_t pid;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	long deadline;

	*out = NULL;
	*len = 0;
	snprintf(filter, sizeof(filter), "frame.number == %u", frame);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execlp(program, program, "-n", "-r", capture, "-V", "-Y", filter, (char *)NULL);
		dprintf(1, "cannot run %s: %s\n", program, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	deadline = now_ms() + TSHARK_TIMEOUT_MS;
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t r;
		if (left <= 0) {
			kill(pid, SIGKILL);
			rc = -ETIMEDOUT;
			snprintf(err, errlen, "%s did not finish within %d s", program, TSHARK_TIMEOUT_MS / 1000);
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		if (n + 4096 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 16384;
			char *q = realloc(buf, nc);
			if (!q) {
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				kill(pid, SIGKILL);
				break;
			}
			buf = q;
			cap = nc;
		}
		r = read(pfd[0], buf + n, 4096);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n > TSHARK_MAX_OUT) {
			kill(pid, SIGKILL);
			break;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		rc = -EIO;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			snprintf(err, errlen, "cannot run %s (is Wireshark's tshark installed?)", program);
		else
			snprintf(err, errlen, "%s failed (%s %d): %.80s", program,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), buf && n ? buf : "");
	}
	if (rc == 0 && n == 0) {
		rc = -ENOENT;
		snprintf(err, errlen, "tshark shows nothing for frame %u", frame);
	}
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

static int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

int vw_wireshark_open(const char *capture, uint32_t frame, char *err, size_t errlen)
{
	char gopt[16];
	pid_t pid;

	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");

	if ((!d || !*d) && (!w || !*w)) {
		snprintf(err, errlen, "no display ($DISPLAY unset): press w for tshark's decode here");
		return -ENXIO;
	}
	if (!in_path("wireshark")) {
		snprintf(err, errlen, "wireshark is not installed: press w for tshark's decode here");
		return -ENOENT;
	}
	snprintf(gopt, sizeof(gopt), "%u", frame);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		/* a grandchild, detached, so the viewer never waits for it */
		if (fork() != 0)
			_exit(0);
		setsid();
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execlp("wireshark", "wireshark", "-r", capture, "-g", gopt, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}
