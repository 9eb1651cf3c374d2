/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysroot.h: every /proc and /sys path netpolld touches is resolved below one
 * root ("/" in production, a fixture tree in tests), and every file it reads
 * or writes there goes through the small I/O helpers below, so the rules for
 * odd kernel file content live in one place.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Files larger than this are "odd content" for a sysctl or sysfs attribute. */
#define SYSFS_VALUE_MAX 4096

/*
 * Joins root and an absolute path. root NULL, "" or "/" returns a copy of
 * path. -EINVAL if path is not absolute or has a ".." component.
 */
int sysroot_path(const char *root, const char *path, char **ret);

/*
 * Whether root's /proc and /sys are the running kernel's, as netpolld itself
 * sees it: root/proc is procfs (statfs(2) f_type PROC_SUPER_MAGIC) whose
 * "self" is netpolld's own pid (the same PID namespace), and root/sys is
 * sysfs (SYSFS_MAGIC). Paths are followed, symlinks included: a bind mount
 * of the real /proc at /host/proc (the Kubernetes example) or a link
 * root/sys -> /sys is live, whatever root is; a fixture tree is not. When
 * not live, *ret_why_not (if given) says why in a few static words, e.g.
 * "its proc is not procfs"; untouched when live.
 */
bool sysroot_is_live(const char *root, const char **ret_why_not);

/*
 * Reads a one-value kernel file: the content with one trailing newline
 * removed. -ENODATA when empty, -EBADMSG when larger than SYSFS_VALUE_MAX or
 * containing a NUL or a second line, else the open/read errno.
 */
int sysfs_read_value(const char *fullpath, char **ret);

/*
 * Writes value and a newline to an existing file in one write(2) with no
 * O_CREAT, as the kernel wants for sysctls. Returns the errno the kernel gave (-EINVAL for a
 * refused value) or 0.
 */
int sysfs_write_value(const char *fullpath, const char *value);

/* sysfs_read_value() / sysfs_write_value() on sysroot_path(root, path). */
int sysroot_read_value(const char *root, const char *path, char **ret);
int sysroot_write_value(const char *root, const char *path, const char *value);

/* A network interface name the kernel could have made: 1-15 chars, no '/', ':' or space, not "." or "..". */
bool ifname_valid(const char *name);

/*
 * The pid of the first process below root whose /proc/PID/comm is comm, 0 when
 * none (a process that ends while it is looked at is not it).
 */
int proc_find_comm(const char *root, const char *comm);
