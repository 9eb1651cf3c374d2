/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * livesock.h: which live sockets follow a busy-read move (pure; no I/O).
 *
 * The kernel copies net.core.busy_read into a socket's SO_BUSY_POLL when the
 * socket is made, so moving the sysctl never reaches connections that exist.
 * When the controller yields (lowers busy-read from HOME to FLOOR), every TCP
 * or UDP socket still holding exactly HOME is taken to FLOOR and remembered
 * ("moved"); sockets that already held FLOOR are remembered as "kept". When
 * it comes home, a socket holding FLOOR goes to the new home unless it was
 * kept (the application's own value, or a socket made before netpolld gave
 * busy-read its value); sockets made during the yield copied FLOOR from
 * netpolld's busy-read and follow too. Undo (stop, or the feature switched
 * off during a yield) puts the moved sockets that still hold FLOOR back to
 * HOME and touches nothing else. Sockets are named by their inode number
 * (socket:[N]), unique while the socket lives.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum LiveSockPassKind {
        LIVESOCK_YIELD,  /* the controller lowers busy-read */
        LIVESOCK_RETURN, /* the controller raises it again (home) */
        LIVESOCK_UNDO,   /* stop, or the feature off: put back what was moved */
} LiveSockPassKind;

typedef struct LiveSocks {
        bool yielded;     /* a yield is outstanding: moved/kept describe it */
        uint64_t home;    /* SO_BUSY_POLL the moved sockets held before the yield */
        uint64_t floor;   /* what the yield gave them */
        uint64_t *moved;  /* sorted inodes */
        size_t n_moved;
        uint64_t *kept;   /* sorted inodes */
        size_t n_kept;
} LiveSocks;

/* One pass over the live sockets, between livesock_pass_begin() and livesock_pass_end(). */
typedef struct LiveSockPass {
        LiveSockPassKind kind;
        uint64_t from, to;
        uint64_t *moved, *kept; /* the next state's lists, unsorted until the end */
        size_t n_moved, n_kept, cap_moved, cap_kept;
} LiveSockPass;

void livesock_init(LiveSocks *s);
void livesock_clear(LiveSocks *s);

/*
 * Starts a pass for busy-read moving from old to new (ignored for UNDO).
 * Returns 1 when sockets must be looked at, 0 when the pass has nothing to do
 * (a raise without an outstanding yield, an undo without one, old == new).
 */
int livesock_pass_begin(const LiveSocks *s, LiveSockPassKind kind, uint64_t old, uint64_t new, LiveSockPass *p);

/*
 * One socket (each inode once per pass) and the SO_BUSY_POLL it holds now.
 * Returns 1 and the value to set in *ret_to, 0 to leave it, -ENOMEM.
 */
int livesock_pass_socket(const LiveSocks *s, LiveSockPass *p, uint64_t inode, uint64_t value, uint64_t *ret_to);

/* The value was set (only then is a yielded socket remembered as moved). -ENOMEM. */
int livesock_pass_moved(LiveSockPass *p, uint64_t inode);

/* Makes the pass's outcome the new state and frees the pass. */
void livesock_pass_end(LiveSocks *s, LiveSockPass *p);
void livesock_pass_abort(LiveSockPass *p);
