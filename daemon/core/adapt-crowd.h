/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adapt-crowd.h: the adapter's side of the crowd, the tasks busy polling
 * yielded to (control.h; the monitor marks and measures them). While busy
 * polling yields, each sample that asks for it marks the tasks that waited;
 * the crowd's processes are watched for their exit, so that the sample after
 * each one's end comes at once (the last one's ends the yield, an earlier
 * one's may begin a probe), and they are named in the log: at the yield
 * (and each one that joins later), when a probe tries busy polling again
 * beside the ones that still run, and when those ran beside it through the
 * probe and become companions.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "cpuset.h"
#include "monitor.h"

/* A crowd of more processes than this is not watched for its exit, nor named one by one. */
#define ADAPT_CROWD_PROCS_MAX 8

typedef struct AdaptCrowd {
        Monitor *monitor;    /* not owned */
        sd_event *event;     /* not owned */
        const char *sysroot; /* not owned */
        bool live;           /* the sysroot's /proc is this PID namespace's (sysroot_is_live()): pidfds name its PIDs */
        /* Called when a watched process exited (the adapter samples then). */
        void (*exited)(void *userdata);
        void *userdata;
        sd_event_source *exit[ADAPT_CROWD_PROCS_MAX]; /* pidfds, readable once the process exited */
        int exit_pid[ADAPT_CROWD_PROCS_MAX];
        size_t n_exit;
        int named[ADAPT_CROWD_PROCS_MAX]; /* processes the log named in this yield */
        size_t n_named;
        bool exit_off;  /* until the crowd clears: it outgrew the array, or a pidfd could not be had */
        bool following; /* the monitor follows a crowd */
        bool found;     /* a task joined it in this yield (ControlInput.crowd_found) */
} AdaptCrowd;

void adapt_crowd_init(AdaptCrowd *c, Monitor *monitor, sd_event *event, const char *sysroot, bool live,
                      void (*exited)(void *userdata), void *userdata);
/* Forgets the crowd (the yield ended, or the controller starts afresh) and stops watching it. */
void adapt_crowd_clear(AdaptCrowd *c);
/* Stops watching; for the adapter's end. */
void adapt_crowd_done(AdaptCrowd *c);

/*
 * After a sample whose step asks for marking (ControlState.mark_crowd): adds
 * the tasks that waited on cpus (NULL: every CPU) to the crowd, watches its
 * new processes, and names them in the log: the crowd when it is first
 * found, and then each process that joins it (up to ADAPT_CROWD_PROCS_MAX
 * named in a yield).
 */
void adapt_crowd_mark(AdaptCrowd *c, const CpuSet *cpus);

/* A probe tries busy polling again: logs which of the crowd's processes still run. */
void adapt_crowd_log_probe(const AdaptCrowd *c);

/*
 * The probe stood (ControlState.probe_held): the crowd's tasks that still
 * run become companions, never yielded to again (monitor_crowd_to_companions()),
 * the log names them, and the crowd is forgotten.
 */
void adapt_crowd_accept(AdaptCrowd *c);

/*
 * The crowd's processes as "COMM[PID], ..." into buf (size bytes, always
 * terminated): at most ADAPT_CROWD_PROCS_MAX, then "and N more"; a process
 * whose stat cannot be read (gone meanwhile) as "[PID]". Returns how many
 * processes the crowd has, or a negative errno (no crowd known: buf "").
 */
int adapt_crowd_describe(const AdaptCrowd *c, char *buf, size_t size);
