/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * owner.c: the one write path for every kernel value (owner.h). Targets the
 * owner has seen are kept in a small array (a few hundred at most: knobs,
 * queues, IRQs); each holds what every layer asks for and what netpolld
 * expects the kernel to hold.
 */
#include "owner.h"
#include "owner-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "sysroot.h"
#include "test-hook.h"


static const char *const layer_reasons[_LAYER_MAX] = {
        [LAYER_PROFILE] = "profile",
        [LAYER_CONTROLLER] = "adaptive",
        [LAYER_MANUAL] = "manual",
};

static void held_done(Held *h) {
        for (Layer l = 0; l < _LAYER_MAX; l++)
                free(h->layer[l]);
        free(h->expected);
        free(h->outside.was);
        free(h->outside.found);
}

int owner_new(Owner **ret, const char *sysroot, Journal *journal, bool dry_run) {
        Owner *o = calloc(1, sizeof(Owner));

        if (!o)
                return -ENOMEM;
        o->sysroot = strdup(sysroot ?: "/");
        if (!o->sysroot) {
                free(o);
                return -ENOMEM;
        }
        o->journal = journal;
        o->dry_run = dry_run;
        *ret = o;
        return 0;
}

Owner *owner_free(Owner *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n_held; i++)
                held_done(&o->held[i]);
        free(o->held);
        free(o->sysroot);
        free(o->error);
        free(o);
        return NULL;
}

void owner_set_change_callback(Owner *o, owner_change_fn fn, void *userdata) {
        o->on_change = fn;
        o->userdata = userdata;
}

void owner_set_napi_backend(Owner *o, const TargetBackend *b) {
        o->have_napi = b != NULL;
        o->napi = b ? *b : (TargetBackend){};
}

/* ---- held targets ---------------------------------------------------------------------------- */

static Held *find_held(const Owner *o, const char *key) {
        for (size_t i = 0; i < o->n_held; i++)
                if (streq(o->held[i].t.key, key))
                        return &o->held[i];
        return NULL;
}

static void drop_held(Owner *o, Held *h) {
        size_t i = (size_t)(h - o->held);

        o->generation++;
        held_done(h);
        memmove(o->held + i, o->held + i + 1, (o->n_held - i - 1) * sizeof(Held));
        o->n_held--;
}

/*
 * The state for t. A held target of the same key whose device has another
 * ifindex belonged to a device that is gone: its state and journal entry
 * are forgotten, never applied to the new device.
 */
static Held *get_held(Owner *o, const Target *t) {
        Held *h = find_held(o, t->key), *a;

        if (h && h->t.ifindex != t->ifindex) {
                log_info("%s: device %s was replaced (ifindex %d, now %d); forgetting what netpolld held there",
                         h->t.name, h->t.device, h->t.ifindex, t->ifindex);
                if (o->journal && journal_get(o->journal, h->t.key))
                        (void)journal_forget(o->journal, h->t.key);
                drop_held(o, h);
                h = NULL;
        }
        if (h)
                return h;
        a = realloc(o->held, (o->n_held + 1) * sizeof(Held));
        if (!a)
                return NULL;
        o->held = a;
        h = &o->held[o->n_held++];
        *h = (Held){ .t = *t };
        return h;
}

static const char *top_layer(const Held *h, Layer *ret) {
        for (Layer l = _LAYER_MAX; l-- > 0;)
                if (h->layer[l]) {
                        if (ret)
                                *ret = l;
                        return h->layer[l];
                }
        return NULL;
}

ValueOrigin owner_origin(const Owner *o, const Target *t) {
        const Held *h = find_held(o, t->key);
        Layer l;

        if (!h || h->t.ifindex != t->ifindex)
                return ORIGIN_DEFAULT;
        if (h->external)
                return ORIGIN_EXTERNAL;
        if (!h->expected || !top_layer(h, &l))
                return ORIGIN_DEFAULT;
        return l == LAYER_MANUAL ? ORIGIN_MANUAL : l == LAYER_CONTROLLER ? ORIGIN_ADAPTIVE : ORIGIN_PROFILE;
}

const char *owner_layer_value(const Owner *o, const Target *t, Layer layer) {
        const Held *h = find_held(o, t->key);
        return h && h->t.ifindex == t->ifindex && layer < _LAYER_MAX ? h->layer[layer] : NULL;
}

/*
 * The journal fields of a change (netpolld(8), LOGGING): the target's name, the
 * kernel's text before and after, and KnobChanged's reason.
 */
#define CHANGE_FIELDS(t, old, new, reason) \
        LOG_FIELDS("KNOB", (t)->name, "OLD", strempty(old), "NEW", strempty(new), "REASON", (reason))

static void report(Owner *o, const Target *t, const char *old, const char *new, const char *reason) {
        if (o->on_change)
                o->on_change(t, strempty(old), strempty(new), reason, o->userdata);
}

static int set_string(char **p, const char *v) {
        char *c = NULL;

        if (v && !(c = strdup(v)))
                return -ENOMEM;
        free(*p);
        *p = c;
        return 0;
}

/* What explain shows of the change: what netpolld had left, what was found, when (wall clock). */
static void remember_outside(Held *h, const char *now) {
        struct timespec ts;

        (void)clock_gettime(CLOCK_REALTIME, &ts);
        free(h->outside.was);
        free(h->outside.found);
        h->outside = (OwnerOutside){
                .was = h->expected ? strdup(h->expected) : NULL,
                .found = now ? strdup(now) : NULL,
                .at_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000,
        };
}

int owner_find_target(const Owner *o, const char *name, Target *ret) {
        for (size_t i = 0; i < o->n_held; i++)
                if (streq(o->held[i].t.name, name)) {
                        *ret = o->held[i].t;
                        return 0;
                }
        return -ENOENT;
}

bool owner_outside_change(const Owner *o, const Target *t, OwnerOutside *ret) {
        const Held *h = find_held(o, t->key);

        if (!h || h->t.ifindex != t->ifindex || !h->external)
                return false;
        *ret = h->outside;
        return true;
}

int owner_outside_targets(const Owner *o, Target **ret, size_t *ret_n) {
        Target *v = NULL;
        size_t n = 0;

        for (size_t i = 0; i < o->n_held; i++) {
                Target *a;

                if (!o->held[i].external)
                        continue;
                a = realloc(v, (n + 1) * sizeof(Target));
                if (!a) {
                        free(v);
                        return -ENOMEM;
                }
                v = a;
                v[n++] = o->held[i].t;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/*
 * h holds now, netpolld did not write it: the value is somebody else's. The
 * journal entry goes (never restored over it), the change is reported, and
 * netpolld leaves it alone until the manual layer speaks.
 */
static void mark_external(Owner *o, Held *h, const char *now) {
        log_fields(LOG_WARNING, CHANGE_FIELDS(&h->t, h->expected, now, "external"),
                   "%s was changed outside netpolld (%s -> %s); leaving it alone until 'netpollctl reset %s'",
                   h->t.name, strempty(h->expected), now ?: "unreadable", h->t.name);
        if (o->journal && journal_get(o->journal, h->t.key))
                (void)journal_forget(o->journal, h->t.key);
        h->external = true;
        remember_outside(h, now);
        o->generation++;
        report(o, &h->t, h->expected, now, "external");
        free(h->expected);
        h->expected = NULL;
}

/* Whether the kernel holds something else than what netpolld left there (old: the current value). */
static bool changed_outside(const Held *h, const char *old) {
        return h->expected && !owner_value_equal(h->t.kind, old, h->expected);
}

/* Puts back the journaled original of h, if there is one, and drops the entry. */
static int give_back(Owner *o, Held *h, const char *reason, bool force, char **ret_now) {
        const JournalEntry *e = o->journal ? journal_get(o->journal, h->t.key) : NULL;
        _cleanup_(freep) char *old = NULL, *original = NULL;
        int r;

        (void)owner_read(o, &h->t, &old);
        if (!force && old && changed_outside(h, old)) {
                mark_external(o, h, old);
                if (ret_now)
                        *ret_now = TAKE_PTR(old);
                return 0;
        }
        if (!e) {
                /* netpolld found the value in place and never wrote it: nothing to put back. */
                free(h->expected);
                h->expected = NULL;
                if (ret_now)
                        *ret_now = TAKE_PTR(old);
                return 0;
        }
        original = strdup(e->original);
        if (!original)
                return -ENOMEM;
        if (o->dry_run) {
                log_info("dry-run: would put %s back to %s (%s)", h->t.name, original, reason);
                return 0;
        }
        r = kernel_write(o, &h->t, original);
        if (r < 0 && r != -ENOENT)
                return r;
        r = journal_forget(o->journal, h->t.key);
        if (r < 0) {
                /*
                 * The original is back in the kernel whatever the journal says: the
                 * hand-back stands. The entry stays until the journal can be written
                 * again (a later set keeps it, stop or the next start writes the
                 * same original once more).
                 */
                o->journal_error = r;
                log_warning_errno(r, "%s: could not drop its entry from %s: %m; it stays there, ignoring",
                                  h->t.name, journal_path(o->journal));
        }
        free(h->expected);
        h->expected = NULL;
        log_fields(LOG_INFO, CHANGE_FIELDS(&h->t, old, original, reason), "%s: %s -> %s (%s, original value)",
                   h->t.name, old ?: "?", original, reason);
        report(o, &h->t, old, original, reason);
        if (ret_now)
                *ret_now = TAKE_PTR(original);
        return 0;
}

/*
 * Records why t failed for owner_last_error() and returns r. Not logged here: the caller
 * knows whether it is worth a line (a kernel-managed IRQ's EIO on every plan is not).
 */
static int owner_failf(Owner *o, const Target *t, int r, const char *fmt, ...) _printf_(4, 5);
static int owner_failf(Owner *o, const Target *t, int r, const char *fmt, ...) {
        _cleanup_(freep) char *what = NULL;
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&what, fmt, ap);
        va_end(ap);
        free(o->error);
        o->error = NULL;
        if (k < 0 || asprintf(&o->error, "%s: %s", t->key, what) < 0)
                o->error = NULL;
        return r;
}

const char *owner_last_error(const Owner *o) {
        return o ? o->error : NULL;
}

/*
 * The value in the kernel now, checked to be of the target's kind: an odd
 * file (empty, huge, not a value, gone, a directory, EIO) fails here, before
 * anything is journaled or written.
 */
static int read_current(Owner *o, const Held *h, char **ret) {
        _cleanup_(freep) char *v = NULL;
        int r;

        r = owner_read(o, &h->t, &v);
        if (r < 0)
                return owner_failf(o, &h->t, r == -ENOENT ? -ENODEV : r, "cannot read the current value: %s",
                                   io_error_text(r));
        if (!kernel_text_valid(h->t.kind, v))
                return owner_failf(o, &h->t, -EBADMSG, "holds \"%.64s\", not %s: not changing it", v,
                                   kind_expects(h->t.kind));
        *ret = TAKE_PTR(v);
        return 0;
}

/*
 * Puts what the highest layer asks for into the kernel: the one write path.
 * A value changed outside since netpolld wrote it is left alone (external)
 * unless force (the manual layer: an administrator's explicit word).
 */
static int enforce(Owner *o, Held *h, const char *reason, const char *why, bool force, char **ret_now) {
        _cleanup_(freep) char *old = NULL, *now = NULL;
        bool recorded = false;
        const char *want;
        int r;

        if (h->external) {
                if (ret_now)
                        (void)owner_read(o, &h->t, ret_now);
                return 0;
        }
        want = top_layer(h, NULL);
        if (!want)
                return give_back(o, h, reason, force, ret_now);

        r = read_current(o, h, &old);
        if (r < 0)
                return r;
        if (!force && changed_outside(h, old)) {
                mark_external(o, h, old);
                if (ret_now)
                        *ret_now = TAKE_PTR(old);
                return 0;
        }
        if (owner_value_equal(h->t.kind, old, want)) {
                /* In place already: nothing to write, nothing to put back later unless journaled before. */
                r = set_string(&h->expected, old);
                if (r >= 0 && ret_now)
                        *ret_now = TAKE_PTR(old);
                return r;
        }
        if (o->dry_run) {
                log_info("dry-run: would set %s from %s to %s (%s)", h->t.name, old, want, why ?: reason);
                if (ret_now)
                        *ret_now = TAKE_PTR(old);
                return 0;
        }

        /* The original is safely on disk before the kernel changes. */
        if (o->journal && !journal_get(o->journal, h->t.key)) {
                JournalEntry e = {
                        .kind = (char *)target_kind_to_string(h->t.kind),
                        .name = h->t.name,
                        .device = h->t.device,
                        .ifindex = h->t.ifindex,
                        .key = h->t.key,
                        .original = old,
                };
                r = journal_record(o->journal, &e);
                if (r < 0) {
                        o->journal_error = r;
                        return -OWNER_E_NOT_JOURNALED;
                }
                recorded = true;
                test_crash_point("journal-written");
        }
        r = kernel_write(o, &h->t, want);
        test_crash_point("knob-written");
        if (r < 0) {
                if (recorded)
                        (void)journal_forget(o->journal, h->t.key);
                return owner_failf(o, &h->t, r, "writing %s failed: %s%s", want,
                                   r == -EINVAL || r == -ERANGE ? "the kernel refused it: " : "",
                                   io_error_text(r));
        }
        r = owner_read(o, &h->t, &now);
        if (r < 0)
                return owner_failf(o, &h->t, r, "cannot read back the value written: %s", io_error_text(r));
        r = set_string(&h->expected, now);
        if (r < 0)
                return r;
        log_fields(LOG_INFO, CHANGE_FIELDS(&h->t, old, now, reason), "%s: %s -> %s (%s)", h->t.name, old, now,
                   why ?: reason);
        report(o, &h->t, old, now, reason);
        r = owner_value_equal(h->t.kind, now, want) ? 0 : -EDOM;
        if (ret_now)
                *ret_now = TAKE_PTR(now);
        return r;
}

int owner_set(Owner *o, const Target *t, Layer layer, const char *value, const char *why, char **ret_now) {
        Held *h;
        char *prev;
        int r;

        if (!o || !t || layer >= _LAYER_MAX || !value)
                return -EINVAL;
        free(o->error);
        o->error = NULL;
        o->generation++;
        h = get_held(o, t);
        if (!h)
                return -ENOMEM;
        prev = h->layer[layer];
        h->layer[layer] = strdup(value);
        if (!h->layer[layer]) {
                h->layer[layer] = prev;
                return -ENOMEM;
        }
        /* An administrator's explicit word takes a value back from whoever changed it outside. */
        bool was_external = h->external;
        if (layer == LAYER_MANUAL)
                h->external = false;
        r = enforce(o, h, layer_reasons[layer], why, layer == LAYER_MANUAL, ret_now);
        if (r < 0 && r != -EDOM) {
                /* The kernel refused: the layer does not ask for what it cannot have. */
                free(h->layer[layer]);
                h->layer[layer] = prev;
                h->external = was_external;
                return r;
        }
        free(prev);
        return r;
}

char *owner_not_journaled_message(const Owner *o, const char *name) {
        char *m;

        if (asprintf(&m, "%s: cannot save its original in %s (%s); nothing was changed", name,
                     o->journal ? journal_path(o->journal) : "the restore journal",
                     strerror(o->journal_error < 0 ? -o->journal_error : EIO)) < 0)
                return NULL;
        return m;
}

int owner_unset(Owner *o, const Target *t, unsigned layers, const char *reason, char **ret_now) {
        bool manual = layers & LAYER_BIT(LAYER_MANUAL);
        Held *h;

        if (!o || !t || (layers & ~LAYERS_ALL))
                return -EINVAL;
        h = find_held(o, t->key);
        if (!h || h->t.ifindex != t->ifindex) {
                if (ret_now)
                        (void)owner_read(o, t, ret_now);
                return 0;
        }
        o->generation++;
        for (Layer l = 0; l < _LAYER_MAX; l++)
                if (layers & LAYER_BIT(l)) {
                        free(h->layer[l]);
                        h->layer[l] = NULL;
                }
        if (manual && h->external) {
                /* Reset takes a value back: what it holds now is the original from here on. */
                h->external = false;
                free(h->expected);
                h->expected = NULL;
        }
        return enforce(o, h, reason ?: "reset", NULL, manual, ret_now);
}

/* ---- outside changes, restore --------------------------------------------------------------- */

static void forget(Owner *o, Held *h) {
        if (o->journal && journal_get(o->journal, h->t.key))
                (void)journal_forget(o->journal, h->t.key);
        drop_held(o, h);
}

int owner_check(Owner *o) {
        int changed = 0;

        for (size_t i = 0; i < o->n_held;) {
                Held *h = &o->held[i];
                _cleanup_(freep) char *now = NULL;
                int r;

                /* Nothing written yet: nothing to check. External values are checked for being gone. */
                if (!h->expected && !h->external) {
                        i++;
                        continue;
                }
                r = current_ifindex(o, h->t.kind, h->t.device, h->t.key);
                if (r >= 0 && r == h->t.ifindex)
                        r = owner_read(o, &h->t, &now);
                else if (r >= 0 || r == -ENODEV)
                        r = -ENODEV;
                if (r == -ENODEV || r == -ENOENT) {
                        if (h->t.kind == TARGET_THREAD && r == -ENOENT)
                                log_info("%s: the kernel thread has ended; forgetting its value", h->t.name);
                        else
                                log_info("%s: %s is gone; forgetting its value", h->t.name,
                                         *h->t.device ? h->t.device : h->t.key);
                        forget(o, h);
                        continue;
                }
                i++;
                /* Somebody else's now: left alone, only forgotten once gone (above). */
                if (h->external || (r >= 0 && owner_value_equal(h->t.kind, now, h->expected)))
                        continue;
                mark_external(o, h, now);
                changed++;
        }
        return changed;
}

int owner_forget_device(Owner *o, const char *device) {
        int n = 0;

        for (size_t i = 0; i < o->n_held;)
                if (streq(o->held[i].t.device, device)) {
                        forget(o, &o->held[i]);
                        n++;
                } else
                        i++;
        return n;
}

/* s with the first "from" replaced by "to" into buf; false when it does not fit. */
static bool replace_once(char *buf, size_t size, const char *s, const char *from, const char *to) {
        const char *at = strstr(s, from);

        if (!at)
                return snprintf(buf, size, "%s", s) < (int)size;
        return snprintf(buf, size, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from)) < (int)size;
}

int owner_rename_device(Owner *o, const char *old_name, const char *new_name) {
        char old_dir[64], new_dir[64], old_at[32], new_at[32];
        int n = 0;

        if (!ifname_valid(old_name) || !ifname_valid(new_name))
                return -EINVAL;
        snprintf(old_dir, sizeof(old_dir), "/sys/class/net/%s/", old_name);
        snprintf(new_dir, sizeof(new_dir), "/sys/class/net/%s/", new_name);
        snprintf(old_at, sizeof(old_at), "@%s", old_name);
        snprintf(new_at, sizeof(new_at), "@%s", new_name);
        for (size_t i = 0; i < o->n_held; i++) {
                Held *h = &o->held[i];
                Target t = h->t;
                const JournalEntry *e;

                if (!streq(h->t.device, old_name))
                        continue;
                if (!replace_once(t.key, sizeof(t.key), h->t.key, old_dir, new_dir) ||
                    !replace_once(t.name, sizeof(t.name), h->t.name, old_at, new_at))
                        continue;
                snprintf(t.device, sizeof(t.device), "%s", new_name);
                e = o->journal ? journal_get(o->journal, h->t.key) : NULL;
                if (e) {
                        JournalEntry moved = *e;
                        moved.name = t.name;
                        moved.device = t.device;
                        moved.key = t.key;
                        if (journal_record(o->journal, &moved) < 0)
                                continue; /* keep the old entry: better restored late than lost */
                        (void)journal_forget(o->journal, h->t.key);
                }
                h->t = t;
                o->generation++;
                n++;
        }
        return n;
}

/*
 * Restores journal entry i: 1 when it is done with (written, or dropped
 * because its device is gone or replaced), negative errno when the kernel
 * refused; *ret_error keeps that error.
 */
/* A systemd drop-in netpolld wrote (journal.h): its original is its absence. */
static int restore_dropin(Owner *o, const JournalEntry *e) {
        _cleanup_(freep) char *path = NULL;
        int r;

        if (!streq(e->original, "absent"))
                return -EBADMSG;
        r = sysroot_path(o->sysroot, e->key, &path);
        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

static int restore_entry(Owner *o, const JournalEntry *e, bool *ret_gone) {
        TargetKind kind = target_kind_from_string(e->kind);
        Target t;
        int r;

        *ret_gone = false;
        if (streq(e->kind, JOURNAL_KIND_DROPIN))
                return restore_dropin(o, e);
        if (kind < 0 || fill_target(&t, kind, e->name, e->device, e->key) < 0)
                return -EBADMSG;
        t.ifindex = e->ifindex;
        if (e->ifindex > 0 || per_napi(kind)) {
                r = current_ifindex(o, kind, e->device, e->key);
                if (r == -ENODEV || (r >= 0 && e->ifindex > 0 && r != e->ifindex)) {
                        *ret_gone = true;
                        return 0;
                }
                if (r < 0 && r != -EOPNOTSUPP)
                        return r;
        }
        r = kernel_write(o, &t, e->original);
        if (r == -ENOENT) {
                *ret_gone = true;
                return 0;
        }
        return r;
}

int owner_restore_all(Owner *o) {
        int failed = 0, persist_error = 0;
        bool progress;

        o->generation++;
        if (!o->journal)
                return 0;
        if (o->dry_run) {
                if (journal_size(o->journal) > 0)
                        log_notice("dry-run: %zu values in %s would be restored; not restoring them",
                                   journal_size(o->journal), journal_path(o->journal));
                return 0;
        }
        /*
         * Keep going after any failure: every other original still belongs back
         * in the kernel. And go round again while a round restored something:
         * some values depend on others, so a value refused before its partner
         * was restored may be accepted after it.
         */
        do {
                progress = false;
                failed = 0;
                for (size_t i = 0; i < journal_size(o->journal);) {
                        const JournalEntry *e = journal_at(o->journal, i);
                        _cleanup_(freep) char *key = strdup(e->key), *name = strdup(e->name),
                                              *original = strdup(e->original), *device = strdup(e->device),
                                              *e_kind = strdup(e->kind);
                        bool gone;
                        int r;

                        if (!key || !name || !original || !device || !e_kind)
                                return -ENOMEM;
                        Held *h = find_held(o, key);
                        _cleanup_(freep) char *now = NULL;
                        if (h && h->expected && owner_read(o, &h->t, &now) >= 0 && changed_outside(h, now)) {
                                /* Changed since netpolld wrote it: somebody else's, not written over. */
                                mark_external(o, h, now);
                                if (journal_get(o->journal, key)) {
                                        /* its entry could not be dropped: skip it, never write over it */
                                        persist_error = persist_error ?: -EIO;
                                        i++;
                                        continue;
                                }
                                progress = true;
                                continue;
                        }
                        r = restore_entry(o, e, &gone);
                        if (r < 0) {
                                failed++;
                                i++;
                                continue;
                        }
                        r = journal_forget(o->journal, key);
                        if (r < 0) {
                                /* Restored, but still listed: no progress, or a full disk would loop here. */
                                if (!persist_error)
                                        persist_error = r;
                                i++;
                                continue;
                        }
                        progress = true;
                        h = find_held(o, key);
                        if (h)
                                drop_held(o, h);
                        if (gone && streq(e_kind, "thread"))
                                /* Threads end with their instance's threaded mode, restored before them. */
                                log_info("%s: the kernel thread has ended; its original CPUs %s go with it", name,
                                         original);
                        else if (gone)
                                log_info("%s: %s is gone or was replaced; its original %s is not written anywhere",
                                         name, *device ? device : key, original);
                        else if (streq(e_kind, JOURNAL_KIND_DROPIN))
                                log_info("%s: removed %s", name, key);
                        else
                                log_fields(LOG_INFO, LOG_FIELDS("KNOB", name, "NEW", original, "REASON", "restore"),
                                           "restored %s to %s", name, original);
                }
        } while (failed > 0 && progress);

        /*
         * Everything was written back but the journal could not be rewritten
         * (a full disk): removing the whole file needs no space.
         */
        if (failed == 0 && persist_error < 0 && journal_discard(o->journal) >= 0)
                persist_error = 0;

        /* What is left failed in the last round: say why, once each, without writing again. */
        for (size_t i = 0; i < journal_size(o->journal); i++) {
                const JournalEntry *e = journal_at(o->journal, i);
                log_warning("could not restore %s (%s) to %s; it stays in %s", e->name, e->key, e->original,
                            journal_path(o->journal));
        }
        return persist_error < 0 ? persist_error : (int)journal_size(o->journal);
}

uint64_t owner_generation(const Owner *o) {
        return o ? o->generation : 0;
}

int owner_discard(Owner *o) {
        o->generation++;
        for (size_t i = 0; i < o->n_held; i++)
                held_done(&o->held[i]);
        o->n_held = 0;
        return o->journal ? journal_discard(o->journal) : 0;
}
