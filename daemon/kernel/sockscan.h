/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sockscan.h: finding the TCP/UDP sockets that processes hold, and reading or
 * setting SO_BUSY_POLL on them through a duplicate of their file descriptor
 * (pidfd_open(2) + pidfd_getfd(2): the duplicate shares the open file
 * description, so the change reaches the application's socket).
 *
 * Candidates: the inodes listed in PROC/PID/net/{tcp,tcp6,udp,udp6}, read
 * once per network namespace (busy_read is global, so sockets in containers
 * copied it too), listeners included (accepted connections copy the
 * listener's SO_BUSY_POLL), matched against PROC/PID/fd/N -> "socket:[INODE]".
 * Reading text files keeps the walk within one readdir per process and avoids
 * a pidfd_getfd() for every AF_UNIX and netlink socket on the host.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Appends the non-zero inodes of one /proc/net/{tcp,udp}[6] text to *v (realloc'd). -EINVAL on a malformed line. */
int sockscan_parse_net(const char *text, uint64_t **v, size_t *n, size_t *cap);

/* Appends the inodes of DIR/{tcp,tcp6,udp,udp6} (a /proc/PID/net directory; only tcp must exist). */
int sockscan_net_dir(const char *dir, uint64_t **v, size_t *n, size_t *cap);

/*
 * The sorted, duplicate-free inet socket inodes of every network namespace
 * that a process in PROC is in (PROC/PID/ns/net tells them apart).
 */
int sockscan_inet_inodes(const char *proc, uint64_t **ret, size_t *ret_n);

/* "socket:[1234]" -> 1234; -EINVAL for anything else. */
int sockscan_parse_link(const char *link, uint64_t *ret_inode);

/*
 * Calls fn once per inode of the sorted list inodes[] found among the open
 * files of the processes in PROC (the first process and fd that hold it),
 * with a pidfd of that process (open until the walk leaves it). Processes
 * that exit meanwhile are skipped; *ret_refused counts those whose fd
 * directory this process may not read (ptrace access: no CAP_SYS_PTRACE).
 * fn returning < 0 stops the walk with it. Returns the number of sockets
 * visited.
 */
typedef int (*sockscan_fn)(int pidfd, int pid, int fd, uint64_t inode, void *userdata);
int sockscan_walk(const char *proc, const uint64_t *inodes, size_t n, sockscan_fn fn, void *userdata,
                  unsigned *ret_refused);

/* SO_BUSY_POLL of fd in the process of pidfd: read it, and when set is not NULL write *set. */
int sockscan_busy_poll(int pidfd, int fd, uint64_t *ret_value, const uint64_t *set);
