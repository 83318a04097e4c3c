/*
 * Replays a fuzz target's corpus as an ordinary test, so every input the
 * fuzzer ever found interesting (and every crash kept as a regression file)
 * runs in `make test` under the normal compiler and the sanitizer builds.
 * Usage: replay_NAME [FILE-OR-DIR...]; default tests/fuzz/corpus/NAME.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path, int *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	/* Copy to an exact-size allocation so ASan catches reads past the end. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*n)++;
	return 0;
}

static int replay_path(const char *path, int *n)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		printf("# %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, n);
	struct dirent **names;
	int count = scandir(path, &names, NULL, alphasort);
	if (count < 0)
		return -1;
	int rc = 0;
	for (int i = 0; i < count; i++) {
		if (names[i]->d_name[0] != '.') {
			char full[4096];
			snprintf(full, sizeof(full), "%s/%s", path, names[i]->d_name);
			if (replay_path(full, n) != 0)
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int n = 0, rc = 0;
	if (argc < 2) {
		rc = replay_path("tests/fuzz/corpus/" FUZZ_NAME, &n);
	} else {
		for (int i = 1; i < argc; i++)
			if (replay_path(argv[i], &n) != 0)
				rc = -1;
	}
	/* Reaching this line means no input crashed the target. */
	printf("%s 1 - corpus %s replayed (%d inputs)\n", rc == 0 && n > 0 ? "ok" : "not ok", FUZZ_NAME, n);
	printf("1..1\n");
	return rc == 0 && n > 0 ? 0 : 1;
}
