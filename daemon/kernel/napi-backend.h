/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * napi-backend.h: the owner's backend for per-NAPI targets ("napi:ID:KNOB",
 * owner.h): napi-get and napi-set of the netdev generic netlink family on a
 * socket of its own in netpolld's network namespace, opened on first use,
 * so that the crash replay at start-up works before steering exists. An
 * instance that is gone reads as -ENOENT. Does not log.
 *
 * One more value per instance, key "napi:ID:" NAPI_THREAD_CPUS: the CPU
 * list of its kernel thread (threaded mode), read and written with
 * sched_getaffinity/sched_setaffinity on the pid napi-get reports (written
 * only while that pid is still the thread's: napi_thread_place()); -ENOENT
 * when the instance has no thread (softirq mode) or it ended meanwhile.
 */
#pragma once

#include "knob.h"
#include "owner.h"

#define NAPI_THREAD_CPUS "thread-cpus"

typedef struct NapiBackend NapiBackend;

int napi_backend_new(NapiBackend **ret);
NapiBackend *napi_backend_free(NapiBackend *b);
static inline void napi_backend_freep(NapiBackend **b) {
        if (*b)
                napi_backend_free(*b);
}
const TargetBackend *napi_backend_ops(NapiBackend *b);
/* The CPU list a kernel thread may run on ("1", "0-3"); -ENOENT when there is no such thread. */
int napi_thread_cpus(int pid, char **ret);
/* The pid of NAPI instance napi_id's kernel thread (napi-get); -ENOENT when it has none or is gone. */
typedef int (*NapiThreadLookup)(void *userdata, uint32_t napi_id, int *ret_pid);
/*
 * Places instance napi_id's kernel thread on the CPU list value: on the pid
 * lookup() gives, only while a fresh lookup() still names it and the task
 * lives (pid_act_confirmed()), never on a task that took the pid over.
 * -ENOENT when there is no thread or it ended meanwhile.
 */
int napi_thread_place(uint32_t napi_id, const char *value, NapiThreadLookup lookup, void *userdata);
/* The same socket as the catalog's source for device-wide per-NAPI knobs (knob_set_napi_source()). */
const KnobNapiSource *napi_backend_knob_source(NapiBackend *b);
