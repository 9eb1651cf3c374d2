/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tuned-expand.h: tuned's variables and built-in functions in profile
 * values, expanded only as far as the result is certain (tuned-expand.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/*
 * The longest value the import holds: as read (continuation lines joined)
 * and as expanded; and what all [variables] together may hold, so that
 * variables defined as copies of each other cannot double their way
 * through memory. tuned has no bound; real values are a few hundred bytes.
 */
#define TUNED_VALUE_MAX 65536

/* [variables] in definition order; a NULL value has a reason it is unknown (a host function, a missing file). */
typedef struct TunedVars {
        char **names;
        char **values;
        char **reasons;
        size_t n;
        size_t size;    /* bytes of all names, values and reasons: at most TUNED_VALUE_MAX */
} TunedVars;

void tuned_vars_done(TunedVars *v);
/*
 * Defines or redefines name (value, or NULL and the reason it is unknown).
 * 0, -ENOMEM, or -E2BIG (nothing changed) when the variables together
 * would hold more than TUNED_VALUE_MAX bytes.
 */
int tuned_vars_set(TunedVars *v, const char *name, const char *value, const char *reason);
/* tuned's rule for variable names: one or more word characters. */
bool tuned_var_name_valid(const char *s);

/*
 * value with ${VAR} and the reproducible ${f:...} expanded as tuned
 * expands it. -EOPNOTSUPP with *ret_reason (caller frees) when the result
 * depends on something not known here: an unknown variable, a function
 * that asks the host. -E2BIG (no reason) for a result longer than
 * TUNED_VALUE_MAX. -ENOMEM.
 */
int tuned_expand(const TunedVars *v, const char *value, char **ret, char **ret_reason);

/* tuned's unquote: one pair of double quotes around the whole value goes. Caller frees; NULL on ENOMEM. */
char *tuned_unquote(const char *v);
