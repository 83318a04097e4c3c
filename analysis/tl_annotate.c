/*
 * Packet annotations (docs: /work/briefs/annotations.md contract, see
 * docs/timeline.md): one comment per RoCE packet, a machine-readable first
 * line "rdmatrace: key=value ..." and a plain-English second line, stored in
 * the timeline's string table and written to RUNDIR/annotated.pcapng (every
 * frame of the capture, frame numbers unchanged) and annotations.jsonl.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_printf(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(s->p + s->n, s->cap - s->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		s->n += (size_t)w < s->cap - s->n ? (size_t)w : s->cap - s->n - 1;
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

/* A value with spaces is quoted. */
static void kv_str(struct sbuf *s, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	if (!strpbrk(v, " \"\\")) {
		sb_printf(s, " %s=%s", k, v);
		return;
	}
	sb_printf(s, " %s=\"", k);
	for (const char *c = v; *c && s->n + 3 < s->cap; c++) {
		if (*c == '"' || *c == '\\')
			s->p[s->n++] = '\\';
		s->p[s->n++] = *c;
	}
	sb_printf(s, "\"");
}

int tl_annotate(struct tl_build *b)
{
	char buf[1024];
	struct sbuf s = {buf, 0, sizeof(buf)};
	size_t npk = tl_npk(b);
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		s.n = 0;
		buf[0] = 0;
		sb_printf(&s, "rdmatrace:");
		struct rt_tl_qp *sq = k->send_qp != RT_TL_NONE ? tl_qp(b, k->send_qp) : NULL;
		if (sq && sq->host != UINT16_MAX && sq->host < b->hosts.n)
			kv_str(&s, "host", (const char *)b->strs.p + tl_host(b, sq->host)->name);
		if (sq && sq->proc != UINT16_MAX && sq->proc < b->procs.n) {
			struct rt_tl_proc *p = TL_AT(&b->procs, struct rt_tl_proc, sq->proc);
			sb_printf(&s, " pid=%d", p->pid);
			kv_str(&s, "prog", (const char *)b->strs.p + p->program);
		}
		if (sq)
			sb_printf(&s, " qp=0x%06x", sq->qpn);
		if (!k->is_cm)
			sb_printf(&s, " peer_qp=0x%06x", k->dqpn);
		if (k->wr != RT_TL_NONE) {
			const struct rt_ev_wr *w = &tl_ev(b, k->wr)->ev.u.wr;
			sb_printf(&s, " wr_id=%" PRIu64 " wr_opcode=%s wr_len=%u", w->wr_id, rt_wr_opcode_name(w->opcode),
				  w->length);
			if (k->is_request && k->wr_pkt_count)
				sb_printf(&s, " pkt_index=%u pkt_count=%u", k->wr_pkt_index, k->wr_pkt_count);
		}
		if (k->is_request) {
			sb_printf(&s, " retrans=%u", k->retrans);
			if (k->retrans && k->retrans_cause)
				sb_printf(&s, " retrans_cause=%s", cause_key(k->retrans_cause));
			if (k->answer != RT_TL_NONE) {
				struct tl_pk *a = tl_pk(b, k->answer);
				sb_printf(&s, " ack_frame=%u", a->frame);
				if (a->raw_ns >= k->raw_ns)
					sb_printf(&s, " ack_latency_us=%.3f", (double)(a->raw_ns - k->raw_ns) / 1e3);
			}
		}
		if (k->op_class == RT_CLASS_ACK) {
			if (k->aeth_type == RT_AETH_ACK)
				sb_printf(&s, " ack=ack");
			else if (k->aeth_type == RT_AETH_RNR_NAK)
				sb_printf(&s, " ack=rnr_nak rnr_wait_ms=%.2f", rt_rnr_timer_us(k->aeth_value) / 1000.0);
			else if (k->aeth_type == RT_AETH_NAK)
				sb_printf(&s, " ack=nak nak_code=%s", nak_key(k->aeth_value));
		}
		sb_printf(&s, " icrc=%s", k->icrc == RT_ICRC_GOOD ? "good" : k->icrc == RT_ICRC_BAD ? "bad" : "unverified");
		if (k->findings[0]) {
			sb_printf(&s, " finding=F%u", k->findings[0]);
			if (k->findings[1])
				sb_printf(&s, ",F%u", k->findings[1]);
		}
		if (k->dup)
			sb_printf(&s, " dup=1");
		if (k->ooo)
			sb_printf(&s, " out_of_order=1");
		/* the English line */
		if (k->retrans) {
			sb_printf(&s, "\nretransmission #%u of PSN 0x%06x", k->retrans, k->psn);
			if (k->retrans_cause)
				sb_printf(&s, " (%s)", cause_words(k->retrans_cause));
		} else if (k->aeth_type == RT_AETH_RNR_NAK && k->op_class == RT_CLASS_ACK) {
			sb_printf(&s, "\nRNR NAK %.2f ms for PSN 0x%06x: the receiver had no receive WR posted",
				  rt_rnr_timer_us(k->aeth_value) / 1000.0, k->psn);
		} else if (k->aeth_type == RT_AETH_NAK && k->op_class == RT_CLASS_ACK) {
			sb_printf(&s, "\nNAK %s at PSN 0x%06x", rt_nak_code_name(k->aeth_value), k->psn);
		} else if (k->ooo) {
			sb_printf(&s, "\nPSN 0x%06x arrived after a gap: earlier packets were lost before the capture point",
				  k->psn);
		} else if (k->icrc == RT_ICRC_BAD) {
			sb_printf(&s, "\nICRC does not match: the receiver drops this packet");
		}
		struct tl_pktrec *pr = TL_AT(&b->pkrec, struct tl_pktrec, i);
		pr->annotation = tl_str(b, buf);
	}
	return 0;
}

/* JSON of the first line's key=value pairs. */
static void jsonl_line(FILE *f, uint32_t frame, const char *c)
{
	fprintf(f, "{\"frame\":%u", frame);
	const char *p = strchr(c, ':');
	p = p ? p + 1 : c;
	while (*p && *p != '\n') {
		while (*p == ' ')
			p++;
		const char *eq = strchr(p, '=');
		const char *nl = strchr(p, '\n');
		if (!eq || (nl && eq > nl))
			break;
		fprintf(f, ",\"%.*s\":", (int)(eq - p), p);
		p = eq + 1;
		if (*p == '"') {
			p++;
			fputc('"', f);
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				if (*p == '"' || *p == '\\')
					fputc('\\', f);
				fputc(*p++, f);
			}
			fputc('"', f);
			if (*p == '"')
				p++;
		} else {
			const char *e = p;
			while (*e && *e != ' ' && *e != '\n')
				e++;
			char *end;
			char tmp[64];
			size_t len = (size_t)(e - p) < sizeof(tmp) - 1 ? (size_t)(e - p) : sizeof(tmp) - 1;
			memcpy(tmp, p, len);
			tmp[len] = 0;
			strtod(tmp, &end);
			bool num = len && *end == 0 && strncmp(tmp, "0x", 2) && tmp[0] != '+';
			fprintf(f, num ? "%s" : "\"%s\"", tmp);
			p = e;
		}
	}
	const char *nl = strchr(c, '\n');
	if (nl) {
		fprintf(f, ",\"text\":\"");
		for (const char *q = nl + 1; *q; q++) {
			if (*q == '"' || *q == '\\')
				fputc('\\', f);
			fputc(*q == '\n' ? ' ' : *q, f);
		}
		fputc('"', f);
	}
	fputs("}\n", f);
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
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		const char *comment = NULL;
		while (pi < tl->npkts && tl->pkts[pi].frame < rec.frame)
			pi++;
		if (pi < tl->npkts && tl->pkts[pi].frame == rec.frame) {
			comment = rt_tl_str(tl, tl->pkts[pi].annotation);
			if (!*comment)
				comment = NULL;
		}
		if (w) {
			uint32_t ifc;
			if ((rc = rt_pcapng_interface_for(w, rec.linktype, &ifc)) < 0 ||
			    (rc = rt_pcapng_packet(w, ifc, rec.ts_ns, rec.data, rec.caplen, rec.wirelen, comment)) < 0)
				break;
		}
		if (j && comment)
			jsonl_line(j, (uint32_t)rec.frame, comment);
	}
	if (rc == -EBADMSG)
		rc = 0; /* the damage is already a note; everything before it is written */
	rt_capfile_close(f);
	if (j && fclose(j) && !rc) {
		rc = -EIO;
		snprintf(err, errlen, "cannot write %s", jsonl_out);
	}
	if (w) {
		int c = rt_pcapng_close(w, rc ? NULL : err, errlen);
		if (!rc)
			rc = c;
	} else if (rc < 0) {
		snprintf(err, errlen, "writing the annotated capture failed: %s", strerror(-rc));
	}
	return rc < 0 ? rc : 0;
}
