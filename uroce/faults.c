/*
 * Fault injection: rules from $UROCE_FAULTS (";"-separated) or the file
 * named by $UROCE_FAULTS_FILE (one rule a line, "#" comments), e.g.
 *
 *     drop:prob=0.01            drop 1% of transmitted packets
 *     drop:dir=rx,op=ack,nth=3  drop the third ACK received
 *     drop:op=read,resend=1,nth=2  drop the second READ request resent
 *     dup:psn=5                 send PSN 5 twice
 *     delay:us=2000,op=send     hold SEND packets back 2 ms
 *     reorder:every=10          send every 10th packet after the next one
 *     rnr:count=2               answer the first 2 requests needing a receive with RNR NAK
 *     corrupt:op=write,nth=5    send the fifth WRITE packet with a wrong ICRC
 *     ecn:every=20              mark every 20th ECN-capable packet Congestion Experienced
 *
 * Random choices come from a xorshift generator seeded with $UROCE_SEED
 * (default 1), so a run is repeatable.  docs/uroce.md documents the syntax.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uroce.h"

enum { DIR_TX = 1, DIR_RX = 2 };

struct uroce_fault_rule {
	enum uroce_fault_action action;
	unsigned dir;
	int op;             /* opcode, -1 any */
	int op_class;       /* rt_op_class, 0 any */
	int64_t qpn, psn;   /* -1 any */
	int resend;         /* 1 retransmissions only, 0 first transmissions only, -1 any (tx) */
	uint64_t nth, every, count, after;
	double prob;
	uint32_t us;
	uint64_t seen, fired;
};

static const struct {
	const char *name;
	int cls;
} op_classes[] = {
	{ "send", RT_CLASS_SEND }, { "write", RT_CLASS_WRITE }, { "read", RT_CLASS_READ_REQ },
	{ "read_resp", RT_CLASS_READ_RESP }, { "ack", RT_CLASS_ACK }, { "atomic", RT_CLASS_ATOMIC },
	{ "atomic_ack", RT_CLASS_ATOMIC_ACK },
};

static int parse_op(struct uroce_fault_rule *r, const char *v)
{
	for (size_t i = 0; i < sizeof(op_classes) / sizeof(op_classes[0]); i++)
		if (!strcasecmp(v, op_classes[i].name)) {
			r->op_class = op_classes[i].cls;
			return 0;
		}
	for (int op = 0; op < 256; op++) {
		const struct rt_opcode_info *oi = rt_opcode_info((uint8_t)op);
		if (oi && oi->symbol && !strcasecmp(v, oi->symbol)) {
			r->op = op;
			return 0;
		}
	}
	char *end;
	long n = strtol(v, &end, 0);
	if (*v && !*end && n >= 0 && n < 256) {
		r->op = (int)n;
		return 0;
	}
	return -EINVAL;
}

static int parse_rule(struct uroce_fault_rule *r, char *s, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->op = -1;
	r->qpn = r->psn = -1;
	r->resend = -1;
	char *colon = strchr(s, ':');
	if (colon)
		*colon = 0;
	static const char *const names[] = { "", "drop", "dup", "delay", "reorder", "rnr", "corrupt", "ecn" };
	for (int i = 1; i <= UROCE_FA_ECN; i++)
		if (!strcasecmp(s, names[i]))
			r->action = (enum uroce_fault_action)i;
	if (!r->action) {
		snprintf(err, errlen, "unknown action '%s' (drop, dup, delay, reorder, rnr, corrupt, ecn)", s);
		return -EINVAL;
	}
	r->dir = DIR_TX;
	r->us = 1000;
	char *save = NULL;
	for (char *kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq) {
			snprintf(err, errlen, "'%s': expected key=value", kv);
			return -EINVAL;
		}
		*eq = 0;
		const char *k = kv, *v = eq + 1;
		char *end = NULL;
		unsigned long long n = strtoull(v, &end, 0);
		bool num_ok = *v && end && !*end;
		if (!strcmp(k, "dir")) {
			if (!strcmp(v, "tx"))
				r->dir = DIR_TX;
			else if (!strcmp(v, "rx"))
				r->dir = DIR_RX;
			else if (!strcmp(v, "any"))
				r->dir = DIR_TX | DIR_RX;
			else
				goto bad;
		} else if (!strcmp(k, "op")) {
			if (parse_op(r, v) < 0)
				goto bad;
		} else if (!strcmp(k, "prob")) {
			r->prob = strtod(v, &end);
			if (!*v || *end || r->prob < 0 || r->prob > 1)
				goto bad;
		} else if (!num_ok) {
			goto bad;
		} else if (!strcmp(k, "qp")) {
			r->qpn = (int64_t)n;
		} else if (!strcmp(k, "resend")) {
			if (n > 1)
				goto bad;
			r->resend = (int)n;
		} else if (!strcmp(k, "psn")) {
			r->psn = (int64_t)(n & RT_PSN_MASK);
		} else if (!strcmp(k, "nth")) {
			r->nth = n;
		} else if (!strcmp(k, "every")) {
			r->every = n;
		} else if (!strcmp(k, "count")) {
			r->count = n;
		} else if (!strcmp(k, "after")) {
			r->after = n;
		} else if (!strcmp(k, "us")) {
			r->us = (uint32_t)n;
		} else {
			snprintf(err, errlen, "unknown key '%s' (dir, op, qp, psn, resend, nth, every, count, after, prob, us)", k);
			return -EINVAL;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%s' for '%s'", v, k);
		return -EINVAL;
	}
	if (r->resend >= 0 && r->dir == DIR_RX) {
		snprintf(err, errlen, "'resend' matches transmitted packets only (a received one does not say "
			 "whether it is a resend): not with dir=rx");
		return -EINVAL;
	}
	return 0;
}

static int add_rules(struct uroce_ctx *ctx, const char *text, const char *seps, char *err, size_t errlen)
{
	char *copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	char *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		char *hash = strchr(tok, '#');
		if (hash)
			*hash = 0;
		size_t len = strlen(tok);
		while (len && (tok[len - 1] == ' ' || tok[len - 1] == '\t' || tok[len - 1] == '\r'))
			tok[--len] = 0;
		if (!len)
			continue;
		struct uroce_fault_rule *n = realloc(ctx->faults, (ctx->nfaults + 1) * sizeof(*n));
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		ctx->faults = n;
		rc = parse_rule(&ctx->faults[ctx->nfaults], tok, err, errlen);
		if (rc < 0)
			break;
		ctx->nfaults++;
	}
	free(copy);
	return rc;
}

int uroce_faults_load(struct uroce_ctx *ctx, char *err, size_t errlen)
{
	const char *seed = getenv("UROCE_SEED");
	ctx->rng = seed && *seed ? strtoull(seed, NULL, 0) : 1;
	ctx->rng = ctx->rng * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
	if (!ctx->rng)
		ctx->rng = 1;
	const char *env = getenv("UROCE_FAULTS");
	int rc = 0;
	if (env && *env)
		rc = add_rules(ctx, env, ";\n", err, errlen);
	const char *file = getenv("UROCE_FAULTS_FILE");
	if (!rc && file && *file) {
		FILE *f = fopen(file, "r");
		if (!f) {
			snprintf(err, errlen, "cannot open %s: %s", file, strerror(errno));
			return -errno;
		}
		char buf[8192];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		rc = add_rules(ctx, buf, "\n;", err, errlen);
	}
	if (rc < 0)
		uroce_faults_free(ctx);
	return rc;
}

void uroce_faults_free(struct uroce_ctx *ctx)
{
	free(ctx->faults);
	ctx->faults = NULL;
	ctx->nfaults = 0;
}

static double rnd(struct uroce_ctx *ctx)
{
	uint64_t x = ctx->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	ctx->rng = x;
	return (double)(x >> 11) / (double)(1ull << 53);
}

/* Does the rule fire for this (already matching) event? */
static bool fires(struct uroce_ctx *ctx, struct uroce_fault_rule *r)
{
	r->seen++;
	if (r->seen <= r->after)
		return false;
	uint64_t k = r->seen - r->after;
	if (r->nth && k != r->nth)
		return false;
	if (r->every && k % r->every)
		return false;
	if (r->count && r->fired >= r->count)
		return false;
	if (r->prob > 0 && rnd(ctx) >= r->prob)
		return false;
	r->fired++;
	return true;
}

enum uroce_fault_action uroce_fault_check(struct uroce_ctx *ctx, int dir, uint32_t qpn, uint8_t tclass,
                                          const struct rt_roce_hdrs *h, bool resend, uint32_t *delay_us)
{
	unsigned d = dir ? DIR_RX : DIR_TX;
	const struct rt_opcode_info *oi = rt_opcode_info(h->opcode);
	for (unsigned i = 0; i < ctx->nfaults; i++) {
		struct uroce_fault_rule *r = &ctx->faults[i];
		if (r->action == UROCE_FA_RNR || !(r->dir & d))
			continue;
		if (r->op >= 0 && r->op != h->opcode)
			continue;
		if (r->op_class && (!oi || oi->op_class != r->op_class))
			continue;
		if (r->qpn >= 0 && (uint32_t)r->qpn != qpn)
			continue;
		if (r->psn >= 0 && (uint32_t)r->psn != h->psn)
			continue;
		if (r->resend >= 0 && (dir || r->resend != resend))
			continue; /* (a received packet does not say whether it is a resend) */
		/* a queue marks only what is ECN-capable (it would drop the rest) */
		if (r->action == UROCE_FA_ECN && !(tclass & 3))
			continue;
		if (!fires(ctx, r))
			continue;
		if (dir && r->action != UROCE_FA_DROP)
			continue; /* on receive only drop is meaningful */
		*delay_us = r->us;
		return r->action;
	}
	return UROCE_FA_NONE;
}

bool uroce_fault_rnr(struct uroce_ctx *ctx, uint32_t qpn, uint32_t psn)
{
	for (unsigned i = 0; i < ctx->nfaults; i++) {
		struct uroce_fault_rule *r = &ctx->faults[i];
		if (r->action != UROCE_FA_RNR)
			continue;
		if (r->qpn >= 0 && (uint32_t)r->qpn != qpn)
			continue;
		if (r->psn >= 0 && (uint32_t)r->psn != psn)
			continue;
		if (fires(ctx, r))
			return true;
	}
	return false;
}
