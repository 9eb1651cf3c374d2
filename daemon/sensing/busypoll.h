/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * busypoll.h: packets busy polling delivered (TcpExt BusyPollRxPackets),
 * summed over every network namespace a process is in. The counter is per
 * network namespace while the busy_read/busy_poll sysctls act on sockets in
 * all of them, so an application in a container or `ip netns exec` is only
 * seen through a process of its own: /proc/PID/net/netstat shows the
 * namespace of PID, and the file's inode number tells namespaces apart
 * (no ptrace access needed, unlike /proc/PID/ns/net).
 *
 * No descriptor is kept on a namespace's netstat (an open one would keep a
 * deleted namespace alive): each read opens PID/net/netstat for the one PID
 * remembered per namespace and checks the inode; when that PID is gone,
 * /proc is listed again. It is also listed when /proc/loadavg's last PID
 * shows a process was created. Cost per read: ~30 us a namespace (the
 * netstat text), a listing ~1-2 us a process. Nothing here logs.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define BUSY_POLL_NETNS_MAX 64

typedef struct BusyPollCounter BusyPollCounter;

/* Opens sysroot's /proc and finds the namespaces. -ENOENT when no netstat there has BusyPollRxPackets. */
int busy_poll_counter_new(BusyPollCounter **ret, const char *sysroot);
BusyPollCounter *busy_poll_counter_free(BusyPollCounter *b);
static inline void busy_poll_counter_freep(BusyPollCounter **b) {
        if (*b)
                busy_poll_counter_free(*b);
}

/*
 * Packets busy polling delivered in all namespaces since the previous call
 * (a namespace seen for the first time gives its baseline, one that is gone
 * gives nothing). Allocates nothing; 0 or the errno of listing /proc.
 */
int busy_poll_counter_read(BusyPollCounter *b, uint64_t *ret_delta);

/* Namespaces followed. */
unsigned busy_poll_counter_netns(const BusyPollCounter *b);
