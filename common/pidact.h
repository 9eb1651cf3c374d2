/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pidact.h: acting on a task by a pid that another source reported (the
 * kernel thread napi-get names), without reaching a task that took the pid
 * over after the first one ended. A pidfd pins the task that holds the pid
 * now; a fresh look from the source confirms that task is the one meant;
 * the act runs by pid (sched_setaffinity() takes no pidfd); and the pidfd
 * then shows the task still alive, so the pid was its own throughout.
 */
#pragma once

/*
 * is_it(pid): > 0 when pid (looked up afresh) is the task meant, 0 when not,
 * or a negative errno. act(pid) may be NULL (confirm only). Returns act's
 * result, or -ESRCH when the task had ended or the pid was another's (act
 * did not run, or ran while the task ended: then, too, -ESRCH).
 */
int pid_act_confirmed(int pid, int (*is_it)(int pid, void *userdata), int (*act)(int pid, void *userdata),
                      void *userdata);
