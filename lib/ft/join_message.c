/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the parents' message to the new
 * processes of dmesh_respawn and dmesh_grow (join_message.h): its bytes on
 * the wire, packed and unpacked. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fault.h"
#include "ft/join_message.h"

/* The header on the wire, as join_message.h describes it. */
typedef struct {
    uint32_t magic, version;
    int32_t reason, status, size, nnewcomers, textlen, keyslen;
} join_header_t;

_Static_assert(sizeof(join_header_t) == DMESH_JOIN_HEADER_BYTES, "the header on the wire");

int dmesh_join_pack(const dmesh_join_message_t *m, char **buf, int *len)
{
    const char *text = m->text != NULL ? m->text : "", *keys = m->keys != NULL ? m->keys : "";
    join_header_t h;
    size_t n;
    char *b, *at;
    int i;

    memset(&h, 0, sizeof(h));
    h.magic = DMESH_JOIN_MAGIC;
    h.version = DMESH_JOIN_VERSION;
    h.reason = m->reason;
    h.status = m->status;
    h.size = m->size;
    h.nnewcomers = m->nnewcomers;
    h.textlen = (int32_t)(strlen(text) + 1);
    h.keyslen = (int32_t)(strlen(keys) + 1);
    n = sizeof(h) + (size_t)h.nnewcomers * sizeof(int32_t) + (size_t)h.textlen + (size_t)h.keyslen;
    if (n > INT_MAX)
        return dmesh_error_set(DMESH_ERR_SIZE, "the new processes' plan: %zu bytes", n);
    if ((b = DMESH_FAULT_MALLOC(n)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "the new processes' plan: out of memory");
    memcpy(b, &h, sizeof(h));
    at = b + sizeof(h);
    for (i = 0; i < h.nnewcomers; i++, at += sizeof(int32_t)) {
        int32_t r = (int32_t)m->newcomer_rank[i];
        memcpy(at, &r, sizeof(r));
    }
    memcpy(at, text, (size_t)h.textlen);
    memcpy(at + h.textlen, keys, (size_t)h.keyslen);
    *buf = b;
    *len = (int)n;
    return DMESH_SUCCESS;
}

/* A malloc'd copy of the n bytes at p, which must end in their first NUL. */
static char *string_at(const char *p, int32_t n)
{
    char *s;

    if (n < 1 || memchr(p, '\0', (size_t)n) != p + n - 1 || (s = malloc((size_t)n)) == NULL)
        return NULL;
    memcpy(s, p, (size_t)n);
    return s;
}

/* The header of a message of len bytes, checked against the rest. */
static int read_header(const char *buf, int len, join_header_t *h)
{
    int64_t need;

    if (len < (int)sizeof(*h))
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_join: the parent's message has %d bytes", len);
    memcpy(h, buf, sizeof(*h));
    if (h->magic != DMESH_JOIN_MAGIC)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_join: the parent's message is not dmesh's (magic 0x%08x): "
                               "this process was not started by dmesh_respawn or dmesh_grow",
                               (unsigned)h->magic);
    if (h->version != DMESH_JOIN_VERSION)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_join: the parents run another dmesh (message version %u, "
                               "this one reads %d)",
                               (unsigned)h->version, DMESH_JOIN_VERSION);
    need = (int64_t)sizeof(*h) + (int64_t)h->nnewcomers * 4 + h->textlen + h->keyslen;
    if (h->nnewcomers < 0 || h->textlen < 1 || h->keyslen < 1 || h->size < 1 || need != len ||
        (h->status < 0 || h->status >= DMESH_ERR_LASTCODE) ||
        (h->reason != DMESH_JOIN_RESPAWN && h->reason != DMESH_JOIN_GROW))
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_join: the parent's message is malformed (%d bytes, %d new "
                               "processes, reason %d)",
                               len, (int)h->nnewcomers, (int)h->reason);
    return DMESH_SUCCESS;
}

int dmesh_join_unpack(const char *buf, int len, dmesh_join_message_t *m)
{
    const char *at = buf + sizeof(join_header_t);
    join_header_t h;
    int i;

    memset(m, 0, sizeof(*m));
    DMESH_TRY(read_header(buf, len, &h));
    m->newcomer_rank = malloc((size_t)(h.nnewcomers > 0 ? h.nnewcomers : 1) * sizeof(int));
    m->text = string_at(at + 4 * h.nnewcomers, h.textlen);
    m->keys = string_at(at + 4 * h.nnewcomers + h.textlen, h.keyslen);
    for (i = 0; m->newcomer_rank != NULL && i < h.nnewcomers; i++) {
        int32_t r;
        memcpy(&r, at + 4 * i, sizeof(r));
        m->newcomer_rank[i] = r;
        if (r < 0 || r >= h.size)
            break;
    }
    if (m->newcomer_rank == NULL || m->text == NULL || m->keys == NULL || i < h.nnewcomers) {
        dmesh_join_message_free(m);
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_join: the parent's message is malformed "
                                              "(its ranks or texts), or out of memory");
    }
    m->reason = h.reason;
    m->status = h.status;
    m->size = h.size;
    m->nnewcomers = h.nnewcomers;
    return DMESH_SUCCESS;
}

void dmesh_join_message_free(dmesh_join_message_t *m)
{
    free(m->newcomer_rank);
    free(m->text);
    free(m->keys);
    memset(m, 0, sizeof(*m));
}
