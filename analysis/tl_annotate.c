/*
 * Packet annotations (the contract in docs/timeline.md, shared with the
 * Wireshark plugin): one comment per RoCE packet whose first line is
 * "rdmatrace: key=value ..." and whose second line is plain English.  The
 * build only records the facts per packet (struct tl_pktrec); the text is
 * made when it is needed (the annotated pcapng, the annotations.jsonl
 * sidecar, the viewer), from one list of key/value pairs so the comment and
 * the JSON always agree.  No printf on the per-packet path: a capture of a
 * million packets is annotated in well under a second.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/capture_copies.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

/* ---- the facts, at build time ---- */

void tl_annotate_packet(struct tl_build *b, size_t i)
{
	struct tl_pk *k = tl_pk(b, i);
	struct tl_pktrec *pr = TL_AT(&b->pkrec, struct tl_pktrec, i);
	pr->retrans = k->retrans;
	pr->retrans_cause = k->retrans_cause;
	pr->send_qp = k->send_qp;
	pr->wr = k->wr;
	pr->psn = k->psn;
	pr->dqpn = k->dqpn;
	pr->wr_pkt_index = k->wr_pkt_index;
	pr->wr_pkt_count = k->wr_pkt_count;
	pr->op_class = k->op_class;
	pr->aeth_type = k->aeth_type;
	pr->aeth_value = k->aeth_value;
	pr->findings[0] = k->findings[0];
	pr->findings[1] = k->findings[1];
	pr->bits = (uint8_t)((k->is_request ? TL_PKB_REQUEST : 0) | (k->dup ? TL_PKB_DUP : 0) |
			     (k->ooo || k->late ? TL_PKB_OOO : 0) | (k->is_cm ? TL_PKB_CM : 0) |
			     (k->op_class == RT_CLASS_ACK ? TL_PKB_AETH : 0) | (k->late ? TL_PKB_LATE : 0) |
			     (k->wire_copy ? TL_PKB_COPY : 0) | (k->late && tl_engine_held(b, k) ? TL_PKB_HELD : 0));
	if (k->is_request && k->answer != RT_TL_NONE) {
		struct tl_pk *a = tl_pk(b, k->answer);
		pr->answer_frame = a->frame;
		uint64_t d = a->raw_ns >= k->raw_ns ? a->raw_ns - k->raw_ns : 0;
		pr->ack_latency_ns = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	}
}

/* ---- text without printf ---- */

struct ab {
	char *p;
	size_t n, cap;
};

static void ab_str(struct ab *a, const char *s)
{
	while (*s && a->n + 1 < a->cap)
		a->p[a->n++] = *s++;
	a->p[a->n] = 0;
}

static void ab_u64(struct ab *a, uint64_t v)
{
	char t[24];
	int i = 0;
	do {
		t[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i && a->n + 1 < a->cap)
		a->p[a->n++] = t[--i];
	a->p[a->n] = 0;
}

static void ab_hex6(struct ab *a, uint32_t v)
{
	static const char hx[] = "0123456789abcdef";
	ab_str(a, "0x");
	for (int s = 20; s >= 0; s -= 4)
		if (a->n + 1 < a->cap)
			a->p[a->n++] = hx[(v >> s) & 15];
	a->p[a->n] = 0;
}

/* v / 10^dec with dec decimals */
static void ab_fixed(struct ab *a, uint64_t v, unsigned dec)
{
	uint64_t p = 1;
	for (unsigned i = 0; i < dec; i++)
		p *= 10;
	ab_u64(a, v / p);
	ab_str(a, ".");
	uint64_t f = v % p;
	for (uint64_t q = p / 10; q; q /= 10) {
		char c[2] = {(char)('0' + (f / q) % 10), 0};
		ab_str(a, c);
	}
}

/* The key/value list of one packet. */
#define ANN_MAX 24
struct ann {
	const char *key[ANN_MAX];
	char val[ANN_MAX][80];
	uint8_t num[ANN_MAX];     /* a JSON number */
	unsigned n;
	char text[200];
};

static struct ab ann_add(struct ann *an, const char *key, int num)
{
	struct ab a = {an->val[an->n < ANN_MAX ? an->n : ANN_MAX - 1], 0, 80};
	if (an->n < ANN_MAX) {
		an->key[an->n] = key;
		an->num[an->n] = (uint8_t)num;
		an->n++;
	}
	a.p[0] = 0;
	return a;
}

static const char *nak_key(unsigned code)
{
	static const char *const n[] = {"psn_seq_error", "invalid_request", "remote_access_error",
					"remote_op_error", "invalid_rd_request"};
	return code < 5 ? n[code] : "unknown";
}

static const char *cause_key(unsigned c)
{
	static const char *const n[] = {"", "nak_seq", "ack_timeout", "implied_nak", "rnr"};
	return c < 5 ? n[c] : "";
}

static const char *cause_words(unsigned c)
{
	static const char *const n[] = {"", "Go-Back-N after NAK PSN sequence error", "after local ACK timeout",
					"after an implied NAK", "after RNR wait"};
	return c < 5 ? n[c] : "";
}

static void ann_build(const struct rt_timeline *tl, const struct tl_pktrec *p, struct ann *an)
{
	an->n = 0;
	an->text[0] = 0;
	struct ab a;
	const struct rt_tl_qp *sq = p->send_qp < tl->nqps ? &tl->qps[p->send_qp] : NULL;
	if (sq && sq->host < tl->nhosts) {
		a = ann_add(an, "host", 0);
		ab_str(&a, rt_tl_str(tl, tl->hosts[sq->host].name));
	}
	if (sq && sq->proc < tl->nprocs) {
		const struct rt_tl_proc *pr = &tl->procs[sq->proc];
		a = ann_add(an, "pid", 1);
		ab_u64(&a, (uint64_t)(uint32_t)pr->pid);
		a = ann_add(an, "prog", 0);
		ab_str(&a, rt_tl_str(tl, pr->program));
	}
	if (sq) {
		a = ann_add(an, "qp", 0);
		ab_hex6(&a, sq->qpn);
	}
	if (!(p->bits & TL_PKB_CM)) {
		a = ann_add(an, "peer_qp", 0);
		ab_hex6(&a, p->dqpn);
	}
	const struct rt_event *w = p->wr < tl->nrows ? rt_tl_event(tl, p->wr) : NULL;
	if (w && w->kind == RT_EV_WR_POST) {
		a = ann_add(an, "wr_id", 1);
		ab_u64(&a, w->u.wr.wr_id);
		a = ann_add(an, "wr_opcode", 0);
		ab_str(&a, rt_wr_opcode_name(w->u.wr.opcode));
		a = ann_add(an, "wr_len", 1);
		ab_u64(&a, w->u.wr.length);
		if ((p->bits & TL_PKB_REQUEST) && p->wr_pkt_count) {
			a = ann_add(an, "pkt_index", 1);
			ab_u64(&a, p->wr_pkt_index);
			a = ann_add(an, "pkt_count", 1);
			ab_u64(&a, p->wr_pkt_count);
		}
	}
	if (p->bits & TL_PKB_REQUEST) {
		a = ann_add(an, "retrans", 1);
		ab_u64(&a, p->retrans);
		if (p->retrans && p->retrans_cause) {
			a = ann_add(an, "retrans_cause", 0);
			ab_str(&a, cause_key(p->retrans_cause));
		}
		if (p->answer_frame) {
			a = ann_add(an, "ack_frame", 1);
			ab_u64(&a, p->answer_frame);
			a = ann_add(an, "ack_latency_us", 1);
			ab_fixed(&a, p->ack_latency_ns, 3);
		}
	}
	if (p->bits & TL_PKB_AETH) {
		a = ann_add(an, "ack", 0);
		if (p->aeth_type == RT_AETH_ACK) {
			ab_str(&a, "ack");
		} else if (p->aeth_type == RT_AETH_RNR_NAK) {
			ab_str(&a, "rnr_nak");
			a = ann_add(an, "rnr_wait_ms", 1);
			ab_fixed(&a, rt_rnr_timer_us(p->aeth_value) / 10, 2);
		} else {
			ab_str(&a, "nak");
			a = ann_add(an, "nak_code", 0);
			ab_str(&a, nak_key(p->aeth_value));
		}
	}
	a = ann_add(an, "icrc", 0);
	ab_str(&a, p->icrc == RT_ICRC_GOOD ? "good" : p->icrc == RT_ICRC_BAD ? "bad" : "unverified");
	if (p->findings[0]) {
		a = ann_add(an, "finding", 0);
		ab_str(&a, "F");
		ab_u64(&a, p->findings[0]);
		if (p->findings[1]) {
			ab_str(&a, ",F");
			ab_u64(&a, p->findings[1]);
		}
	}
	if (p->bits & TL_PKB_DUP) {
		a = ann_add(an, "dup", 1);
		ab_str(&a, "1");
	}
	if (p->bits & TL_PKB_OOO) {
		a = ann_add(an, "out_of_order", 1);
		ab_str(&a, "1");
	}
	struct ab t = {an->text, 0, sizeof(an->text)};
	if (p->retrans) {
		ab_str(&t, "retransmission #");
		ab_u64(&t, p->retrans);
		ab_str(&t, " of PSN ");
		ab_hex6(&t, p->psn);
		if (p->retrans_cause) {
			ab_str(&t, " (");
			ab_str(&t, cause_words(p->retrans_cause));
			ab_str(&t, ")");
		}
		if (p->bits & TL_PKB_LATE)
			ab_str(&t, p->bits & TL_PKB_HELD ? ", held back by the sender's engine (injected delay or reordering): it came "
							   "after later PSNs"
							 : ", held back on the way: it came after later PSNs");
	} else if ((p->bits & TL_PKB_LATE) && !(p->bits & TL_PKB_COPY)) {
		/* the original, late (tl_link.c stray_request) */
		ab_str(&t, "PSN ");
		ab_hex6(&t, p->psn);
		ab_str(&t, p->bits & TL_PKB_HELD ? " held back by the sender's engine (injected delay or reordering): it came after later PSNs"
						 : " held back on the way (reordered): it came after later PSNs");
		if (p->bits & TL_PKB_DUP)
			ab_str(&t, " and after its resend, and the receiver discards it as a duplicate");
	} else if ((p->bits & TL_PKB_DUP) && !(p->bits & TL_PKB_REQUEST)) {
		/* a response nothing asked for again (tl_detect.c response_copies) */
		ab_str(&t, "copy of the response for PSN ");
		ab_hex6(&t, p->psn);
		ab_str(&t, " made on the way: the requester drops it as a duplicate");
	} else if (p->bits & TL_PKB_DUP) {
		/* a duplicate that is no retransmission: a copy made on the way (tl_link.c wire_copy) */
		ab_str(&t, "copy of PSN ");
		ab_hex6(&t, p->psn);
		if (tl_class_rd_atomic(p->op_class))
			ab_str(&t, " made on the way, not a retransmission: the responder may answer it again, and the "
				   "requester discards that answer");
		else
			ab_str(&t, " made on the way, not a retransmission: the receiver discards it as a duplicate");
	} else if ((p->bits & TL_PKB_AETH) && p->aeth_type == RT_AETH_RNR_NAK) {
		ab_str(&t, "RNR NAK ");
		ab_fixed(&t, rt_rnr_timer_us(p->aeth_value) / 10, 2);
		ab_str(&t, " ms for PSN ");
		ab_hex6(&t, p->psn);
		ab_str(&t, ": the receiver had no receive WR posted");
	} else if ((p->bits & TL_PKB_AETH) && p->aeth_type == RT_AETH_NAK) {
		ab_str(&t, "NAK ");
		ab_str(&t, rt_nak_code_name(p->aeth_value));
		ab_str(&t, " at PSN ");
		ab_hex6(&t, p->psn);
	} else if (p->bits & TL_PKB_OOO) {
		ab_str(&t, "PSN ");
		ab_hex6(&t, p->psn);
		ab_str(&t, " after a gap: earlier packets were lost before the capture point");
	} else if (p->icrc == RT_ICRC_BAD) {
		ab_str(&t, "ICRC does not match: the receiver drops this packet");
	}
}

/* A value with spaces or quotes is quoted with \" and \\ escapes. */
static void ab_value(struct ab *a, const char *v)
{
	if (!strpbrk(v, " \"\\")) {
		ab_str(a, v);
		return;
	}
	ab_str(a, "\"");
	for (const char *c = v; *c; c++) {
		char e[3] = {'\\', *c, 0};
		ab_str(a, (*c == '"' || *c == '\\') ? e : e + 1);
	}
	ab_str(a, "\"");
}

static void ab_json_string(struct ab *a, const char *v)
{
	ab_str(a, "\"");
	for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
		if (*c == '"' || *c == '\\') {
			char e[3] = {'\\', (char)*c, 0};
			ab_str(a, e);
		} else if (*c < 0x20) {
			ab_str(a, " ");
		} else {
			char e[2] = {(char)*c, 0};
			ab_str(a, e);
		}
	}
	ab_str(a, "\"");
}

size_t tl_format_annotation(const struct rt_timeline *tl, size_t i, char *buf, size_t len)
{
	if (i >= tl->npkts || !len)
		return 0;
	struct ann an;
	ann_build(tl, &tl->pkts[i], &an);
	struct ab a = {buf, 0, len};
	buf[0] = 0;
	ab_str(&a, "rdmatrace:");
	for (unsigned k = 0; k < an.n; k++) {
		ab_str(&a, " ");
		ab_str(&a, an.key[k]);
		ab_str(&a, "=");
		ab_value(&a, an.val[k]);
	}
	if (an.text[0]) {
		ab_str(&a, "\n");
		ab_str(&a, an.text);
	}
	return a.n;
}

static size_t format_json(const struct rt_timeline *tl, size_t i, char *buf, size_t len)
{
	struct ann an;
	ann_build(tl, &tl->pkts[i], &an);
	struct ab a = {buf, 0, len};
	buf[0] = 0;
	ab_str(&a, "{\"frame\":");
	ab_u64(&a, tl->pkts[i].frame);
	for (unsigned k = 0; k < an.n; k++) {
		ab_str(&a, ",\"");
		ab_str(&a, an.key[k]);
		ab_str(&a, "\":");
		if (an.num[k])
			ab_str(&a, an.val[k]);
		else
			ab_json_string(&a, an.val[k]);
	}
	if (an.text[0]) {
		ab_str(&a, ",\"text\":");
		ab_json_string(&a, an.text);
	}
	ab_str(&a, "}\n");
	return a.n;
}

/* Whether the record is a RoCE frame the build left out as a copy of frame
 * *orig captured on another interface: 1 yes, 0 no, -ENOMEM. */
static int copy_of(struct rt_capcopies **copies, const struct rt_capfile *f, const struct rt_caprec *rec,
		   uint64_t *orig)
{
	unsigned nif = rt_capfile_interfaces(f);
	if (!*copies && !rt_capcopies_possible(nif, rec->linktype))
		return 0;
	struct rt_pkt p;
	if (rt_decode(NULL, rec->linktype, rec->data, rec->caplen, rec->wirelen, &p) != 1)
		return 0;
	return rt_capcopies_frame(copies, nif, rec, &p, orig);
}

int tl_write_annotated(const struct rt_timeline *tl, const char *capture, const char *pcapng_out,
		       const char *jsonl_out, char *err, size_t errlen)
{
	if (!capture || !*capture)
		return 0;
	struct rt_capfile *f;
	int rc = rt_capfile_open(capture, RT_CAPFILE_AUTO, &f, err, errlen);
	if (rc < 0)
		return rc;
	struct rt_pcapng_writer *w = NULL;
	FILE *j = NULL;
	if (pcapng_out &&
	    (rc = rt_pcapng_open(pcapng_out, &(struct rt_pcapng_opts){.comment = "annotated by rdmatrace correlate"},
				 &w, err, errlen)) < 0) {
		rt_capfile_close(f);
		return rc;
	}
	if (jsonl_out && !(j = fopen(jsonl_out, "w"))) {
		rc = -errno;
		snprintf(err, errlen, "cannot create %s: %s", jsonl_out, strerror(errno));
		rt_capfile_close(f);
		if (w)
			rt_pcapng_close(w, NULL, 0);
		return rc;
	}
	struct rt_caprec rec;
	size_t pi = 0;
	char comment[1024], json[2048];
	struct rt_capcopies *copies = NULL; /* as the build found them (tl_build.c) */
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		const char *c = NULL;
		while (pi < tl->npkts && tl->pkts[pi].frame < rec.frame)
			pi++;
		uint64_t orig;
		if ((rc = copy_of(&copies, f, &rec, &orig)) < 0)
			break;
		if (rc == 1) {
			c = comment;
			snprintf(comment, sizeof(comment),
				 "rdmatrace: copy_of=%" PRIu64 "\ncopy of frame %" PRIu64
				 ": the same packet captured on another interface, taken once",
				 orig, orig);
			if (j && fprintf(j, "{\"frame\":%" PRIu64 ",\"copy_of\":%" PRIu64 "}\n", rec.frame, orig) < 0) {
				rc = -EIO;
				break;
			}
		} else if (pi < tl->npkts && tl->pkts[pi].frame == rec.frame) {
			if (tl_format_annotation(tl, pi, comment, sizeof(comment)))
				c = comment;
			if (j) {
				size_t n = format_json(tl, pi, json, sizeof(json));
				if (fwrite(json, 1, n, j) != n) {
					rc = -EIO;
					break;
				}
			}
		}
		if (w) {
			uint32_t ifc;
			if ((rc = rt_pcapng_interface_for(w, rec.linktype, &ifc)) < 0 ||
			    (rc = rt_pcapng_packet(w, ifc, rec.ts_ns, rec.data, rec.caplen, rec.wirelen, c)) < 0)
				break;
		}
	}
	if (rc == -EBADMSG)
		rc = 0; /* the damage is already a note; everything before it is written */
	rt_capfile_close(f);
	rt_capcopies_free(copies);
	if (j && fclose(j) && !rc)
		rc = -EIO;
	if (rc < 0)
		snprintf(err, errlen, "writing the annotated capture failed: %s", strerror(-rc));
	if (w) {
		int c = rt_pcapng_close(w, rc ? NULL : err, rc ? 0 : errlen);
		if (!rc)
			rc = c;
	}
	return rc < 0 ? rc : 0;
}
