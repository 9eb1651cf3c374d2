/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz-proc.h: the contract every per-CPU parser of monitor-parse.h keeps,
 * checked the same way for each: run on the input with room for a few CPUs
 * and for many, the array is left exactly as it was on failure, failures
 * are -EBADMSG (or another documented errno), and on success no more CPUs
 * are marked present than the parser said the file lists.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"

#define FUZZ_PROC_SLOTS 300 /* more than seeds list, fewer than CPUSET_MAX */

/* PARSE(text, array, n) -> int; TYPE the array's element with a bool present. */
#define FUZZ_PER_CPU(TYPE, data, size, PARSE, ...)                                                   \
        do {                                                                                         \
                _cleanup_(freep) char *text_ = fuzz_text(data, size);                                \
                static const size_t ns_[] = { 0, 1, 4, FUZZ_PROC_SLOTS };                            \
                if (!text_)                                                                          \
                        return 0;                                                                    \
                for (size_t k_ = 0; k_ < ELEMENTSOF(ns_); k_++) {                                    \
                        TYPE a_[FUZZ_PROC_SLOTS], b_[FUZZ_PROC_SLOTS];                               \
                        size_t n_ = ns_[k_], present_ = 0;                                           \
                        int r_;                                                                      \
                        memset(a_, 0xa5, sizeof(a_));                                                \
                        memcpy(b_, a_, sizeof(a_));                                                  \
                        r_ = PARSE(text_, n_ ? a_ : NULL, n_, ##__VA_ARGS__);                        \
                        if (r_ < 0) {                                                                \
                                fuzz_assert(r_ == -EBADMSG || r_ == -EPROTONOSUPPORT);               \
                                fuzz_assert(memcmp(a_, b_, sizeof(a_)) == 0);                        \
                                continue;                                                            \
                        }                                                                            \
                        for (size_t i_ = 0; i_ < n_; i_++) {                                         \
                                fuzz_assert(a_[i_].present == true || a_[i_].present == false);      \
                                present_ += a_[i_].present;                                          \
                        }                                                                            \
                        fuzz_assert(present_ <= (size_t)r_);                                         \
                        fuzz_assert(memcmp(a_ + n_, b_ + n_, sizeof(a_) - n_ * sizeof(TYPE)) == 0); \
                }                                                                                    \
        } while (0)
