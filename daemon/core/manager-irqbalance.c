/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * manager-irqbalance.c: keeping irqbalance off the IRQs netpolld steers
 * ([irq] irqbalance-ban = yes). After each steering pass the drop-in
 * (irqbalance-ban.h) is made to list exactly the steered IRQs: journaled
 * (kind "dropin", original "absent") before it is first written, so a stop
 * and the crash replay at the next start remove it with every other
 * original; then systemd reloads and restarts irqbalance.service if it is
 * active, over the daemon's one connection to systemd (unit-watch.h). No
 * IRQs to ban (option off, no steered device, dry run) removes it. Failures
 * are logged and never stop the rest: steering goes on without the ban.
 */
#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "irqbalance-ban.h"
#include "irqpin.h"
#include "log.h"
#include "macro.h"
#include "manager-internal.h"
#include "unit-watch.h"

sd_bus *manager_systemd_bus(Manager *m) {
        int r;

        if (m->systemd || m->systemd_failed || !m->event)
                return m->systemd;
        if (sd_booted() <= 0)
                r = -EHOSTDOWN;
        else {
                r = systemd_bus_open(NULL, &m->systemd);
                if (r >= 0)
                        r = sd_bus_attach_event(m->systemd, m->event, SD_EVENT_PRIORITY_NORMAL);
                if (r < 0)
                        m->systemd = sd_bus_flush_close_unref(m->systemd);
        }
        if (r < 0) {
                m->systemd_failed = true;
                if (r == -EHOSTDOWN)
                        log_notice("systemd is not the service manager here: unit= rules never match and "
                                   "irqbalance is not restarted for irqbalance-ban");
                else
                        log_warning_errno(r, "cannot connect to systemd on the system bus: %m; unit= rules never "
                                          "match and irqbalance is not restarted for irqbalance-ban");
        }
        return m->systemd;
}

/* systemd reads the changed drop-in; irqbalance restarts with it if it runs. */
static void tell_systemd(Manager *m, bool wait) {
        sd_bus *bus;
        int r;

        if (!m->sysroot_live) {
                log_info("%s below %s changed; the sysroot is not the running kernel, so systemd is not asked "
                         "to reload or restart " IRQBALANCE_UNIT, IRQBALANCE_DROPIN, m->sysroot);
                return;
        }
        bus = manager_systemd_bus(m);
        if (!bus)
                return;
        r = systemd_reload_try_restart(bus, IRQBALANCE_UNIT, wait);
        if (r < 0 && !wait)
                log_warning_errno(r, "cannot ask systemd to reload and try-restart " IRQBALANCE_UNIT
                                  ": %m, ignoring");
}

static int ban_irqs(Manager *m, const int *irqs, size_t n) {
        _cleanup_(freep) char *text = NULL;
        const JournalEntry e = {
                .kind = (char *)JOURNAL_KIND_DROPIN, .name = (char *)IRQBALANCE_JOURNAL_NAME, .device = (char *)"",
                .key = (char *)IRQBALANCE_DROPIN, .original = (char *)IRQBALANCE_DROPIN_ABSENT,
        };
        int r;

        r = irqbalance_dropin_format(irqs, n, &text);
        if (r < 0)
                return log_oom();
        /* On disk before the file exists: a crash in between leaves an entry whose removal finds nothing. */
        r = journal_record(m->journal, &e);
        if (r < 0)
                return log_warning_errno(r, "irqbalance-ban: cannot record the drop-in in %s: %m; not writing it, "
                                         "irqbalance may move the steered IRQs", journal_path(m->journal));
        r = irqbalance_dropin_write(m->sysroot, text);
        if (r < 0)
                return log_warning_errno(r, "irqbalance-ban: cannot write %s below %s: %m; irqbalance may move "
                                         "the steered IRQs", IRQBALANCE_DROPIN, m->sysroot);
        if (r > 0)
                log_info("irqbalance-ban: %s bans %zu IRQs", IRQBALANCE_DROPIN, n);
        return r;
}

static int unban(Manager *m) {
        int r = irqbalance_dropin_remove(m->sysroot);

        if (r < 0)
                return log_warning_errno(r, "irqbalance-ban: cannot remove %s below %s: %m", IRQBALANCE_DROPIN,
                                         m->sysroot);
        if (journal_get(m->journal, IRQBALANCE_DROPIN)) {
                int k = journal_forget(m->journal, IRQBALANCE_DROPIN);
                if (k < 0)
                        log_warning_errno(k, "irqbalance-ban: cannot update %s: %m", journal_path(m->journal));
        }
        if (r > 0)
                log_info("irqbalance-ban: removed %s", IRQBALANCE_DROPIN);
        return r;
}

void manager_follow_irqbalance(Manager *m) {
        const IrqConfig *cfg = m->profile ? &m->profile->irq : NULL;
        _cleanup_(freep) int *irqs = NULL;
        size_t n = 0;
        int r = 0;

        if (!m->journal)
                return;
        if (cfg && cfg->irqbalance_ban && cfg->devices && manager_dry_run(m)) {
                if (!m->irqbalance_dry_logged)
                        log_info("dry-run: irqbalance-ban would ban the steered IRQs in %s", IRQBALANCE_DROPIN);
                m->irqbalance_dry_logged = true;
                return;
        }
        if (cfg && cfg->irqbalance_ban && m->irqpin && irqpin_steered_irqs(m->irqpin, &irqs, &n) < 0) {
                log_oom();
                return;
        }
        if (n > 0)
                r = ban_irqs(m, irqs, n);
        else if (journal_get(m->journal, IRQBALANCE_DROPIN) || irqbalance_dropin_exists(m->sysroot) > 0)
                /* Also a stale one a not-on-exit stop left: the file is netpolld's by its name. */
                r = unban(m);
        if (r > 0 || m->irqbalance_replayed) {
                m->irqbalance_replayed = false;
                tell_systemd(m, false);
        }
}

bool manager_irqbalance_journaled(const Manager *m) {
        return m->journal && journal_get(m->journal, IRQBALANCE_DROPIN);
}

void manager_irqbalance_restored(Manager *m, bool was_journaled) {
        if (was_journaled && !manager_irqbalance_journaled(m))
                tell_systemd(m, true);
}
