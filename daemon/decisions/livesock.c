/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * livesock.c: the rules of livesock.h. Inode lists are sorted arrays: a yield
 * on a busy host records every TCP/UDP socket that held the floor (often 0,
 * i.e. most sockets), so lookups are binary searches, 8 bytes a socket.
 */
#include "livesock.h"

#include <errno.h>
#include <stdlib.h>

#include "u64-array.h"

void livesock_init(LiveSocks *s) {
        *s = (LiveSocks){};
}

void livesock_clear(LiveSocks *s) {
        free(s->moved);
        free(s->kept);
        livesock_init(s);
}

static bool contains(const uint64_t *v, size_t n, uint64_t inode) {
        return n > 0 && bsearch(&inode, v, n, sizeof(*v), u64_cmp);
}

int livesock_pass_begin(const LiveSocks *s, LiveSockPassKind kind, uint64_t old, uint64_t new, LiveSockPass *p) {
        *p = (LiveSockPass){ .kind = kind, .from = old, .to = new };
        switch (kind) {
        case LIVESOCK_YIELD:
                /* Only a lowering is a yield; a second one during a yield continues from its floor. */
                if (new >= old || (s->yielded && old != s->floor))
                        return 0;
                return 1;
        case LIVESOCK_RETURN:
                if (!s->yielded || old != s->floor || new == old)
                        return 0;
                return 1;
        case LIVESOCK_UNDO:
                if (!s->yielded || s->n_moved == 0)
                        return 0;
                p->from = s->floor;
                p->to = s->home;
                return 1;
        }
        return 0;
}

int livesock_pass_socket(const LiveSocks *s, LiveSockPass *p, uint64_t inode, uint64_t value, uint64_t *ret_to) {
        bool moved = contains(s->moved, s->n_moved, inode);

        switch (p->kind) {
        case LIVESOCK_YIELD:
                if (value == p->from && (!s->yielded || !contains(s->kept, s->n_kept, inode))) {
                        *ret_to = p->to;
                        return 1;
                }
                /* Already at the floor: the application's (or an older) value, never raised later. */
                if (value == p->to && !moved)
                        return u64_push(&p->kept, &p->n_kept, &p->cap_kept, inode) < 0 ? -ENOMEM : 0;
                if (value == p->to && moved)
                        return u64_push(&p->moved, &p->n_moved, &p->cap_moved, inode) < 0 ? -ENOMEM : 0;
                return 0;
        case LIVESOCK_RETURN:
                if (value == p->from && !contains(s->kept, s->n_kept, inode)) {
                        *ret_to = p->to;
                        return 1;
                }
                return 0;
        case LIVESOCK_UNDO:
                if (value == p->from && moved) {
                        *ret_to = p->to;
                        return 1;
                }
                return 0;
        }
        return 0;
}

int livesock_pass_moved(LiveSockPass *p, uint64_t inode) {
        if (p->kind != LIVESOCK_YIELD)
                return 0;
        return u64_push(&p->moved, &p->n_moved, &p->cap_moved, inode);
}

void livesock_pass_abort(LiveSockPass *p) {
        free(p->moved);
        free(p->kept);
        *p = (LiveSockPass){};
}

void livesock_pass_end(LiveSocks *s, LiveSockPass *p) {
        if (p->kind != LIVESOCK_YIELD) {
                /* Home again, or undone: nothing is outstanding. */
                livesock_pass_abort(p);
                livesock_clear(s);
                return;
        }
        if (!s->yielded)
                s->home = p->from;
        free(s->moved);
        free(s->kept);
        if (p->n_moved > 0) /* an empty list is NULL: not for qsort(3) */
                qsort(p->moved, p->n_moved, sizeof(uint64_t), u64_cmp);
        if (p->n_kept > 0)
                qsort(p->kept, p->n_kept, sizeof(uint64_t), u64_cmp);
        s->moved = p->moved;
        s->n_moved = p->n_moved;
        s->kept = p->kept;
        s->n_kept = p->n_kept;
        s->floor = p->to;
        s->yielded = true;
        *p = (LiveSockPass){};
}
