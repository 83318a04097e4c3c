/*
 * Direct-verbs detection.  Programs that write WQEs and read CQEs themselves
 * (mlx5dv_init_obj hands out the raw queue buffers; UCX's accelerated
 * transports work this way) bypass every hook, so their data path is
 * visible only in packets.  The probe wraps the mlx5dv entry points that
 * lead there and records an RT_EV_WARNING (RT_WARN_DIRECT_VERBS) naming the
 * QP, so the viewer and diagnose can say so.  The wrappers only matter when
 * the program links libmlx5; the calls themselves are passed through.
 */
#include <errno.h>
#include <stdio.h>

#include <infiniband/mlx5dv.h>

#include "probe.h"

static void warn_dv(uint32_t qpn, const char *what)
{
	if (!rt_probe_enter())
		return;
	struct rt_event *ev = rt_event_begin(RT_EV_WARNING, qpn);
	if (ev) {
		ev->u.warning.code = RT_WARN_DIRECT_VERBS;
		snprintf(ev->u.warning.text, sizeof(ev->u.warning.text), "%s", what);
		rt_event_commit(ev);
	}
	rt_probe_leave();
}

typedef int init_obj_fn(struct mlx5dv_obj *, uint64_t);
typedef struct ibv_qp *dv_create_qp_fn(struct ibv_context *, struct ibv_qp_init_attr_ex *,
				       struct mlx5dv_qp_init_attr *);
typedef struct mlx5dv_qp_ex *dv_qp_ex_fn(struct ibv_qp_ex *);

RT_PROBE_REAL(init_obj_fn, mlx5dv_init_obj)
RT_PROBE_REAL(dv_create_qp_fn, mlx5dv_create_qp)
RT_PROBE_REAL(dv_qp_ex_fn, mlx5dv_qp_ex_from_ibv_qp_ex)

int mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	if (!real_mlx5dv_init_obj())
		return ENOSYS;
	int rc = real_mlx5dv_init_obj()(obj, obj_type);
	if (rc == 0 && (obj_type & MLX5DV_OBJ_QP) && obj->qp.in)
		warn_dv(obj->qp.in->qp_num, "mlx5dv_init_obj: raw QP buffers");
	if (rc == 0 && (obj_type & MLX5DV_OBJ_CQ))
		warn_dv(0, "mlx5dv_init_obj: raw CQ buffers");
	return rc;
}

struct ibv_qp *mlx5dv_create_qp(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr)
{
	if (!real_mlx5dv_create_qp()) {
		errno = ENOSYS;
		return NULL;
	}
	struct ibv_qp *qp = real_mlx5dv_create_qp()(ctx, attr, dv_attr);
	if (qp && rt_probe_enter()) {
		rt_probe_ctx_of(ctx);
		rt_probe_track_qp(qp, attr, true);
		rt_probe_leave();
		warn_dv(qp->qp_num, "mlx5dv_create_qp");
	}
	return qp;
}

struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	if (!real_mlx5dv_qp_ex_from_ibv_qp_ex())
		return NULL;
	struct mlx5dv_qp_ex *r = real_mlx5dv_qp_ex_from_ibv_qp_ex()(qp);
	if (r)
		warn_dv(qp->qp_base.qp_num, "mlx5dv_wr_* ops not traced");
	return r;
}
