/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysctld.c: the sysctl.d line that sets a sysctl (see sysctld.h).
 */
#include "sysctld.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "strv.h"
#include "sysroot.h"
#include "textfile.h"

/* systemd-sysctl's search path, highest priority first. */
static const char *const sysctld_dirs[] = {
        "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
};
/* The file procps' sysctl --system applies after sysctl.d. */
#define SYSCTL_CONF "/etc/sysctl.conf"
/* No host has this many sysctl.d files; beyond it the rest is not read. */
#define SYSCTLD_FILES_MAX 1024

void sysctl_setting_done(SysctlSetting *s) {
        free(s->file);
        free(s->value);
        *s = (SysctlSetting){};
}

char *sysctl_key_normalize(const char *key) {
        const char *k = startswith(key, "/proc/sys/");
        const char *sep;
        char *n;

        if (k)
                return strdup(k);
        n = strdup(key);
        if (!n)
                return NULL;
        sep = strpbrk(n, "./");
        if (sep && *sep == '.')
                for (char *p = n; *p; p++)
                        *p = *p == '.' ? '/' : *p == '/' ? '.' : *p;
        return n;
}

typedef struct Search {
        const char *root;
        const char *key; /* normalized */
        SysctlSetting *found;
        SysctldSkipFn skip;
        void *userdata;
        int r;
} Search;

static void skipped(Search *s, const char *file, unsigned line, int r) {
        if (s->skip)
                s->skip(file, line, r, s->userdata);
}

/* Whether the normalized line key names s->key (systemd-sysctl matches globs with fnmatch). */
static bool key_matches(const char *pattern, const char *key) {
        if (!strpbrk(pattern, "?*["))
                return streq(pattern, key);
        return fnmatch(pattern, key, FNM_PATHNAME) == 0;
}

static int scan_line(Search *s, const char *file, unsigned line, char *text) {
        _cleanup_(freep) char *key = NULL;
        char *eq, *k = textfile_strip(text), *v;

        if (!*k || *k == '#' || *k == ';')
                return 0;
        eq = strchr(k, '=');
        if (!eq)
                return 0; /* systemd-sysctl ignores it with a warning of its own */
        *eq = '\0';
        v = textfile_strip(eq + 1);
        k = textfile_strip(k);
        if (*k == '-')
                k++;
        key = sysctl_key_normalize(k);
        if (!key)
                return -ENOMEM;
        if (!key_matches(key, s->key))
                return 0;
        sysctl_setting_done(s->found);
        s->found->file = strdup(file);
        s->found->value = strdup(v);
        s->found->line = line;
        if (!s->found->file || !s->found->value)
                return -ENOMEM;
        return 1;
}

/* Reads one file; returns -ENOMEM only, every other problem is skipped and reported. */
static int scan_file(Search *s, const char *path) {
        _cleanup_(fclosep) FILE *f = NULL;
        char buf[TEXTFILE_LINE_MAX + 1];
        size_t total = 0;
        unsigned line = 0;
        int r;

        r = textfile_open(s->root, path, &f, NULL);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT) /* /etc/sysctl.conf need not exist; a file may go between listing and reading */
                return 0;
        if (r < 0) {
                skipped(s, path, 0, r);
                return 0;
        }
        for (;;) {
                r = textfile_line(f, buf, &total);
                if (r == 0)
                        break;
                line++;
                if (r == -E2BIG) {
                        skipped(s, path, line, r);
                        continue;
                }
                if (r < 0) { /* binary, too large or unreadable: the rest of the file is not read */
                        skipped(s, path, r == -EFBIG ? 0 : line, r);
                        break;
                }
                r = scan_line(s, path, line, buf);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether a and b below root are one file (Debian links /etc/sysctl.d/99-sysctl.conf to ../sysctl.conf). */
static bool same_file(const char *root, const char *a, const char *b) {
        _cleanup_(freep) char *fa = NULL, *fb = NULL;
        struct stat sa, sb;

        return sysroot_path(root, a, &fa) >= 0 && sysroot_path(root, b, &fb) >= 0 && stat(fa, &sa) >= 0 &&
               stat(fb, &sb) >= 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static const char *base(const char *path) {
        return strrchr(path, '/') + 1;
}

static int basename_cmp(const void *a, const void *b) {
        return strcmp(base(*(char *const *)a), base(*(char *const *)b));
}

/* Adds dir's *.conf files whose basename no earlier directory has (those mask them). */
static int list_dir(Search *s, const char *dir, char ***files) {
        _cleanup_(freep) char *full = NULL;
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (sysroot_path(s->root, dir, &full) < 0)
                return 0;
        d = opendir(full);
        if (!d) {
                if (errno != ENOENT && errno != ENOTDIR)
                        skipped(s, dir, 0, -errno);
                return 0;
        }
        while (r >= 0 && (de = readdir(d))) {
                size_t len = strlen(de->d_name), n = strv_length(*files);
                bool masked = false;

                if (de->d_name[0] == '.' || len < 6 || !streq(de->d_name + len - 5, ".conf"))
                        continue;
                for (size_t i = 0; i < n && !masked; i++)
                        masked = streq(base((*files)[i]), de->d_name);
                if (masked)
                        continue;
                if (n >= SYSCTLD_FILES_MAX) {
                        skipped(s, dir, 0, -E2BIG);
                        break;
                }
                r = strv_extendf(files, "%s/%s", dir, de->d_name);
        }
        closedir(d);
        return r;
}

int sysctld_find(const char *root, const char *key, SysctlSetting *ret, SysctldSkipFn skip, void *userdata) {
        _cleanup_(strv_freep) char **files = NULL;
        _cleanup_(freep) char *normal = sysctl_key_normalize(key);
        _cleanup_(sysctl_setting_done) SysctlSetting found = {};
        bool conf_seen = false;
        Search s = { .root = root, .key = normal, .found = &found, .skip = skip, .userdata = userdata };
        int r = 0;

        if (!normal)
                return -ENOMEM;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(sysctld_dirs); i++)
                r = list_dir(&s, sysctld_dirs[i], &files);
        if (r < 0)
                return r;
        if (files)
                qsort(files, strv_length(files), sizeof(char *), basename_cmp);
        for (char **f = files; f && *f; f++) {
                r = scan_file(&s, *f);
                if (r < 0)
                        return r;
                conf_seen = conf_seen || same_file(root, *f, SYSCTL_CONF);
        }
        if (!conf_seen) {
                r = scan_file(&s, SYSCTL_CONF);
                if (r < 0)
                        return r;
        }
        if (!found.file)
                return 0;
        *ret = found;
        found = (SysctlSetting){};
        return 1;
}
