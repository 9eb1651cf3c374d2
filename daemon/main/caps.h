/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * caps.h: dropping privileges after start-up.
 */
#pragma once

/*
 * Keeps exactly the capabilities netpolld's writes need and removes every
 * other one from the effective, permitted, inheritable and bounding sets.
 * Returns 0, or 1 when not running with capabilities to drop (an
 * unprivileged test run), or a negative errno.
 */
int caps_drop_to_minimum(void);
