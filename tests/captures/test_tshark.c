/*
 * Conformance of the decoder with tshark (TShark 4.0, `-T fields`): for
 * every RoCE packet of the real SoftRoCE captures in ../shared/captures and
 * of a synthetic capture covering every opcode, header, AETH kind, pad,
 * IPv6, VLAN/QinQ and CM message, the BTH, extended-header, ICRC and CM
 * fields we decode must equal tshark's.  Skips when tshark is absent.
 * Also checks that tshark reads back the comments our pcapng writer puts in.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/roce_decode.h"
#include "synth.h"
#include "testlib.h"

/* Relative to the top of the tree: the main checkout sits beside shared/,
 * a worktree under wt/ one level further down. */
static const char *const shared_dirs[] = { "../shared/captures", "../../shared/captures" };

/* Payload heuristics that would claim (and sometimes mark malformed) our
 * synthetic payloads; the IB fields do not depend on them. */
#define TSHARK_QUIET                                                                        \
	"--disable-protocol rpcordma --disable-protocol infiniband.eoib "                  \
	"--disable-protocol smc --disable-protocol smb_direct --disable-protocol nvme-rdma "  \
	"--disable-protocol lnet --disable-protocol iser --disable-protocol infiniband_sdp "  \
	"--disable-protocol fcoib"

/* Fields compared; the flags say when a field is expected. */
enum { F_BTH = 1, F_EXT = 2 };
static const struct {
	const char *name;
	int when;
} fields[] = {
	{ "infiniband.bth.opcode", F_BTH },       /* 0 */
	{ "infiniband.bth.destqp", F_BTH },       /* 1 */
	{ "infiniband.bth.psn", F_BTH },          /* 2 */
	{ "infiniband.bth.a", F_BTH },            /* 3 */
	{ "infiniband.bth.se", F_BTH },           /* 4 */
	{ "infiniband.bth.m", F_BTH },            /* 5 */
	{ "infiniband.bth.padcnt", F_BTH },       /* 6 */
	{ "infiniband.bth.p_key", F_BTH },        /* 7 */
	{ "infiniband.aeth.syndrome", F_EXT },    /* 8 */
	{ "infiniband.aeth.msn", F_EXT },         /* 9 */
	{ "infiniband.reth.va", F_EXT },          /* 10 (also AtomicETH VA in tshark) */
	{ "infiniband.reth.r_key", F_EXT },       /* 11 (also AtomicETH R_Key) */
	{ "infiniband.reth.dmalen", F_EXT },      /* 12 */
	{ "infiniband.immdt", F_EXT },            /* 13 */
	{ "infiniband.ieth", F_EXT },             /* 14 */
	{ "infiniband.deth.q_key", F_EXT },       /* 15 */
	{ "infiniband.deth.srcqp", F_EXT },       /* 16 */
	{ "infiniband.atomiceth.swapdt", F_EXT }, /* 17 */
	{ "infiniband.atomiceth.cmpdt", F_EXT },  /* 18 */
	{ "infiniband.atomicacketh.origremdt", F_EXT }, /* 19 */
	{ "infiniband.mad.attributeid", F_EXT },  /* 20 */
	{ "infiniband.cm.req.localqpn", F_EXT },  /* 21 */
	{ "infiniband.cm.req.startpsn", F_EXT },  /* 22 */
	{ "infiniband.cm.rep.localqpn", F_EXT },  /* 23 */
	{ "infiniband.cm.rep.startpsn", F_EXT },  /* 24 */
	{ "infiniband.cm.req.serviceid", F_EXT }, /* 25 */
	{ "infiniband.cm.req.retrcount", F_EXT }, /* 26 */
	{ "infiniband.cm.req.rnrretrcount", F_EXT }, /* 27 */
	{ "infiniband.cm.rej.reason", F_EXT },    /* 28 */
	{ "infiniband.cm.req.remoteqpneecn", F_EXT }, /* 29: DREQ remote QPN */
	{ "infiniband.invariant.crc", F_EXT },    /* 30 */
	{ "infiniband.cm.req.prim_localacktout", F_EXT }, /* 31 */
	{ "infiniband.cm.rep.rnrretrcount", F_EXT }, /* 32 */
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct vals {
	bool has[NFIELDS];
	uint64_t v[NFIELDS];
};

static void put(struct vals *x, int i, uint64_t v)
{
	x->has[i] = true;
	x->v[i] = v;
}

/* What tshark should print, from our decode. */
static void ours(const struct rt_pkt *p, struct vals *x)
{
	memset(x, 0, sizeof(*x));
	put(x, 0, p->bth.opcode);
	put(x, 1, p->bth.dqpn);
	put(x, 2, p->bth.psn);
	put(x, 3, p->bth.ackreq);
	put(x, 4, p->bth.se);
	put(x, 5, p->bth.mig);
	put(x, 6, p->bth.pad);
	put(x, 7, p->bth.pkey);
	unsigned h = p->hdrs;
	if (h & RT_HDR_AETH) {
		put(x, 8, p->aeth.syndrome);
		put(x, 9, p->aeth.msn);
	}
	if (h & RT_HDR_RETH) {
		put(x, 10, p->reth.va);
		put(x, 11, p->reth.rkey);
		put(x, 12, p->reth.dmalen);
	}
	if (h & RT_HDR_ATOMICETH) {
		put(x, 10, p->atomic.va);
		put(x, 11, p->atomic.rkey);
		put(x, 17, p->atomic.swap_add);
		put(x, 18, p->atomic.compare);
	}
	if (h & RT_HDR_IMMDT)
		put(x, 13, p->immdt);
	if (h & RT_HDR_IETH)
		put(x, 14, p->ieth_rkey);
	if (h & RT_HDR_DETH) {
		put(x, 15, p->deth.qkey);
		put(x, 16, p->deth.src_qpn);
	}
	if (h & RT_HDR_ATOMICACKETH)
		put(x, 19, p->atomic_ack_orig);
	if (p->flags & RT_PKT_MAD)
		put(x, 20, p->flags & RT_PKT_CM ? p->cm.attr_id : 0);
	if (p->flags & RT_PKT_CM) {
		const struct rt_cm *cm = &p->cm;
		if (cm->attr_id == RT_CM_REQ) {
			put(x, 21, cm->local_qpn);
			put(x, 22, cm->starting_psn);
			put(x, 25, cm->service_id);
			put(x, 26, cm->retry_count);
			put(x, 27, cm->rnr_retry_count);
			put(x, 31, cm->prim_local_ack_timeout);
		}
		if (cm->attr_id == RT_CM_REP) {
			put(x, 23, cm->local_qpn);
			put(x, 24, cm->starting_psn);
			put(x, 32, cm->rnr_retry_count);
		}
		if (cm->attr_id == RT_CM_REJ)
			put(x, 28, cm->reason);
		if (cm->attr_id == RT_CM_DREQ)
			put(x, 29, cm->remote_qpn);
	}
	if (p->icrc_reason != RT_ICRC_WHY_TRUNCATED)
		put(x, 30, __builtin_bswap32(p->icrc_wire));
}

/* Opcodes tshark 4.0 does not know (or parses with RD headers we do not). */
static bool tshark_knows(uint8_t op)
{
	return rt_opcode_info(op) && op != RT_OP_RC_FLUSH && op != RT_OP_RC_ATOMIC_WRITE && op != RT_OP_CNP;
}

static int parse_tshark(const char *s, int field, uint64_t *v)
{
	if (!*s)
		return 0;
	if (!strcmp(s, "True"))
		return *v = 1, 1;
	if (!strcmp(s, "False"))
		return *v = 0, 1;
	char *end;
	/* byte fields (ImmDt, IETH) print bare hex */
	*v = strtoull(s, &end, field == 13 || field == 14 ? 16 : 0);
	return 1;
}

struct decoded {
	uint64_t frame;
	struct vals v;
	uint8_t opcode;
};

static int decode_file(const char *path, struct decoded **out, size_t *n)
{
	char err[256];
	struct rt_capfile *f;
	if (rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return -1;
	}
	size_t cap = 1024;
	*out = malloc(cap * sizeof(**out));
	*n = 0;
	struct rt_caprec rec;
	struct rt_pkt pkt;
	int rc;
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		if (rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &pkt) <= 0)
			continue;
		if (*n == cap)
			*out = realloc(*out, (cap *= 2) * sizeof(**out));
		(*out)[*n].frame = rec.frame;
		(*out)[*n].opcode = pkt.bth.opcode;
		ours(&pkt, &(*out)[*n].v);
		(*n)++;
	}
	rt_capfile_close(f);
	return rc < 0 ? -1 : 0;
}

static bool have_tshark(void)
{
	return system("tshark -v >/dev/null 2>&1") == 0;
}

/* Compare our decode of path with tshark's; returns the number of RoCE packets compared. */
static size_t compare_with_tshark(const char *path)
{
	struct decoded *d = NULL;
	size_t n = 0;
	CHECK(decode_file(path, &d, &n) == 0);
	char cmd[8192];
	int len = snprintf(cmd, sizeof(cmd),
			   "tshark -r '%s' " TSHARK_QUIET " -Y infiniband -T fields -E separator='|' "
			   "-E occurrence=f -e frame.number", path);
	for (size_t i = 0; i < NFIELDS; i++)
		len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " -e %s", fields[i].name);
	snprintf(cmd + len, sizeof(cmd) - (size_t)len, " 2>/dev/null");
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p) {
		free(d);
		return 0;
	}
	char line[8192];
	size_t i = 0, mismatches = 0, compared = 0;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		char *cols[NFIELDS + 1];
		size_t nc = 0;
		char *s = line;
		for (char *q = s;; q++) {
			if (*q == '|' || *q == 0) {
				int last = *q == 0;
				*q = 0;
				if (nc < NFIELDS + 1)
					cols[nc++] = s;
				s = q + 1;
				if (last)
					break;
			}
		}
		if (nc != NFIELDS + 1) {
			printf("# %s: tshark line with %zu columns\n", path, nc);
			mismatches++;
			continue;
		}
		uint64_t frame = strtoull(cols[0], NULL, 10);
		while (i < n && d[i].frame < frame) {
			printf("# %s frame %llu: we decode RoCE, tshark does not\n", path, (unsigned long long)d[i].frame);
			mismatches++;
			i++;
		}
		if (i >= n || d[i].frame != frame) {
			printf("# %s frame %llu: tshark decodes InfiniBand, we do not\n", path, (unsigned long long)frame);
			mismatches++;
			continue;
		}
		const struct decoded *x = &d[i++];
		compared++;
		for (size_t k = 0; k < NFIELDS; k++) {
			if (fields[k].when == F_EXT && !tshark_knows(x->opcode))
				continue;
			uint64_t tv = 0;
			int th = parse_tshark(cols[k + 1], (int)k, &tv);
			if (th != (int)x->v.has[k] || (th && tv != x->v.v[k])) {
				if (mismatches < 30)
					printf("# %s frame %llu %s: tshark '%s', ours %s%llu\n", path,
					       (unsigned long long)frame, fields[k].name, cols[k + 1],
					       x->v.has[k] ? "" : "(absent) ", (unsigned long long)x->v.v[k]);
				mismatches++;
			}
		}
	}
	while (i < n) {
		printf("# %s frame %llu: we decode RoCE, tshark does not\n", path, (unsigned long long)d[i].frame);
		mismatches++;
		i++;
	}
	CHECK(pclose(p) == 0);
	CHECK_EQ_U(mismatches, 0);
	CHECK_EQ_U(compared, n);
	printf("# %s: %zu RoCE packets compared field by field\n", path, compared);
	free(d);
	return compared;
}

static char tmpdir[256];

static void emit_pcap(void *ctx, const uint8_t *frame, size_t len)
{
	static uint64_t ts = 1700000000000000000ull;
	synth_pcap_add(ctx, ts += 1234, frame, (uint32_t)len, (uint32_t)len);
}

static void test_real_captures(void)
{
	if (!have_tshark())
		SKIP("tshark not installed");
	DIR *dir = NULL;
	const char *shared = NULL;
	for (size_t i = 0; !dir && i < sizeof(shared_dirs) / sizeof(shared_dirs[0]); i++)
		if ((dir = opendir(shared_dirs[i])))
			shared = shared_dirs[i];
	if (!dir)
		SKIP("../shared/captures not present");
	struct dirent *e;
	size_t total = 0;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s/wire.pcap", shared, e->d_name);
		if (access(path, R_OK) == 0)
			total += compare_with_tshark(path);
	}
	closedir(dir);
	CHECK(total > 0);
}

static void test_synthetic_capture(void)
{
	if (!have_tshark())
		SKIP("tshark not installed");
	char path[512];
	snprintf(path, sizeof(path), "%s/synth.pcap", tmpdir);
	FILE *f = synth_pcap_open(path, 1);
	CHECK(f != NULL);
	if (!f)
		return;
	unsigned n = synth_all(emit_pcap, f);
	fclose(f);
	printf("# synthetic capture: %u packets\n", n);
	CHECK_EQ_U(compare_with_tshark(path), n);
}

struct copy_ctx {
	struct rt_pcapng_writer *w;
	uint32_t ifc;
	unsigned n;
};

static void emit_pcapng(void *arg, const uint8_t *frame, size_t len)
{
	struct copy_ctx *c = arg;
	char comment[64];
	snprintf(comment, sizeof(comment), "synthetic packet %u", ++c->n);
	CHECK(rt_pcapng_packet(c->w, c->ifc, 1700000000000000000ull + c->n, frame, (uint32_t)len, (uint32_t)len,
			       c->n % 2 ? comment : NULL) == 0);
}

/* Our pcapng: tshark decodes it the same way and reads the comments back. */
static void test_pcapng_writer_with_tshark(void)
{
	if (!have_tshark())
		SKIP("tshark not installed");
	char path[512], err[256];
	snprintf(path, sizeof(path), "%s/synth.pcapng", tmpdir);
	struct copy_ctx c = { NULL, 0, 0 };
	struct rt_pcapng_opts o = { "rdmatrace synthetic capture", NULL, NULL, NULL };
	CHECK(rt_pcapng_open(path, &o, &c.w, err, sizeof(err)) == 0);
	if (!c.w)
		return;
	CHECK(rt_pcapng_interface(c.w, 1, 262144, "synth0", &c.ifc) == 0);
	unsigned n = synth_all(emit_pcapng, &c);
	CHECK(rt_pcapng_close(c.w, err, sizeof(err)) == 0);
	CHECK_EQ_U(compare_with_tshark(path), n);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "tshark -r '%s' -T fields -e frame.number -e frame.comment 2>/dev/null | "
		 "awk -F'\\t' '$1 %% 2 == 1 && $2 == (\"synthetic packet \" $1) {ok++} "
		 "$1 %% 2 == 0 && $2 == \"\" {ok++} END {print ok}'", path);
	FILE *p = popen(cmd, "r");
	unsigned ok = 0;
	CHECK(p && fscanf(p, "%u", &ok) == 1);
	if (p)
		pclose(p);
	CHECK_EQ_U(ok, n);
	snprintf(cmd, sizeof(cmd), "capinfos -k '%s' 2>/dev/null | grep -q 'rdmatrace synthetic capture'", path);
	CHECK(system(cmd) == 0);
}

/* An annotated copy of a real capture: every packet copied with a comment
 * naming its PSN; tshark shows the same frames with those comments. */
static void test_annotated_copy(void)
{
	if (!have_tshark())
		SKIP("tshark not installed");
	DIR *dir = NULL;
	const char *shared = NULL;
	for (size_t i = 0; !dir && i < sizeof(shared_dirs) / sizeof(shared_dirs[0]); i++)
		if ((dir = opendir(shared_dirs[i])))
			shared = shared_dirs[i];
	if (!dir)
		SKIP("../shared/captures not present");
	closedir(dir);
	char in[512], out[512], err[256];
	snprintf(in, sizeof(in), "%s/rxe-write/wire.pcap", shared);
	snprintf(out, sizeof(out), "%s/annotated.pcapng", tmpdir);
	struct rt_capfile *f;
	if (rt_capfile_open(in, RT_CAPFILE_AUTO, &f, err, sizeof(err)) < 0)
		SKIP("rxe-write capture not present");
	struct rt_pcapng_writer *w;
	struct rt_pcapng_opts o = { "annotated copy of rxe-write", NULL, NULL, NULL };
	CHECK(rt_pcapng_open(out, &o, &w, err, sizeof(err)) == 0);
	struct rt_caprec rec;
	unsigned n = 0, annotated = 0;
	while (w && rt_capfile_next(f, &rec) > 0) {
		struct rt_pkt p;
		char c[64];
		const char *comment = NULL;
		if (rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &p) == 1) {
			snprintf(c, sizeof(c), "psn %u", p.bth.psn);
			comment = c;
			annotated++;
		}
		CHECK(rt_pcapng_copy(w, &rec, comment) == 0);
		n++;
	}
	rt_capfile_close(f);
	CHECK(rt_pcapng_close(w, err, sizeof(err)) == 0);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "tshark -r '%s' " TSHARK_QUIET " -T fields -e frame.comment -e infiniband.bth.psn 2>/dev/null | "
		 "awk -F'\t' '$2 != \"\" && $1 == (\"psn \" $2) {ok++} $2 == \"\" && $1 == \"\" {other++} "
		 "END {print ok + 0, other + 0}'", out);
	FILE *p = popen(cmd, "r");
	unsigned ok = 0, other = 0;
	CHECK(p && fscanf(p, "%u %u", &ok, &other) == 2);
	if (p)
		pclose(p);
	printf("# %u frames copied, %u annotated; tshark: %u comments match, %u plain frames\n", n, annotated, ok, other);
	CHECK_EQ_U(ok, annotated);
	CHECK_EQ_U(ok + other, n);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rt-tshark-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_real_captures);
	RUN(test_synthetic_capture);
	RUN(test_pcapng_writer_with_tshark);
	RUN(test_annotated_copy);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return test_done();
}
