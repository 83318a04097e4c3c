/*
 * Timeline exports (include/rdmatrace/tl_export.h): Perfetto / Chrome
 * trace-event JSON and JSON Lines, both streamed row by row, and the
 * annotated pcapng through the annotation writer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmatrace/tl_export.h"
#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

void rt_tl_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static const char *flag_names[] = {"error", "retrans", "rnr", "nak", "control", "ack", "dup", "out_of_order",
				   "bad_icrc", "ecn", "cnp", "signaled", "recv", "has_wr", "finding", "request",
				   "response", "damaged", "engine"};

static const char *host_of(const struct rt_timeline *tl, unsigned h)
{
	const struct rt_tl_host *H = rt_tl_host(tl, h);
	return H ? rt_tl_str(tl, H->name) : "";
}

int rt_tl_export_jsonl(const struct rt_timeline *tl, FILE *out)
{
	char s[RT_TL_SUMMARY_MAX];
	for (size_t i = 0; i < tl->nrows; i++) {
		const struct rt_tl_row *r = &tl->rows[i];
		fprintf(out, "{\"row\":%zu,\"t_ns\":%" PRIu64 ",\"kind\":\"%s\",\"host\":", i, r->t_ns, rt_tl_kind_name(r->kind));
		rt_tl_json_string(out, host_of(tl, r->host));
		if (r->proc != UINT16_MAX && r->proc < tl->nprocs)
			fprintf(out, ",\"pid\":%d", tl->procs[r->proc].pid);
		if (r->qpn)
			fprintf(out, ",\"qpn\":%u", r->qpn);
		if (r->peer_qpn)
			fprintf(out, ",\"peer_qpn\":%u", r->peer_qpn);
		if (r->kind == RT_TLK_PACKET || r->kind == RT_EV_PACKET || r->psn)
			fprintf(out, ",\"psn\":%u", r->psn);
		if (r->frame)
			fprintf(out, ",\"frame\":%u", r->frame);
		if (r->kind == RT_EV_WR_POST || r->kind == RT_EV_COMPLETION || (r->flags & RT_TLF_HAS_WR))
			fprintf(out, ",\"wr_id\":%" PRIu64, r->wr_id);
		if (r->len)
			fprintf(out, ",\"len\":%u", r->len);
		fputs(",\"flags\":[", out);
		int first = 1;
		for (unsigned b = 0; b < sizeof(flag_names) / sizeof(flag_names[0]); b++)
			if (r->flags & (1u << b)) {
				fprintf(out, "%s\"%s\"", first ? "" : ",", flag_names[b]);
				first = 0;
			}
		fputs("],\"summary\":", out);
		rt_tl_format_summary(tl, i, s, sizeof(s));
		rt_tl_json_string(out, s);
		const struct rt_tl_link *l;
		size_t nl = rt_tl_links(tl, i, &l);
		if (nl) {
			fputs(",\"links\":[", out);
			for (size_t k = 0; k < nl; k++)
				fprintf(out, "%s{\"row\":%u,\"type\":\"%s\"}", k ? "," : "", l[k].row, rt_tl_link_type_name(l[k].type));
			fputc(']', out);
		}
		fputs("}\n", out);
		if (ferror(out))
			return -EIO;
	}
	return fflush(out) ? -errno : 0;
}

/* Perfetto: pid = host + 1, tid = QP index + 1 (0: host-wide events), times in us from the first row. */
static void ts_us(FILE *out, const struct rt_timeline *tl, uint64_t t)
{
	uint64_t d = t - rt_tl_first_ns(tl);
	fprintf(out, "%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
}

static unsigned row_pid(const struct rt_timeline *tl, const struct rt_tl_row *r)
{
	(void)tl;
	return (unsigned)r->host + 1; /* packets stay on the capture's process */
}

int rt_tl_export_perfetto(const struct rt_timeline *tl, FILE *out)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	int first = 1;
#define SEP() (first ? (first = 0, "") : ",\n")
	for (size_t h = 0; h < tl->nhosts; h++) {
		fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"tid\":0,\"args\":{\"name\":", SEP(), h + 1);
		const struct rt_tl_host *H = &tl->hosts[h];
		char nm[200];
		snprintf(nm, sizeof(nm), "%s%s", rt_tl_str(tl, H->name), (H->flags & RT_TLH_CAPTURE) ? " (wire)" : "");
		rt_tl_json_string(out, nm);
		fputs("}}", out);
	}
	unsigned findings_pid = (unsigned)tl->nhosts + 1;
	fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"findings\"}}", SEP(),
		findings_pid);
	/* QP tracks on every host process that has rows for them */
	for (size_t h = 0; h < tl->nhosts; h++)
		for (size_t q = 0; q < tl->nqps; q++) {
			const struct rt_tl_qp *Q = &tl->qps[q];
			if (Q->host != h && !(tl->hosts[h].flags & RT_TLH_CAPTURE))
				continue;
			char nm[96];
			int other = Q->host < tl->nhosts && Q->host != h;
			snprintf(nm, sizeof(nm), "QP 0x%06x%s%s", Q->qpn, other ? " @" : "",
				 other ? rt_tl_str(tl, tl->hosts[Q->host].name) : "");
			fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%zu,\"tid\":%zu,\"args\":{\"name\":", SEP(), h + 1,
				q + 1);
			rt_tl_json_string(out, nm);
			fputs("}}", out);
		}
	char s[RT_TL_SUMMARY_MAX];
	for (size_t i = 0; i < tl->nrows; i++) {
		const struct rt_tl_row *r = &tl->rows[i];
		unsigned tid = r->qp < tl->nqps ? r->qp + 1 : 0;
		rt_tl_format_summary(tl, i, s, sizeof(s));
		if (r->kind == RT_EV_WR_POST) {
			/* a slice from post to completion (or to the last related row) */
			const struct rt_tl_link *l;
			size_t nl = rt_tl_links(tl, i, &l);
			uint64_t end = r->t_ns;
			for (size_t k = 0; k < nl; k++) {
				const struct rt_tl_row *o = rt_tl_row(tl, l[k].row);
				if (o && (l[k].type == RT_TLL_COMPLETION || l[k].type == RT_TLL_ACK || l[k].type == RT_TLL_PACKET ||
					  l[k].type == RT_TLL_RETRANS || l[k].type == RT_TLL_CONSUMER) && o->t_ns > end)
					end = o->t_ns;
			}
			const struct rt_event *ev = rt_tl_event(tl, i);
			char nm[96];
			snprintf(nm, sizeof(nm), "%s wr_id %" PRIu64, (r->flags & RT_TLF_RECV) ? "RECV" : ev ? rt_wr_opcode_name(ev->u.wr.opcode) : "WR",
				 r->wr_id);
			fprintf(out, "%s{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":", SEP(), row_pid(tl, r), tid);
			ts_us(out, tl, r->t_ns);
			uint64_t d = end - r->t_ns;
			fprintf(out, ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"cat\":\"wr\",\"name\":", d / 1000, d % 1000);
			rt_tl_json_string(out, nm);
			fprintf(out, ",\"args\":{\"row\":%zu,\"summary\":", i);
			rt_tl_json_string(out, s);
			fputs("}}", out);
			continue;
		}
		unsigned pid = r->kind == RT_TLK_FINDING ? findings_pid : row_pid(tl, r);
		const char *cat = r->kind == RT_TLK_PACKET ? "packet" : r->kind == RT_TLK_CM_PACKET ? "cm" :
				  r->kind == RT_TLK_FINDING ? "finding" : r->kind == RT_EV_CM_EVENT ? "cm" : "event";
		char nm[96];
		if (r->kind == RT_TLK_PACKET) {
			const struct rt_opcode_info *op = rt_opcode_info(r->sub);
			snprintf(nm, sizeof(nm), "%s%s PSN 0x%06x", (r->flags & RT_TLF_RETRANS) ? "RETRANS " : "",
				 op ? op->name : "packet", r->psn);
		} else if (r->kind == RT_TLK_FINDING) {
			const struct rt_tl_finding *f = rt_tl_finding(tl, r->ref);
			snprintf(nm, sizeof(nm), "F%u %s", f ? f->id : 0, f ? rt_tl_finding_kind_name(f->kind) : "");
		} else {
			snprintf(nm, sizeof(nm), "%s", rt_tl_kind_name(r->kind));
		}
		fprintf(out, "%s{\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"ts\":", SEP(), pid,
			r->kind == RT_TLK_FINDING ? 0 : tid);
		ts_us(out, tl, r->t_ns);
		fprintf(out, ",\"cat\":\"%s\",\"name\":", cat);
		rt_tl_json_string(out, nm);
		fprintf(out, ",\"args\":{\"row\":%zu", i);
		if (r->frame)
			fprintf(out, ",\"frame\":%u", r->frame);
		fputs(",\"summary\":", out);
		rt_tl_json_string(out, s);
		fputs("}}", out);
		if (ferror(out))
			return -EIO;
	}
#undef SEP
	fputs("\n]}\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int rt_tl_export_pcapng(const struct rt_timeline *tl, const char *path, const char *jsonl_path, char *err,
			size_t errlen)
{
	const char *cap = rt_tl_capture_path(tl);
	if (!*cap) {
		snprintf(err, errlen, "the run has no capture to annotate");
		return -ENOENT;
	}
	return tl_write_annotated(tl, cap, path, jsonl_path, err, errlen);
}
