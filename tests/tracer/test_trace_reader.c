/*
 * The trace file writer and reader on files with known contents: time
 * conversion through calibration points, merging, and every kind of damage
 * (flipped record, broken chunk header, truncation, wrong version, garbage
 * inserted), checking that exactly the damaged records are lost and the
 * damage is reported at the right byte offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/trace_writer.h"
#include "testlib.h"
#include "tracer/tmpdir.h"

#define PER_CHUNK 100
#define CHUNKS 3
/* Synthetic 2.5 GHz tick source; t = 0 at mono 1 s, real 1e18 ns. */
#define TICKS_PER_US 2500ull
#define MONO0 1000000000ull
#define REAL0 1000000000000000000ull

static void header(struct rt_file_header *h, const char *boot)
{
	rt_file_header_init(h);
	h->pid = 4242;
	snprintf(h->program, sizeof(h->program), "unit");
	snprintf(h->boot_id, sizeof(h->boot_id), "%s", boot);
	h->calib.source = RT_CLOCK_TSC;
	h->calib.base = (struct rt_clock_point){0, MONO0, REAL0};
	h->calib.rate_ticks = 2500000000ull;
	h->calib.rate_ns = 1000000000ull;
}

/* Chunk k holds records with wr_id k*PER_CHUNK+i at ticks (that id) microseconds, shifted by `skew_ticks`.
 * with_drift_sync 1: two clock_sync points bend the tick line; 2: the same, with the wall
 * clock slewed back 100 us at each (as NTP does); 3: the wall clock set 2 s
 * forward between the two points. */
static void write_file(const char *path, const char *boot, uint64_t skew_ticks, int with_drift_sync)
{
	struct rt_file_header h;
	header(&h, boot);
	struct rt_trace_writer w;
	char err[256];
	CHECK_EQ_U(rt_trace_writer_open(&w, path, &h, err, sizeof(err)), 0);
	struct rt_process_record p = {.pid = 4242};
	snprintf(p.program, sizeof(p.program), "unit");
	CHECK_EQ_U(rt_trace_writer_process(&w, &p), 0);
	struct rt_event ev[PER_CHUNK];
	for (int k = 0; k < CHUNKS; k++) {
		memset(ev, 0, sizeof(ev));
		for (int i = 0; i < PER_CHUNK; i++) {
			uint64_t id = (uint64_t)k * PER_CHUNK + (uint64_t)i;
			ev[i].ticks = id * TICKS_PER_US + skew_ticks;
			ev[i].seq = (uint32_t)id;
			ev[i].tid = 77;
			ev[i].kind = RT_EV_WR_POST;
			ev[i].u.wr.wr_id = id;
		}
		CHECK_EQ_U(rt_trace_writer_events(&w, 4242, 0, 77, 0, ev, PER_CHUNK), 0);
	}
	if (with_drift_sync) {
		/* At tick 150 us the clock says 150.5 us: the reader must bend the line there. */
		struct rt_event s = {.kind = RT_EV_CLOCK_SYNC, .tid = 1};
		s.u.clock.ticks = 150 * TICKS_PER_US;
		s.u.clock.mono_ns = MONO0 + 150500;
		s.u.clock.real_ns = REAL0 + 150500 - (with_drift_sync == 2 ? 100000 : 0);
		s.ticks = s.u.clock.ticks;
		CHECK_EQ_U(rt_trace_writer_events(&w, 4242, ~0u, 1, RT_CHUNKF_COLLECTOR, &s, 1), 0);
		s.u.clock.ticks = 300 * TICKS_PER_US;
		s.u.clock.mono_ns = MONO0 + 301000;
		s.u.clock.real_ns = REAL0 + 301000 - (with_drift_sync == 2 ? 200000 : 0) +
				    (with_drift_sync == 3 ? 2000000000ull : 0);
		s.ticks = s.u.clock.ticks;
		CHECK_EQ_U(rt_trace_writer_events(&w, 4242, ~0u, 1, RT_CHUNKF_COLLECTOR, &s, 1), 0);
	}
	struct rt_event lost = {.kind = RT_EV_LOST, .tid = 77, .ticks = 299 * TICKS_PER_US + 1};
	lost.u.lost.count = 5;
	lost.u.lost.cause = RT_LOST_RING_FULL;
	CHECK_EQ_U(rt_trace_writer_events(&w, 4242, 0, 77, 0, &lost, 1), 0);
	CHECK_EQ_U(rt_trace_writer_close(&w), 0);
}

/* Offsets in the file written above. */
static uint64_t chunk_off(int k)
{
	uint64_t chunk = RT_CHUNK_HEADER_SIZE + rt_chunk_crc_table_size(PER_CHUNK) + PER_CHUNK * RT_EVENT_SIZE;
	return RT_FILE_HEADER_SIZE + RT_CHUNK_HEADER_SIZE + 128 + (uint64_t)k * chunk;
}

static uint64_t record_off(int k, int i)
{
	return chunk_off(k) + RT_CHUNK_HEADER_SIZE + rt_chunk_crc_table_size(PER_CHUNK) + (uint64_t)i * RT_EVENT_SIZE;
}

static void patch(const char *path, uint64_t off, uint8_t xor_mask)
{
	int fd = open(path, O_RDWR);
	uint8_t b;
	CHECK(pread(fd, &b, 1, (off_t)off) == 1);
	b ^= xor_mask;
	CHECK(pwrite(fd, &b, 1, (off_t)off) == 1);
	close(fd);
}

struct seen {
	unsigned n;
	uint8_t have[CHUNKS * PER_CHUNK];
	int ordered;
};

static struct rt_trace_reader *read_all(const char *path, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->ordered = 1;
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	uint64_t last = 0;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		if (rec.ev.u.wr.wr_id < CHUNKS * PER_CHUNK)
			s->have[rec.ev.u.wr.wr_id] = 1;
		if (rec.mono_ns < last)
			s->ordered = 0;
		last = rec.mono_ns;
		s->n++;
	}
	return r;
}

static int damage_at(struct rt_trace_reader *r, uint64_t off, const char *word)
{
	for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++) {
		const struct rt_trace_damage *d = rt_trace_reader_damage(r, i);
		if (d->offset == off && strstr(d->message, word))
			return 1;
	}
	for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++)
		printf("#   damage at %llu: %s\n", (unsigned long long)rt_trace_reader_damage(r, i)->offset,
		       rt_trace_reader_damage(r, i)->message);
	return 0;
}

static void test_clean_and_time(void)
{
	const char *path = tmp_path("clean.rtr");
	write_file(path, "boot-a", 0, 1);
	struct seen s;
	struct rt_trace_reader *r = read_all(path, &s);
	CHECK_EQ_U(s.n, CHUNKS * PER_CHUNK);
	CHECK(s.ordered);
	CHECK_EQ_U(rt_trace_reader_damage_count(r), 0);
	uint64_t lost[5];
	rt_trace_reader_lost(r, lost);
	CHECK_EQ_U(lost[0], 5);
	CHECK_EQ_U(lost[RT_LOST_RING_FULL], 5);
	/* Piecewise conversion: 0..150 us on the header's line, 150..300 us stretched by the drift. */
	rt_trace_reader_rewind(r);
	struct rt_trace_record rec;
	int checked = 0;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		uint64_t id = rec.ev.u.wr.wr_id, want;
		if (id <= 150)
			want = MONO0 + id * 1000 + (id * 500) / 150; /* between (0,0) and (150us, 150.5us) */
		else
			want = MONO0 + 150500 + ((id - 150) * 1000 * 150500) / 150000; /* (150,150.5) to (300,301) */
		if (id == 0 || id == 75 || id == 150 || id == 225 || id == 299) {
			int64_t diff = (int64_t)rec.mono_ns - (int64_t)want;
			if (diff < -2 || diff > 2)
				printf("#   id %llu: mono %llu want %llu\n", (unsigned long long)id,
				       (unsigned long long)rec.mono_ns, (unsigned long long)want);
			CHECK(diff >= -2 && diff <= 2);
			CHECK_EQ_U(rec.ns - rec.mono_ns, REAL0 - MONO0);
			checked++;
		}
		CHECK_EQ_U(rec.pid, 4242);
		CHECK_STR(rec.program, "unit");
	}
	CHECK_EQ_U(checked, 5);
	const struct rt_trace_source *src = rt_trace_reader_source(r, 0);
	CHECK_STR(src->boot_id, "boot-a");
	CHECK_EQ_U(src->records, CHUNKS * PER_CHUNK + 3);
	rt_trace_reader_free(r);
}

/* The file write_file(mode) writes: records 75 and 225 (halfway into the
 * segments the points at 150 and 300 us end) have these wall-clock offsets,
 * and the merge keeps wall-clock times in order. */
static void check_wall_offsets(int mode, const char *also, int64_t want75, int64_t want225)
{
	const char *path = tmp_path("slew.rtr");
	write_file(path, "boot-s", 0, mode);
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	if (also)
		CHECK_EQ_U(rt_trace_reader_add_file(r, also, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	uint64_t last = 0;
	int ordered = 1, checked = 0;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		if (rec.ns < last)
			ordered = 0;
		last = rec.ns;
		uint64_t id = rec.ev.u.wr.wr_id;
		if (rec.file == 0 && (id == 75 || id == 225)) {
			int64_t off = (int64_t)(rec.ns - rec.mono_ns) - (int64_t)(REAL0 - MONO0);
			int64_t want = id == 75 ? want75 : want225;
			if (off < want - 400 || off > want + 400)
				printf("#   id %llu: wall offset %lld, want %lld\n", (unsigned long long)id, (long long)off,
				       (long long)want);
			CHECK(off >= want - 400 && off <= want + 400);
			checked++;
		}
	}
	CHECK(ordered);
	CHECK_EQ_U(checked, 2);
	rt_trace_reader_free(r);
}

/* NTP slews the wall clock between sync points: wall-clock times follow the
 * offset linearly from point to point. */
static void test_wall_clock_slew(void)
{
	check_wall_offsets(2, NULL, -50000, -150000); /* halfway through each segment: half the slew done */
}

/* A wall clock set (stepped) between two points is no slew: the records
 * before the later point keep the earlier offset (the collector writes a
 * point as soon as it notices), not a part of 2 s each. */
static void test_wall_clock_step(void)
{
	check_wall_offsets(3, NULL, 0, 0);
}

/* A process of the same boot that started at 200 us, after the wall clock
 * was set: its first point, with the new offset, tells the other file's
 * records from 200 us on too (the offset is the host's). */
static void test_wall_clock_step_shared(void)
{
	const char *late = tmp_path("late.rtr");
	struct rt_file_header h;
	header(&h, "boot-s");
	h.pid = 4343;
	h.calib.base = (struct rt_clock_point){200 * TICKS_PER_US, MONO0 + 200000, REAL0 + 200000 + 2000000000ull};
	struct rt_trace_writer w;
	char err[256];
	CHECK_EQ_U(rt_trace_writer_open(&w, late, &h, err, sizeof(err)), 0);
	struct rt_event ev = {.kind = RT_EV_WR_POST, .tid = 78, .ticks = 250 * TICKS_PER_US};
	ev.u.wr.wr_id = 9999;
	CHECK_EQ_U(rt_trace_writer_events(&w, 4343, 0, 78, 0, &ev, 1), 0);
	CHECK_EQ_U(rt_trace_writer_close(&w), 0);
	check_wall_offsets(3, late, 0, 2000000000);
}

static void test_corrupt_record(void)
{
	const char *path = tmp_path("rec.rtr");
	write_file(path, "boot-a", 0, 0);
	patch(path, record_off(1, 42) + 30, 0x40);
	struct seen s;
	struct rt_trace_reader *r = read_all(path, &s);
	CHECK_EQ_U(s.n, CHUNKS * PER_CHUNK - 1);
	CHECK(!s.have[142] && s.have[141] && s.have[143]);
	CHECK(damage_at(r, record_off(1, 42), "checksum"));
	rt_trace_reader_free(r);
}

static void test_corrupt_chunk_header(void)
{
	const char *path = tmp_path("hdr.rtr");
	write_file(path, "boot-a", 0, 0);
	patch(path, chunk_off(1) + 8, 0x01); /* the count */
	struct seen s;
	struct rt_trace_reader *r = read_all(path, &s);
	CHECK_EQ_U(s.n, 2 * PER_CHUNK); /* chunks 0 and 2 intact */
	CHECK(s.have[0] && s.have[99] && !s.have[100] && !s.have[199] && s.have[200] && s.have[299]);
	CHECK(damage_at(r, chunk_off(1), "corrupt chunk header"));
	rt_trace_reader_free(r);
}

static void test_truncated(void)
{
	const char *path = tmp_path("trunc.rtr");
	write_file(path, "boot-a", 0, 0);
	/* Cut in the middle of record 60 of the last chunk. */
	CHECK(truncate(path, (off_t)(record_off(2, 60) + 10)) == 0);
	struct seen s;
	struct rt_trace_reader *r = read_all(path, &s);
	CHECK_EQ_U(s.n, 2 * PER_CHUNK + 60);
	CHECK(s.have[259] && !s.have[260]);
	CHECK(damage_at(r, chunk_off(2), "truncated chunk: 60 of 100"));
	rt_trace_reader_free(r);
	/* Cut inside the file header: not a usable trace, error names file and offset. */
	CHECK(truncate(path, 100) == 0);
	r = rt_trace_reader_new();
	char err[512];
	CHECK(rt_trace_reader_add_file(r, path, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) && strstr(err, "byte offset 100"));
	rt_trace_reader_free(r);
}

static void test_garbage_inserted(void)
{
	const char *path = tmp_path("ins.rtr");
	write_file(path, "boot-a", 0, 0);
	/* Rewrite the file with 13 junk bytes right before chunk 1: chunk 1 and 2 shift off alignment. */
	int fd = open(path, O_RDONLY);
	struct stat st;
	fstat(fd, &st);
	uint8_t *buf = malloc((size_t)st.st_size + 13);
	CHECK(read(fd, buf, (size_t)st.st_size) == st.st_size);
	close(fd);
	uint64_t at = chunk_off(1);
	memmove(buf + at + 13, buf + at, (size_t)st.st_size - at);
	memset(buf + at, 'x', 13);
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_buffer(r, "mem", buf, (size_t)st.st_size + 13, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	unsigned n = 0;
	while (rt_trace_reader_next(r, &rec) > 0)
		n += rec.ev.kind == RT_EV_WR_POST;
	CHECK_EQ_U(n, CHUNKS * PER_CHUNK); /* resynchronised on the next chunk header */
	CHECK(damage_at(r, at, "13 bytes skipped"));
	rt_trace_reader_free(r);
	free(buf);
}

static void test_wrong_version_and_magic(void)
{
	const char *path = tmp_path("ver.rtr");
	write_file(path, "boot-a", 0, 0);
	patch(path, 8, 0x02); /* major version 1 -> 3 */
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[512];
	CHECK(rt_trace_reader_add_file(r, path, err, sizeof(err)) == -EPROTONOSUPPORT);
	CHECK(strstr(err, path) && strstr(err, "version 3.0") && strstr(err, "byte offset 8"));
	patch(path, 8, 0x02);
	patch(path, 0, 0xff);
	CHECK(rt_trace_reader_add_file(r, path, err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "not an rdmatrace trace file"));
	CHECK(rt_trace_reader_add_file(r, tmp_path("missing.rtr"), err, sizeof(err)) == -ENOENT);
	CHECK_EQ_U(rt_trace_reader_source_count(r), 0);
	CHECK_EQ_U(rt_trace_reader_count(r), 0);
	rt_trace_reader_free(r);
}

static void test_merge_two_files(void)
{
	/* Same boot: merged on monotonic time; the second file is 50.5 us later. */
	const char *a = tmp_path("ma.rtr"), *b = tmp_path("mb.rtr");
	write_file(a, "boot-x", 0, 0);
	write_file(b, "boot-x", 50 * TICKS_PER_US + TICKS_PER_US / 2, 0);
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, a, err, sizeof(err)), 0);
	CHECK_EQ_U(rt_trace_reader_add_file(r, b, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	uint64_t last = 0;
	unsigned n = 0, from_b = 0, ordered = 1;
	int first_file = -1;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		if (first_file < 0)
			first_file = (int)rec.file;
		if (rec.mono_ns < last)
			ordered = 0;
		last = rec.mono_ns;
		n++;
		from_b += rec.file == 1;
	}
	CHECK_EQ_U(n, 2 * CHUNKS * PER_CHUNK);
	CHECK_EQ_U(from_b, CHUNKS * PER_CHUNK);
	CHECK(ordered);
	CHECK_EQ_U(first_file, 0);
	rt_trace_reader_free(r);
}

static void test_crc32c(void)
{
	CHECK_EQ_U(rt_crc32c(0, "123456789", 9), 0xe3069283u); /* the standard check value */
	CHECK_EQ_U(rt_crc32c(rt_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	CHECK_EQ_U(rt_crc32c(0, "", 0), 0);
}

/* Records written out of time order, in `runs` descending steps (chunks of
 * one event each, in an order that goes back in time runs - 1 times): read
 * in time order, each once, and the same again after a rewind; with more
 * than 64 runs the reader sorts instead of merging them, with the same
 * result. */
static void check_runs(unsigned runs)
{
	const char *path = tmp_path("runs.rtr");
	struct rt_file_header h;
	header(&h, "boot-r");
	struct rt_trace_writer w;
	char err[256];
	CHECK_EQ_U(rt_trace_writer_open(&w, path, &h, err, sizeof(err)), 0);
	struct rt_process_record p = {.pid = 4242};
	CHECK_EQ_U(rt_trace_writer_process(&w, &p), 0);
	enum { PER_RUN = 5 };
	unsigned n = runs * PER_RUN;
	/* run k holds the times k, k + runs, k + 2 runs ... (ascending), the
	 * runs written from the last to the first */
	for (unsigned k = runs; k-- > 0;)
		for (unsigned i = 0; i < PER_RUN; i++) {
			struct rt_event ev = {.kind = RT_EV_WR_POST, .tid = 77};
			uint64_t t = (uint64_t)i * runs + k;
			ev.ticks = (t + 1) * TICKS_PER_US;
			ev.u.wr.wr_id = t;
			CHECK_EQ_U(rt_trace_writer_events(&w, 4242, 0, 77, 0, &ev, 1), 0);
		}
	CHECK_EQ_U(rt_trace_writer_close(&w), 0);
	struct rt_trace_reader *r = rt_trace_reader_new();
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	for (int pass = 0; pass < 2; pass++) {
		struct rt_trace_record rec;
		uint64_t want = 0;
		unsigned bad = 0;
		while (rt_trace_reader_next(r, &rec) > 0)
			if (rec.ev.kind == RT_EV_WR_POST)
				bad += rec.ev.u.wr.wr_id != want++;
		CHECK_EQ_U(want, n);
		CHECK_EQ_U(bad, 0);
		rt_trace_reader_rewind(r);
	}
	rt_trace_reader_free(r);
}

static void test_out_of_order_runs(void)
{
	check_runs(1);
	check_runs(3);
	check_runs(64);
	check_runs(65);
	check_runs(200);
}

int main(void)
{
	RUN(test_crc32c);
	RUN(test_clean_and_time);
	RUN(test_wall_clock_slew);
	RUN(test_wall_clock_step);
	RUN(test_wall_clock_step_shared);
	RUN(test_corrupt_record);
	RUN(test_corrupt_chunk_header);
	RUN(test_truncated);
	RUN(test_garbage_inserted);
	RUN(test_wrong_version_and_magic);
	RUN(test_merge_two_files);
	RUN(test_out_of_order_runs);
	tmp_cleanup();
	return test_done();
}
