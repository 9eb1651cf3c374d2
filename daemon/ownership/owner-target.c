/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * owner-target.c: what the owner's targets are (owner.h): their names and
 * kinds, the identity a target takes from its device or NAPI instance, the
 * one read and write of a target's kernel value, and how the kernel's text
 * of a value is compared and checked. The write path that arbitrates the
 * layers, outside changes and the restore are owner.c.
 */
#include "owner.h"
#include "owner-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "macro.h"
#include "sysroot.h"

static const char *const kind_names[_TARGET_KIND_MAX] = {
        [TARGET_SYSCTL] = "sysctl", [TARGET_SYSFS] = "sysfs", [TARGET_IRQ] = "irq",
        [TARGET_RPS] = "rps",       [TARGET_XPS] = "xps",     [TARGET_NAPI] = "napi",
        [TARGET_THREAD] = "thread",
};

const char *target_kind_to_string(TargetKind k) {
        return k >= 0 && k < _TARGET_KIND_MAX ? kind_names[k] : NULL;
}

TargetKind target_kind_from_string(const char *s) {
        for (TargetKind k = 0; s && k < _TARGET_KIND_MAX; k++)
                if (streq(kind_names[k], s))
                        return k;
        return _TARGET_KIND_INVALID;
}

static const char *const origin_names[_ORIGIN_MAX] = {
        [ORIGIN_DEFAULT] = "default", [ORIGIN_PROFILE] = "profile",   [ORIGIN_ADAPTIVE] = "adaptive",
        [ORIGIN_MANUAL] = "manual",   [ORIGIN_EXTERNAL] = "external",
};

const char *origin_to_string(ValueOrigin o) {
        return o >= 0 && o < _ORIGIN_MAX ? origin_names[o] : NULL;
}

/* ---- identity ---------------------------------------------------------------------------- */

/* The ifindex of the device called name now: -ENODEV when there is none. */
static int device_ifindex(const Owner *o, const char *name) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        char *end;
        long v;
        int r;

        if (!ifname_valid(name))
                return -EINVAL;
        if (asprintf(&path, "/sys/class/net/%s/ifindex", name) < 0)
                return -ENOMEM;
        r = sysroot_read_value(o->sysroot, path, &text);
        if (r == -ENOENT || r == -ENOTDIR)
                return -ENODEV;
        if (r < 0)
                return r;
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || *end || v <= 0 || v > INT32_MAX)
                return -EBADMSG;
        return (int)v;
}

/* Values of a NAPI instance (key "napi:ID:..."), read and written by the backend, not in a file. */
bool per_napi(TargetKind kind) {
        return kind == TARGET_NAPI || kind == TARGET_THREAD;
}

/* The ifindex the target's device or NAPI instance has now (-ENODEV: gone), 0 for a value of no device. */
int current_ifindex(const Owner *o, TargetKind kind, const char *device, const char *key) {
        if (per_napi(kind)) {
                Target t = { .kind = kind };
                int r;

                if (!o->have_napi || !o->napi.ifindex)
                        return -EOPNOTSUPP;
                snprintf(t.key, sizeof(t.key), "%s", key);
                r = o->napi.ifindex(o->napi.userdata, &t);
                return r == -ENOENT ? -ENODEV : r;
        }
        return device && *device ? device_ifindex(o, device) : 0;
}

int fill_target(Target *t, TargetKind kind, const char *name, const char *device, const char *key) {
        *t = (Target){ .kind = kind };
        if (snprintf(t->name, sizeof(t->name), "%s", name) >= (int)sizeof(t->name) ||
            snprintf(t->device, sizeof(t->device), "%s", strempty(device)) >= (int)sizeof(t->device) ||
            snprintf(t->key, sizeof(t->key), "%s", key) >= (int)sizeof(t->key) || !journal_key_valid(t->key))
                return -EINVAL;
        return 0;
}

/* fill_target() and the identity the device or NAPI instance has now. */
int make_target(const Owner *o, TargetKind kind, const char *name, const char *device, const char *key,
                       Target *ret) {
        Target t;
        int r;

        r = fill_target(&t, kind, name, device, key);
        if (r < 0)
                return r;
        r = current_ifindex(o, kind, device, key);
        if (r < 0)
                return r;
        t.ifindex = r;
        *ret = t;
        return 0;
}

int owner_file_target(const Owner *o, TargetKind kind, const char *name, const char *device, const char *path,
                      Target *ret) {
        if (kind < 0 || kind >= _TARGET_KIND_MAX || per_napi(kind) || !name || !path || startswith(path, "napi:"))
                return -EINVAL;
        return make_target(o, kind, name, device, path, ret);
}

int owner_napi_target(const Owner *o, const char *name, const char *device, uint32_t napi_id, const char *knob,
                      Target *ret) {
        char key[64];

        if (!name || !device || !*device || napi_id == 0 || !knob)
                return -EINVAL;
        snprintf(key, sizeof(key), "napi:%" PRIu32 ":%s", napi_id, knob);
        return make_target(o, TARGET_NAPI, name, device, key, ret);
}

int owner_thread_target(const Owner *o, const char *name, const char *device, uint32_t napi_id, const char *value,
                        Target *ret) {
        Target t;
        int r = owner_napi_target(o, name, device, napi_id, value, &t);

        if (r < 0)
                return r;
        t.kind = TARGET_THREAD;
        *ret = t;
        return 0;
}

/* ---- kernel I/O ---------------------------------------------------------------------------- */

int owner_read(const Owner *o, const Target *t, char **ret) {
        if (per_napi(t->kind))
                return o->have_napi ? o->napi.read(o->napi.userdata, t, ret) : -EOPNOTSUPP;
        return sysroot_read_value(o->sysroot, t->key, ret);
}

int kernel_write(const Owner *o, const Target *t, const char *value) {
        if (per_napi(t->kind))
                return o->have_napi ? o->napi.write(o->napi.userdata, t, value) : -EOPNOTSUPP;
        return sysroot_write_value(o->sysroot, t->key, value);
}

/* Both texts as one integer each, when they are. */
static bool parse_u64(const char *s, uint64_t *ret) {
        char *end;

        while (*s == ' ' || *s == '\t')
                s++;
        if (!(*s >= '0' && *s <= '9'))
                return false;
        errno = 0;
        *ret = strtoull(s, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\n')
                end++;
        return errno == 0 && *end == 0;
}

/* Compares word by word, ignoring how much white space separates them. */
static bool words_equal(const char *a, const char *b) {
        for (;;) {
                while (*a == ' ' || *a == '\t' || *a == '\n')
                        a++;
                while (*b == ' ' || *b == '\t' || *b == '\n')
                        b++;
                if (!*a || !*b)
                        return !*a && !*b;
                for (; *a && *b && !strchr(" \t\n", *a); a++, b++)
                        if (*a != *b)
                                return false;
                if (!strchr(" \t\n", *a) || !strchr(" \t\n", *b))
                        return false;
        }
}

bool owner_value_equal(TargetKind kind, const char *a, const char *b) {
        CpuSet x, y;
        uint64_t u, v;

        if (!a || !b)
                return false;
        switch (kind) {
        case TARGET_IRQ:
        case TARGET_THREAD:
                return cpuset_parse_list(a, &x, NULL) >= 0 && cpuset_parse_list(b, &y, NULL) >= 0 &&
                       cpuset_equal(&x, &y);
        case TARGET_RPS:
        case TARGET_XPS:
                return cpuset_parse_mask(a, &x, NULL) >= 0 && cpuset_parse_mask(b, &y, NULL) >= 0 &&
                       cpuset_equal(&x, &y);
        default:
                if (parse_u64(a, &u) && parse_u64(b, &v))
                        return u == v;
                return words_equal(a, b);
        }
}

/* Whether text is what the kernel shows for this kind; nothing else is journaled or compared. */
bool kernel_text_valid(TargetKind kind, const char *s) {
        CpuSet x;
        bool any = false;

        switch (kind) {
        case TARGET_IRQ:
        case TARGET_THREAD:
                return cpuset_parse_list(s, &x, NULL) >= 0;
        case TARGET_RPS:
        case TARGET_XPS:
                return cpuset_parse_mask(s, &x, NULL) >= 0;
        default:
                /* A number, or a tuple of them separated by blanks (tcp_rmem-style sysctls). */
                for (const char *p = s;;) {
                        p += strspn(p, " \t");
                        if (!*p)
                                return any;
                        if (*p == '-')
                                p++;
                        size_t n = strspn(p, "0123456789");
                        if (n == 0 || (p[n] && !strchr(" \t", p[n])))
                                return false;
                        p += n;
                        any = true;
                }
        }
}

const char *kind_expects(TargetKind kind) {
        return kind == TARGET_IRQ || kind == TARGET_THREAD ? "a CPU list"
               : kind == TARGET_RPS || kind == TARGET_XPS ? "a hex CPU mask"
                                                          : "a number";
}

/* What a failed read or write of a kernel file means, in words. */
const char *io_error_text(int r) {
        switch (r) {
        case -ENODATA:
                return "the file is empty";
        case -EBADMSG:
                return "the content is not one line of a value (too long, or with NUL bytes or several lines)";
        case -EISDIR:
                return "it is a directory, not a file";
        case -ENOENT:
                return "the file is gone";
        default:
                return strerror(-r);
        }
}
