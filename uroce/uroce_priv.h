/* uroce/uroce_priv.h: what librdmacm.so.1 (uroce/rdmacm/) needs from the engine.
   Exported from libibverbs.so.1 under the symbol version UROCE_PRIVATE_1. */
#ifndef UROCE_PRIV_H
#define UROCE_PRIV_H
#include <infiniband/verbs.h>
#include <sys/socket.h>
/* True when ctx is a uroce context. */
int uroce_priv_is_uroce(struct ibv_context *ctx);
/* Give the device (port 1) a local address: UDP 4791 on that IPv4/IPv6 address becomes one of its
   GIDs (IPv4-mapped ::ffff:a.b.c.d for IPv4). addr NULL or INADDR_ANY: pick a free address in
   127/8 (or $UROCE_ADDR / config). Adding an address already present returns its index.
   Returns 0 and the GID index, or -errno. */
int uroce_priv_add_addr(struct ibv_context *ctx, const struct sockaddr *addr, uint8_t *gid_index);
/* The address behind a GID index. */
int uroce_priv_gid_addr(struct ibv_context *ctx, uint8_t gid_index, struct sockaddr_storage *out);
/* MADs arriving on QP1 at any of the device's addresses go to this handler, called from the
   engine's progress thread with the engine's lock held: the handler must not block, and must
   not call into the engine (it copies the MAD and queues it). One handler per context. */
typedef void (*uroce_gsi_handler)(void *arg, uint8_t gid_index, const struct sockaddr *src,
                                  const uint8_t *mad, size_t len);
int uroce_priv_gsi_register(struct ibv_context *ctx, uroce_gsi_handler fn, void *arg);
/* Send one MAD (256 bytes) from QP1 at gid_index to QP1 at dst (port 4791): UD SEND ONLY,
   DestQP 1, DETH Q_Key 0x80010000, SrcQP 1, correct ICRC, as rxe does; in an IP packet of
   traffic class tclass (TOS: DSCP and ECN), as the kernel's CM sends a connection's MADs with
   the connection's. */
int uroce_priv_gsi_send(struct ibv_context *ctx, uint8_t gid_index, const struct sockaddr *dst,
                        uint8_t tclass, const uint8_t *mad, size_t len);
#endif
