/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test-tuned.c: profile import-tuned's reading of tuned profiles: the INI
 * dialect, variables and functions, includes with tuned's merge, and the
 * mapping onto the knob catalog, on the fixture profiles in
 * tests/data/tuned/ (lib/ as /usr/lib/tuned, etc/ as /etc/tuned). The
 * values expected are what tuned 2.20's own loader gives for them.
 *
 * Out-of-memory paths come from a test seam: this program is linked with
 * -Wl,--wrap=strdup (tests/meson.build), so every strdup() of the code under
 * test passes through the wrapper below, which fails the Nth call once armed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf-parser.h"
#include "policy.h"
#include "strv.h"
#include "testutil.h"
#include "tuned-import.h"

/* ---- the seam ---- */

static unsigned strdup_fail_at; /* 0: never; N: the Nth strdup() from now fails */

char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

char *__wrap_strdup(const char *s) {
        if (strdup_fail_at > 0 && --strdup_fail_at == 0) {
                errno = ENOMEM;
                return NULL;
        }
        return __real_strdup(s);
}

static char *lib_dir(void) {
        return tu_data("tuned/lib");
}

/* Loads NAME from tests/data/tuned/lib (and etc/ before it when with_etc). */
static int load(const char *name, bool with_etc, TunedProfile **ret, char **ret_error) {
        _cleanup_(freep) char *lib = lib_dir(), *etc = tu_data("tuned/etc");
        char *dirs[] = { with_etc ? etc : lib, with_etc ? lib : NULL, NULL };

        return tuned_profile_load(name, dirs, ret, ret_error);
}

/* Loads and maps NAME, both of which must succeed; *ret_p keeps the profile (its files own the origins). */
static TunedImport *import(const char *name, bool with_etc, TunedProfile **ret_p) {
        _cleanup_(freep) char *error = NULL;
        TunedImport *imp = NULL;

        ck_assert_msg(load(name, with_etc, ret_p, &error) == 0, "%s: %s", name, strempty(error));
        ck_assert_int_eq(tuned_import(*ret_p, &imp), 0);
        return imp;
}

static int parse_text(const char *text, TunedFile **ret, char **ret_error) {
        _cleanup_(fclosep) FILE *f = fmemopen((void *) text, strlen(text), "r");

        ck_assert_ptr_nonnull(f);
        return tuned_file_parse("test.conf", f, ret, ret_error);
}

/* Whether ASan reserves its shadow memory: then an address space limit would stop the program. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif

/* One call of the code under test, for run_in_child(): its result and message. */
typedef int (*ChildCall)(const void *arg, char **ret_error);

/*
 * call(arg) in a child process, so that a crash fails the test with its
 * signal instead of ending the suite (whether or not Check forks), and,
 * but under ASan, with 1 GiB of address space, so that runaway memory use
 * ends in -ENOMEM instead of taking the machine. Returns the call's result
 * and its *ret_error.
 */
static int run_in_child(ChildCall call, const void *arg, char **ret_error) {
        _cleanup_(freep) char *out = NULL;
        _cleanup_(fclosep) FILE *from_child = NULL;
        size_t n = 0;
        int fds[2], status, r, k = 0;
        pid_t pid;

        ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                _cleanup_(freep) char *error = NULL;
                FILE *to_parent = fdopen(fds[1], "w");
#ifndef TU_ASAN
                struct rlimit limit = { .rlim_cur = 1UL << 30, .rlim_max = 1UL << 30 };

                (void) setrlimit(RLIMIT_AS, &limit);
#endif
                r = call(arg, &error);
                fprintf(to_parent, "%d %s", r, strempty(error));
                _exit(fclose(to_parent) == 0 ? 0 : 100);
        }
        close(fds[1]);
        from_child = fdopen(fds[0], "r");
        ck_assert_ptr_nonnull(from_child);
        if (getdelim(&out, &n, '\0', from_child) < 0)
                out = NULL;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the code under test did not return: %s %d",
                      WIFSIGNALED(status) ? "killed by signal" : "exit status",
                      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        ck_assert_msg(out && sscanf(out, "%d %n", &r, &k) == 1 && k > 0, "no result from the child");
        *ret_error = out[k] ? strdup(out + k) : NULL;
        return r;
}

static int call_parse(const void *text, char **ret_error) {
        _cleanup_(tuned_file_freep) TunedFile *f = NULL;
        _cleanup_(fclosep) FILE *in = fmemopen((void *) text, strlen(text), "r");

        return in ? tuned_file_parse("test.conf", in, &f, ret_error) : -ENOMEM;
}

/* tuned_file_parse() of text, in a child. */
static int parse_in_child(const char *text, char **ret_error) {
        return run_in_child(call_parse, text, ret_error);
}

static int call_load_and_import(const void *path, char **ret_error) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        int r;

        r = tuned_profile_load(path, NULL, &p, ret_error);
        return r < 0 ? r : tuned_import(p, &imp);
}

/* Writes text as the profile DIR/NAME/tuned.conf; returns DIR/NAME (caller frees). */
static char *write_profile(const char *dir, const char *name, const char *text) {
        _cleanup_(freep) char *rel = NULL;

        ck_assert_int_ge(asprintf(&rel, "%s/tuned.conf", name), 0);
        tu_write(dir, rel, text, 0644);
        return tu_join(dir, name);
}

/* Loads text as the profile DIR/NAME/tuned.conf of a fresh directory (removed again); *ret_dir to remove. */
static int load_text(const char *name, const char *text, TunedProfile **ret, char **ret_error, char **ret_dir) {
        _cleanup_(freep) char *path = NULL;

        *ret_dir = tu_mkdtemp();
        path = write_profile(*ret_dir, name, text);
        return tuned_profile_load(path, NULL, ret, ret_error);
}

/* text, then c repeated n times, then tail; caller frees. */
static char *repeat(const char *text, char c, size_t n, const char *tail) {
        size_t a = strlen(text), b = strlen(tail);
        char *s = malloc(a + n + b + 1);

        ck_assert_ptr_nonnull(s);
        memcpy(s, text, a);
        memset(s + a, c, n);
        memcpy(s + a + n, tail, b + 1);
        return s;
}

static const TunedKnob *find_knob(const TunedImport *imp, const char *name) {
        for (size_t i = 0; i < imp->n_knobs; i++)
                if (streq(imp->knobs[i].knob, name))
                        return &imp->knobs[i];
        return NULL;
}

/* The note about the tuned line whose text starts with prefix, or NULL. */
static const TunedNote *find_note(const TunedImport *imp, const char *prefix) {
        for (size_t i = 0; i < imp->n_skipped; i++)
                if (imp->skipped[i].text && startswith(imp->skipped[i].text, prefix))
                        return &imp->skipped[i];
        return NULL;
}

static void assert_knob(const TunedImport *imp, const char *name, const char *value, const char *kernel) {
        const TunedKnob *k = find_knob(imp, name);

        ck_assert_msg(k, "no %s in the import", name);
        ck_assert_str_eq(k->value, value);
        ck_assert_str_eq(k->kernel, kernel);
}

START_TEST(test_tuned_ini_reads_configparser_dialect) {
        _cleanup_(tuned_file_freep) TunedFile *f = NULL;
        _cleanup_(freep) char *error = NULL;
        TunedSection *s;

        ck_assert_int_eq(parse_text("; comment\n"
                                    "[sysctl]\n"
                                    "a = 1 # inline comment\n"
                                    "b=x#y\n"
                                    "c = first\n"
                                    "    second\n"
                                    "\n"
                                    "    third\n"
                                    "a = 2\n"
                                    "[cpu]\n"
                                    "governor=performance\n"
                                    "[sysctl]\n"
                                    "d=4\n",
                                    &f, &error), 0);
        ck_assert_uint_eq(f->n_sections, 2);
        s = tuned_file_section(f, "sysctl");
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(s->n_options, 4);
        /* A key set again keeps its first place and takes the later value and line. */
        ck_assert_str_eq(s->options[0].key, "a");
        ck_assert_str_eq(s->options[0].value, "2");
        ck_assert_uint_eq(s->options[0].line, 9);
        ck_assert_str_eq(s->options[1].value, "x#y");
        ck_assert_str_eq(s->options[2].value, "first\nsecond\n\nthird");
        ck_assert_str_eq(s->options[3].key, "d");
        ck_assert_str_eq(s->options[3].text, "d=4");
}
END_TEST

START_TEST(test_tuned_ini_rejects_bad_lines_naming_file_and_line) {
        _cleanup_(tuned_file_freep) TunedFile *f = NULL;
        _cleanup_(freep) char *error = NULL, *error2 = NULL, *error3 = NULL;

        ck_assert_int_eq(parse_text("[main]\nsummary=x\n\nnot a key\n", &f, &error), -EBADMSG);
        ck_assert_ptr_null(f);
        ck_assert_msg(startswith(error, "test.conf:4: "), "%s", error);
        ck_assert_int_eq(parse_text("key=before any section\n", &f, &error2), -EBADMSG);
        ck_assert_msg(startswith(error2, "test.conf:1: "), "%s", error2);
        ck_assert_int_eq(parse_text("[sysctl]\n = 5\n", &f, &error3), -EBADMSG);
        ck_assert_msg(startswith(error3, "test.conf:2: "), "%s", error3);
}
END_TEST

START_TEST(test_tuned_ini_refuses_a_12_mb_line_without_crashing) {
        _cleanup_(freep) char *longest = repeat("[sysctl]\n#", 'x', TUNED_LINE_MAX - 1, "\n"),
                               *over = repeat("[sysctl]\n#", 'x', TUNED_LINE_MAX, "\n"),
                               *huge = repeat("[sysctl]\nnet.core.busy_read=", '5', 12 * 1024 * 1024, "\n"),
                               *e1 = NULL, *e2 = NULL, *e3 = NULL;

        ck_assert_int_eq(parse_in_child(huge, &e1), -EBADMSG);
        ck_assert_msg(streq(e1, "test.conf:2: line too long (more than 4095 bytes)"), "%s", e1);
        /* A line of TUNED_LINE_MAX bytes is read; one byte more is refused, naming the line. */
        ck_assert_int_eq(parse_in_child(longest, &e2), 0);
        ck_assert_int_eq(parse_in_child(over, &e3), -EBADMSG);
        ck_assert_msg(streq(e3, "test.conf:2: line too long (more than 4095 bytes)"), "%s", e3);
}
END_TEST

START_TEST(test_tuned_messages_cut_what_they_repeat) {
        _cleanup_(freep) char *huge = repeat("[main]\nnot a key ", 'y', 4 * 1024 * 1024, "\n"),
                               *longline = repeat("[main]\nnot a key ", 'y', 4000, "\n"),
                               *longvalue = repeat("[sysctl]\nnet.core.busy_read = ", '7', 4000, "x\n"),
                               *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *dir = NULL;
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        const TunedNote *n;

        /* A 4 MB line is refused by its length without being repeated. */
        ck_assert_int_eq(parse_in_child(huge, &e1), -EBADMSG);
        ck_assert_msg(strlen(e1) < 100, "%zu bytes: %.200s", strlen(e1), e1);
        /* A bad line of 4000 bytes is repeated up to 64 bytes and "...". */
        ck_assert_int_eq(parse_in_child(longline, &e2), -EBADMSG);
        ck_assert_msg(strstr(e2, "'not a key yyyy") && strstr(e2, "y...'"), "%.200s", e2);
        ck_assert_msg(strlen(e2) < 200, "%zu bytes: %.200s", strlen(e2), e2);

        /* A value that is not imported: the report repeats its start only. */
        ck_assert_int_eq(load_text("long-value", longvalue, &p, &e3, &dir), 0);
        ck_assert_int_eq(tuned_import(p, &imp), 0);
        ck_assert_uint_eq(imp->n_skipped, 1);
        n = &imp->skipped[0];
        ck_assert_msg(strstr(n->reason, "'7777") && strstr(n->reason, "7...'"), "%.200s", n->reason);
        ck_assert_msg(strlen(n->reason) < 200, "%zu bytes: %.200s", strlen(n->reason), n->reason);
        tu_rm_rf(dir);

        /* Continuation lines make a value at most TUNED_VALUE_MAX bytes long. */
        free(longvalue);
        longvalue = repeat("[sysctl]\nkey = 1\n", '\n', TUNED_VALUE_MAX, " 2\n");  /* blank lines are part of it */
        ck_assert_int_eq(parse_in_child(longvalue, &e4), -EBADMSG);
        ck_assert_msg(streq(e4, "test.conf:65539: the value of 'key' grows past 65536 bytes with this line"), "%s", e4);
}
END_TEST

START_TEST(test_tuned_expand_variables_and_reproducible_functions) {
        _cleanup_(tuned_vars_done) TunedVars v = {};
        static const struct {
                const char *in, *out;
        } ok[] = {
                { "${a}0", "50" },
                { "${f:strip:  x : y }", "x  y" },
                { "${f:kb2s:${a}}", "10" },
                { "${f:s2kb:3}", "2" },  /* round(1.5) = 2 */
                { "${f:s2kb:5}", "2" },  /* round(2.5) = 2: halves go to even */
                { "${f:s2kb:-3}", "-2" },
                { "${f:s2kb:8}", "4" },
                { "plain", "plain" },
        };
        /* An escaped "\${a}" is written literally by tuned: never a number, so refused too. */
        static const char *const refused[] = { "${nosuch}", "\\${a}", "${f:cpulist_online:0-3}", "${f:kb2s:x}",
                                               "${unknown}" };

        ck_assert_int_eq(tuned_vars_set(&v, "a", "5", NULL), 0);
        ck_assert_int_eq(tuned_vars_set(&v, "unknown", NULL, "from the host"), 0);
        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                _cleanup_(freep) char *out = NULL, *reason = NULL;

                ck_assert_msg(tuned_expand(&v, ok[i].in, &out, &reason) == 0, "%s: %s", ok[i].in, strempty(reason));
                ck_assert_str_eq(out, ok[i].out);
        }
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                _cleanup_(freep) char *out = NULL, *reason = NULL;

                ck_assert_int_eq(tuned_expand(&v, refused[i], &out, &reason), -EOPNOTSUPP);
                ck_assert_ptr_null(out);
                ck_assert_ptr_nonnull(reason);
        }
}
END_TEST

START_TEST(test_tuned_variables_are_bounded_once_expanded) {
        _cleanup_(freep) char *dir = tu_mkdtemp(), *doubling = NULL, *wide = NULL, *mapped = NULL, *path = NULL,
                               *x = repeat("", 'x', 4000, ""), *e1 = NULL, *e2 = NULL, *e3 = NULL;
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        size_t size = 0;
        FILE *f;

        /* 40 variables, each two copies of the one before: 2^41 bytes at the end, unless bounded. */
        f = open_memstream(&doubling, &size);
        ck_assert_ptr_nonnull(f);
        fputs("[variables]\na0=xy\n", f);
        for (int i = 1; i <= 40; i++)
                fprintf(f, "a%d=${a%d}${a%d}\n", i, i - 1, i - 1);
        fputs("[sysctl]\nnet.core.busy_read=${a40}\n", f);
        ck_assert_int_eq(fclose(f), 0);
        path = write_profile(dir, "doubling", doubling);
        ck_assert_int_eq(run_in_child(call_load_and_import, path, &e1), -E2BIG);
        /* a0..a13 hold 32798 bytes with their names, a14 32771 more. */
        ck_assert_msg(endswith(e1, "doubling/tuned.conf:16: the [variables] together hold more than 65536 bytes "
                                   "with 'a14'"), "%s", e1);

        /* One variable of 17 copies of 4000 bytes. */
        ck_assert_int_ge(asprintf(&wide, "[variables]\na=%s\nb=${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}"
                                         "${a}${a}${a}${a}${a}\n", x), 0);
        free(path);
        path = write_profile(dir, "wide", wide);
        ck_assert_int_eq(run_in_child(call_load_and_import, path, &e2), -E2BIG);
        ck_assert_msg(endswith(e2, "wide/tuned.conf:3: variable 'b' expands to more than 65536 bytes"), "%s", e2);

        /* A sysctl value of as many copies is not imported, and says why. */
        ck_assert_int_ge(asprintf(&mapped, "[variables]\na=%s\n[sysctl]\nnet.core.busy_read=${a}${a}${a}${a}${a}"
                                           "${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}${a}\n", x), 0);
        free(path);
        path = write_profile(dir, "mapped", mapped);
        ck_assert_int_eq(run_in_child(call_load_and_import, path, &e3), 0);
        ck_assert_int_eq(tuned_profile_load(path, NULL, &p, &e3), 0);
        ck_assert_int_eq(tuned_import(p, &imp), 0);
        ck_assert_uint_eq(imp->n_knobs, 0);
        ck_assert_uint_eq(imp->n_skipped, 1);
        ck_assert_str_eq(imp->skipped[0].reason, "busy-read: the value expands to more than 65536 bytes");
        tu_rm_rf(dir);
}
END_TEST

START_TEST(test_tuned_include_chain_merges_later_over_earlier) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("child", false, &p);
        const TunedKnob *k;

        ck_assert_uint_eq(strv_length(p->files), 3);
        ck_assert_str_eq(p->summary, "Includes two profiles and overrides them");

        /* tuned's own loader gives for child: busy_read 50, netdev_budget 500, dev_weight 32,
         * netdev_max_backlog 3000, busy_poll 25 (tests/integration/tuned-sysctl.py). */
        assert_knob(imp, "busy-read", "50us", "50");
        assert_knob(imp, "busy-poll", "25us", "25");
        assert_knob(imp, "netdev-budget", "500", "500");
        assert_knob(imp, "dev-weight", "32", "32");
        assert_knob(imp, "netdev-max-backlog", "3000", "3000");
        ck_assert_uint_eq(imp->n_knobs, 5);

        k = find_knob(imp, "dev-weight");
        ck_assert_msg(endswith(k->origin.file, "tuned/lib/extra/tuned.conf"), "%s", k->origin.file);
        ck_assert_uint_eq(k->origin.line, 5);
        ck_assert_str_eq(k->origin.text, "net.core.dev_weight=32");

        ck_assert_ptr_nonnull(find_note(imp, "vm.swappiness=10"));
        ck_assert_ptr_nonnull(find_note(imp, "governor=performance"));
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.netdev_budget_usecs=>4000")->reason, "only when"));
}
END_TEST

START_TEST(test_tuned_replace_and_drop) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL, *q = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("replaced", false, &p), *imq = NULL;

        ck_assert_uint_eq(imp->n_knobs, 1);
        assert_knob(imp, "busy-poll", "5us", "5");

        imq = import("dropper", false, &q);
        ck_assert_ptr_null(find_knob(imq, "busy-read"));
        ck_assert_ptr_null(find_note(imq, "vm.swappiness"));
        assert_knob(imq, "netdev-budget", "300", "300");
        assert_knob(imq, "dev-weight", "16", "16");
}
END_TEST

START_TEST(test_tuned_local_dir_extends_vendor_profile_of_same_name) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("base", true, &p);

        ck_assert_uint_eq(strv_length(p->files), 2);
        assert_knob(imp, "busy-read", "99us", "99");
        assert_knob(imp, "netdev-budget", "300", "300");
}
END_TEST

START_TEST(test_tuned_include_loop_is_an_error) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(freep) char *error = NULL;

        ck_assert_int_eq(load("loop-a", false, &p, &error), -ELOOP);
        ck_assert_ptr_null(p);
        ck_assert_msg(strstr(error, "loop-b/tuned.conf:3: include loop"), "%s", error);
}
END_TEST

START_TEST(test_tuned_missing_profile_bad_file_and_missing_include) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(freep) char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *e5 = NULL;

        ck_assert_int_eq(load("no-such-profile", false, &p, &e1), -ENOENT);
        ck_assert_msg(startswith(e1, "no-such-profile: "), "%s", e1);
        ck_assert_int_eq(load("bad", false, &p, &e2), -EBADMSG);
        ck_assert_msg(strstr(e2, "lib/bad/tuned.conf:4: "), "%s", e2);
        /* "-optional-absent" is skipped as tuned skips it; the next name is required. */
        ck_assert_int_eq(load("missing-include", false, &p, &e3), -ENOENT);
        ck_assert_msg(strstr(e3, "missing-include/tuned.conf:2: include: no tuned profile 'no-such-profile'"), "%s", e3);
        ck_assert_int_eq(load("../escape", false, &p, &e4), -ENOENT);
        ck_assert_int_eq(load("bad name", false, &p, &e5), -EINVAL);
        ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_tuned_values_netpolld_cannot_write_the_same_are_reported) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("values", false, &p);

        /* Only the plain number maps; an inline comment is not part of the value. */
        ck_assert_uint_eq(imp->n_knobs, 1);
        assert_knob(imp, "netdev-budget-time", "8000us", "8000");
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.netdev_budget = 300 400")->reason, "plain decimal"));
        ck_assert_ptr_nonnull(find_note(imp, "net.core.dev_weight=064"));       /* octal to the kernel */
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.netdev_max_backlog=0")->reason, "range"));
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.busy_poll=${cpus}")->reason, "cpulist_online"));
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.busy_read=${nowhere}")->reason, "${nowhere}"));
}
END_TEST

START_TEST(test_tuned_conditional_and_disabled_units_are_reported) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("conditional", false, &p);

        ck_assert_uint_eq(imp->n_knobs, 0);
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.busy_read=7")->reason, "uname_regex"));
        ck_assert_ptr_nonnull(strstr(find_note(imp, "net.core.busy_poll=7")->reason, "enabled=false"));
}
END_TEST

START_TEST(test_tuned_format_writes_knobs_with_their_origin_and_the_report) {
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = import("child", false, &p);
        _cleanup_(freep) char *text = NULL, *origin = NULL;
        char *line, *save = NULL;

        text = tuned_import_format(imp, p);
        ck_assert_ptr_nonnull(text);
        ck_assert_ptr_nonnull(strstr(text, "[profile]\ndescription = Imported from tuned profile child\n"));
        ck_assert_int_eq(asprintf(&origin, "# %s:11: net.core.busy_read=${poll}\nbusy-read = 50us\n",
                                  find_knob(imp, "busy-read")->origin.file), (int) strlen(origin));
        ck_assert_msg(strstr(text, origin), "%s", text);
        ck_assert_ptr_nonnull(strstr(text, "\n# Not imported: "));
        ck_assert_ptr_nonnull(strstr(text, "vm.swappiness=10\n#     no netpolld knob writes /proc/sys/vm/swappiness\n"));
        /* netpolld reads lines shorter than 200 characters. */
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_uint_lt(strlen(line), 200);
}
END_TEST

START_TEST(test_tuned_load_survives_every_failing_strdup) {
        /* Every profile of the fixtures with units, so each strdup() of the loader and the mapping fails once. */
        static const char *const names[] = { "child", "replaced", "dropper", "values", "conditional" };
        _cleanup_(freep) char *lib = lib_dir();
        char *dirs[] = { lib, NULL };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                for (unsigned n = 1;; n++) {
                        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
                        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
                        _cleanup_(freep) char *error = NULL;
                        unsigned left;
                        int r;

                        /* Armed around the code under test only: Check's own strdup() calls are wrapped too. */
                        strdup_fail_at = n;
                        r = tuned_profile_load(names[i], dirs, &p, &error);
                        if (r >= 0)
                                r = tuned_import(p, &imp);
                        left = strdup_fail_at;
                        strdup_fail_at = 0;
                        if (left > 0) {
                                /* Fewer than n calls: every one has failed once. */
                                ck_assert_int_eq(r, 0);
                                break;
                        }
                        /* A failed allocation fails the import: never a profile with something left out. */
                        ck_assert_msg(r == -ENOMEM, "%s, strdup %u failing: %d %s", names[i], n, r, strempty(error));
                }
}
END_TEST

/* netpolld's own profile reader on text: every problem it has with it, NULL when none. */
static char **netpolld_problems(const char *dir, const char *text) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *path = tu_join(dir, "imported.conf");
        char **errors = NULL;
        int r;

        tu_write(dir, "imported.conf", text, 0644);
        r = profile_load(&p, path, NULL, &errors);
        if (r < 0 && !errors)
                ck_assert_int_eq(strv_extendf(&errors, "profile_load(): %s", strerror(-r)), 0);
        return errors;
}

START_TEST(test_tuned_long_profile_name_is_refused_up_front) {
        static const char text[] = "[sysctl]\nnet.core.busy_read=50\n";
        _cleanup_(freep) char *dir = tu_mkdtemp(), *name101 = repeat("", 'n', TUNED_NAME_MAX + 1, ""),
                               *name100 = repeat("", 'm', TUNED_NAME_MAX, ""), *name180 = repeat("", 'd', 180, ""),
                               *p101 = write_profile(dir, name101, text), *p100 = write_profile(dir, name100, text),
                               *p180 = write_profile(dir, name180, text), *e1 = NULL, *e2 = NULL, *e3 = NULL,
                               *e4 = NULL, *out = NULL, *out_cut = NULL;
        _cleanup_(tuned_profile_freep) TunedProfile *p = NULL;
        _cleanup_(tuned_import_freep) TunedImport *imp = NULL;
        _cleanup_(strv_freep) char **problems = NULL, **problems_cut = NULL;
        char *dirs[] = { dir, NULL }, *line, *save = NULL;

        /* By name, and by path (the directory's name), before anything is read or written. */
        ck_assert_int_eq(tuned_profile_load(name101, dirs, &p, &e1), -EINVAL);
        ck_assert_msg(startswith(e1, "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...: the profile "
                                     "name is 101 bytes long; at most 100 fit the lines of the netpolld profile"),
                      "%s", e1);
        ck_assert_int_eq(tuned_profile_load(p180, NULL, &p, &e2), -EINVAL);
        ck_assert_msg(strstr(e2, "...: the profile name (the directory's name) is 180 bytes long; at most 100 fit"),
                      "%s", e2);
        ck_assert_int_eq(tuned_profile_load(p101, NULL, &p, &e4), -EINVAL);
        ck_assert_msg(strstr(e4, "...: the profile name (the directory's name) is 101 bytes long"), "%s", e4);
        ck_assert_ptr_null(p);

        /* The longest name the import takes makes a profile netpolld reads. */
        ck_assert_int_eq(tuned_profile_load(p100, NULL, &p, &e3), 0);
        ck_assert_int_eq(tuned_import(p, &imp), 0);
        out = tuned_import_format(imp, p);
        ck_assert_ptr_nonnull(out);
        problems = netpolld_problems(dir, out);
        ck_assert_msg(!problems, "netpolld refuses the import: %s", problems[0]);

        /* A longer name that did not come through tuned_profile_load() is cut, not written whole. */
        free(p->name);
        p->name = repeat("", 'x', 300, "");
        out_cut = tuned_import_format(imp, p);
        ck_assert_ptr_nonnull(out_cut);
        problems_cut = netpolld_problems(dir, out_cut);
        ck_assert_msg(!problems_cut, "netpolld refuses the import: %s", problems_cut[0]);
        for (line = strtok_r(out_cut, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_uint_lt(strlen(line), CONF_LINE_MAX);
        tu_rm_rf(dir);
}
END_TEST

static Suite *tuned_suite(void) {
        Suite *s = suite_create("tuned");
        TCase *tc = tcase_create("tuned");
        tcase_add_test(tc, test_tuned_ini_reads_configparser_dialect);
        tcase_add_test(tc, test_tuned_ini_rejects_bad_lines_naming_file_and_line);
        tcase_add_test(tc, test_tuned_ini_refuses_a_12_mb_line_without_crashing);
        tcase_add_test(tc, test_tuned_messages_cut_what_they_repeat);
        tcase_add_test(tc, test_tuned_expand_variables_and_reproducible_functions);
        tcase_add_test(tc, test_tuned_variables_are_bounded_once_expanded);
        tcase_add_test(tc, test_tuned_include_chain_merges_later_over_earlier);
        tcase_add_test(tc, test_tuned_replace_and_drop);
        tcase_add_test(tc, test_tuned_local_dir_extends_vendor_profile_of_same_name);
        tcase_add_test(tc, test_tuned_include_loop_is_an_error);
        tcase_add_test(tc, test_tuned_missing_profile_bad_file_and_missing_include);
        tcase_add_test(tc, test_tuned_long_profile_name_is_refused_up_front);
        tcase_add_test(tc, test_tuned_values_netpolld_cannot_write_the_same_are_reported);
        tcase_add_test(tc, test_tuned_conditional_and_disabled_units_are_reported);
        tcase_add_test(tc, test_tuned_format_writes_knobs_with_their_origin_and_the_report);
        tcase_add_test(tc, test_tuned_load_survives_every_failing_strdup);
        suite_add_tcase(s, tc);
        return s;
}

TU_MAIN(tuned_suite)
