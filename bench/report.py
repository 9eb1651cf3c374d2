#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/report.py: turns one benchmark run's raw rows into results.

    report.py OUTDIR

reads OUTDIR/runs.csv (one row per measured window, written by bench/run),
OUTDIR/cost.txt and OUTDIR/meta.txt (key=value lines), and writes
OUTDIR/summary.csv, OUTDIR/results.md and, when gnuplot is there, PNG plots.

Every figure is a median over repetitions. Because the host's steal time
comes in bursts, each configuration is also compared with the untuned run of
the same scenario and repetition (they ran back to back): the "paired ratio"
columns are medians of those per-repetition ratios, which a burst that hits
one repetition cannot move much. Standard library only.
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys

CONFIGS = ["untuned", "static", "latency", "balanced"]
CONFIG_TITLE = {"untuned": "A untuned", "static": "B static 50us",
                "latency": "C netpolld latency", "balanced": "D netpolld balanced"}
SCENARIOS = ["one", "sixteen", "two-on-one", "hog", "many"]
SCENARIO_TITLE = {"one": "1 session", "sixteen": "16 sessions",
                  "two-on-one": "2 sessions, one CPU", "hog": "1 session + CPU hog",
                  "many": "1 session + many antagonists"}
# Short enough for the x axis of a plot.
PLOT_TITLE = {"one": "1 session", "sixteen": "16 sessions", "two-on-one": "2 sessions, 1 CPU",
              "hog": "1 + CPU hog", "many": "1 + antagonists"}
STEAL_FLAG = 1.0    # percent


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=0):
    if v is None:
        return "–"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def read_kv(path):
    kv = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if "=" in line:
                    k, v = line.split("=", 1)
                    kv[k] = v
    return kv


def load_runs(path):
    """The rr part's rows, None when it did not run."""
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Cell:
    """All repetitions of one (scenario, config, client)."""

    def __init__(self, rows):
        self.rows = rows
        self.by_rep = {r["rep"]: r for r in rows}

    def med(self, key):
        return median(num(r[key]) for r in self.rows)

    def flagged(self):
        return [r for r in self.rows if (num(r["steal_pct"]) or 0) > STEAL_FLAG]


def paired(cells, scen, client, config, key):
    """Per-repetition ratios config/untuned of KEY, and their median."""
    base = cells.get((scen, "untuned", client))
    cell = cells.get((scen, config, client))
    if not base or not cell:
        return [], None
    ratios = []
    for rep, row in sorted(cell.by_rep.items(), key=lambda kv: int(kv[0])):
        b = base.by_rep.get(rep)
        x, y = num(row[key]), num(b[key]) if b else None
        if x is not None and y:
            ratios.append(x / y)
    return ratios, median(ratios)


def summarize(runs):
    cells = {}
    groups = {}
    for r in runs:
        groups.setdefault((r["scenario"], r["config"], r["client"]), []).append(r)
    for k, rows in groups.items():
        cells[k] = Cell(rows)
    return cells


def write_summary_csv(path, cells):
    cols = ["scenario", "config", "client", "reps", "tps", "p50_us", "p90_us", "p99_us",
            "max_us", "tps_ratio", "p99_ratio", "antagonist_bogo_ops_s",
            "antagonist_ratio", "cpu_busy_pct", "steal_max_pct", "steal_flagged_runs",
            "adaptive_changes", "daemon_mode", "sock_busy_read_us"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for (scen, config, client), c in sorted(cells.items(), key=lambda kv: (
                SCENARIOS.index(kv[0][0]) if kv[0][0] in SCENARIOS else 99, kv[0][2],
                CONFIGS.index(kv[0][1]) if kv[0][1] in CONFIGS else 99)):
            def r3(v):
                return "" if v is None else f"{v:.3f}"
            w.writerow([scen, config, client, len(c.rows), r3(c.med("tps")),
                        r3(c.med("p50_us")), r3(c.med("p90_us")), r3(c.med("p99_us")),
                        r3(c.med("max_us")),
                        r3(paired(cells, scen, client, config, "tps")[1]),
                        r3(paired(cells, scen, client, config, "p99_us")[1]),
                        r3(c.med("antagonist_bogo_ops_s")),
                        r3(paired(cells, scen, client, config, "antagonist_bogo_ops_s")[1]),
                        r3(c.med("cpu_busy_pct")),
                        r3(max((num(r["steal_pct"]) or 0) for r in c.rows)),
                        len(c.flagged()),
                        sum(int(r["adaptive_changes"] or 0) for r in c.rows),
                        ";".join(sorted({r["daemon_mode"] for r in c.rows})),
                        ";".join(sorted({r.get("sock_busy_read", "NA") for r in c.rows}))])


def ratio_text(ratios, med):
    if med is None:
        return "–"
    return f"**{med:.2f}×** ({', '.join(f'{x:.2f}' for x in ratios)})"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def client_tables(cells, client, scenarios):
    md = []
    rows = []
    for s in scenarios:
        row = [SCENARIO_TITLE[s]]
        for cfg in CONFIGS:
            c = cells.get((s, cfg, client))
            if not c:
                row.append("–")
                continue
            mark = " †" if c.flagged() else ""
            row.append(f"{fmt(c.med('tps'))} / {fmt(c.med('p50_us'), 1)} / "
                       f"{fmt(c.med('p99_us'), 1)}{mark}")
        rows.append(row)
    md.append(table(["scenario"] + [CONFIG_TITLE[c] for c in CONFIGS], rows))
    md.append("")
    md.append("Cells: median transactions/s / p50 µs / p99 µs (round trips). "
              f"† = at least one repetition had host steal time above {STEAL_FLAG:g} %.")
    md.append("")
    rows = []
    for s in scenarios:
        row = [SCENARIO_TITLE[s]]
        for cfg in CONFIGS[1:]:
            t = paired(cells, s, client, cfg, "tps")
            p = paired(cells, s, client, cfg, "p99_us")
            row.append(f"tps {ratio_text(*t)}<br>p99 {ratio_text(*p)}")
        rows.append(row)
    md.append(table(["scenario"] + [f"{CONFIG_TITLE[c]} ÷ A" for c in CONFIGS[1:]], rows))
    md.append("")
    md.append("Paired ratios against untuned (A) of the same repetition: median, then each "
              "repetition in order. tps above 1 and p99 below 1 are improvements.")
    return "\n".join(md)


def antagonist_table(cells, runs):
    scen_with = [s for s in SCENARIOS if any(r["scenario"] == s and r["antagonist"] != "-"
                                             for r in runs)]
    rows = []
    for s in scen_with:
        for client in ("rr", "sockperf"):
            if not any((s, cfg, client) in cells for cfg in CONFIGS):
                continue
            spec = next((r["antagonist"] for r in runs if r["scenario"] == s), "-")
            workers, _, cpus = spec.partition("@")
            row = [f"{SCENARIO_TITLE[s]}, {client} run: {workers} worker{'s' if workers != '1' else ''} "
                   f"on CPU{'s' if '+' in cpus else ''} {cpus.replace('+', ',')}"]
            for cfg in CONFIGS:
                c = cells.get((s, cfg, client))
                v = c.med("antagonist_bogo_ops_s") if c else None
                if cfg == "untuned":
                    row.append(fmt(v))
                else:
                    _, m = paired(cells, s, client, cfg, "antagonist_bogo_ops_s")
                    row.append(f"{fmt(v)} ({m:.2f}×)" if m is not None else fmt(v))
            rows.append(row)
    if not rows:
        return "No scenario with antagonists was run."
    return (table(["antagonists (stress-ng --cpu, int64)"] + [CONFIG_TITLE[c] for c in CONFIGS],
                  rows) +
            "\n\nMedian bogo-ops/s of the stress-ng workers while the client ran (paired ratio "
            "against untuned). Below 1× means the configuration took CPU from them.")


def steal_table(cells, runs):
    rows = []
    for cfg in CONFIGS:
        rs = [r for r in runs if r["config"] == cfg]
        if not rs:
            continue
        st = [num(r["steal_pct"]) or 0 for r in rs]
        busy = median(num(r["cpu_busy_pct"]) for r in rs)
        n_flag = sum(1 for x in st if x > STEAL_FLAG)
        load = median(num(r["loadavg"]) for r in rs)
        rows.append([CONFIG_TITLE[cfg], str(len(rs)), str(n_flag), f"{statistics.median(st):.2f}",
                     f"{max(st):.2f}", fmt(busy, 1), fmt(load, 2)])
    t = table(["configuration", "windows", f"steal > {STEAL_FLAG:g} %", "median steal %",
               "max steal %", "median CPU busy %", "median load average"], rows)
    flagged = [r for r in runs if (num(r["steal_pct"]) or 0) > STEAL_FLAG]
    if flagged:
        t += "\n\nFlagged windows: " + ", ".join(
            f"rep {r['rep']} {r['scenario']}/{r['config']}/{r['client']} {num(r['steal_pct']):.1f} %"
            for r in flagged)
    return t


def daemon_table(runs):
    rows = []
    for cfg in ("latency", "balanced"):
        for scen in SCENARIOS:
            rs = [r for r in runs if r["config"] == cfg and r["scenario"] == scen]
            if not rs:
                continue
            rr = [r for r in rs if r["client"] == "rr"]
            modes = ", ".join(sorted({r["daemon_mode"] for r in rs}))
            changes = [r["adaptive_changes"] for r in rr]
            at_start = sorted({r["busy_read"] for r in rr})
            sock = sorted({r.get("sock_busy_read", "NA") for r in rr})
            rows.append([CONFIG_TITLE[cfg], SCENARIO_TITLE[scen], modes, ", ".join(changes),
                         ", ".join(at_start), ", ".join(sock)])
    if not rows:
        return "netpolld was not part of this run."
    return (table(["configuration", "scenario", "Mode", "adaptive changes per run",
                   "busy_read at start (µs)", "rr sockets' SO_BUSY_POLL (µs)"], rows) +
            "\n\nAdaptive changes are counted from netpolld's KnobChanged signals during each "
            "run (rr and sockperf windows together). net.core.busy_read is copied into a "
            "socket when it is created: a change made while a connection is open does not "
            "reach it, which the last column shows.")


def cost_section(cost):
    if not cost:
        return "The daemon cost phase was not run."
    rows = []

    def row(name, p, note):
        if f"{p}_cpu_s_per_min" not in cost:
            return [name, "–", "–", "–", "–", "–", cost.get(f"{p}_unavailable", "not measured")]
        rss = (f"{int(cost[f'{p}_rss_kb']) / 1024:.1f} MiB (peak {int(cost[f'{p}_hwm_kb']) / 1024:.1f})"
               if cost.get(f"{p}_rss_kb") else "–")  # a kernel thread has none
        return [name, rss,
                f"{float(cost[f'{p}_cpu_s_per_min']):.4f}",
                f"{100 * float(cost[f'{p}_cpu_s_per_min']) / 60:.3f} %",
                cost.get(f"{p}_wakeups_per_s", "–"),
                f"{float(cost[f'{p}_startup_cpu_s']):.2f}", note]
    rows.append(row(f"netpolld {cost.get('netpolld_version', '')} (latency profile)", "netpolld",
                    f"mode {cost.get('netpolld_mode', '?')}, interval "
                    f"{int(cost.get('netpolld_interval_us', '0')) / 1000:g} ms, "
                    f"{cost.get('netpolld_window_s', '?')} s window"))
    def psimon(p):
        # The kernel thread evaluating the trigger, measured in the same window (bench/lib/cost.sh).
        if f"{p}_psimon_cpu_s_per_min" in cost:
            rows.append(row("+ psimon (kernel thread)", f"{p}_psimon",
                            "evaluates the CPU pressure trigger; the same window"))

    def controller(p):
        # What the controller did in that window (bench/lib/cost.sh cost_traffic).
        if f"{p}_samples_per_s" not in cost:
            return ""
        return (f"; {cost[f'{p}_samples_per_s']} samples/s, wake-ups by trigger "
                f"{cost.get(f'{p}_trigger_wakeups', '?')} and by watch {cost.get(f'{p}_watch_wakeups', '?')}, "
                f"{cost.get(f'{p}_yields', '?')} yields, CPU pressure some {cost.get(f'{p}_psi_some_pct', '?')} %")

    def mild(p, name):
        # The same traffic with bench/mildpressure.c holding pressure over the trigger, under the yield rule.
        if f"{p}_mps" in cost or f"{p}_unavailable" in cost:
            rows.append(row(name, p, "the same traffic with steady mild CPU pressure on CPU 0 "
                            "(bench/mildpressure.c: 1 ms of waiting every 20 ms, over the trigger, under the "
                            f"yield rule); {cost.get(f'{p}_window_s', '?')} s window" + controller(p)))
            psimon(p)

    psimon("netpolld")
    wake = cost.get("netpolld_cpu_wake", "not recorded")
    rows.append(row(f"netpolld, {cost.get('netpolld_traffic_mps', '?')} msg/s on loopback", "netpolld_traffic",
                    ("the same daemon with traffic, resting while no task waits: " if wake.startswith("CPU pressure trigger: armed") else
                     "the same daemon with traffic, sampling every interval: ") +
                    f"{wake}; {cost.get('netpolld_traffic_window_s', '?')} s window" + controller("netpolld_traffic")))
    psimon("netpolld_traffic")
    mild("netpolld_mild", "netpolld, the same traffic under mild CPU pressure")
    if "netpolld_armed_traffic_mps" in cost or "netpolld_armed_traffic_unavailable" in cost:
        armed = cost.get("netpolld_armed_cpu_wake", "not armed")
        rows.append(row(f"netpolld, trigger on a passed file, "
                        f"{cost.get('netpolld_armed_traffic_mps', '?')} msg/s", "netpolld_armed_traffic",
                        f"pressure file opened in a user namespace, passed as OpenFile= would; traffic: {armed}, "
                        f"resting while no task waits; {cost.get('netpolld_armed_traffic_window_s', '?')} s window"
                        + controller("netpolld_armed_traffic")))
        psimon("netpolld_armed_traffic")
        mild("netpolld_armed_mild", "netpolld, passed trigger, the same traffic under mild CPU pressure")
        rows.append(row("netpolld, the passed trigger kept, idle", "netpolld_armed_after",
                        "after the traffic: a passed trigger stays armed (netpolld's own goes after 10 s "
                        f"without traffic); {cost.get('netpolld_armed_after_window_s', '?')} s window"))
        psimon("netpolld_armed_after")
    rows.append(row("wake-up floor (bench/timerfloor.c)", "timerfloor",
                    f"an empty sd-event timer every "
                    f"{int(cost.get('timerfloor_interval_us', '0')) / 1000:g} ms: what waking up "
                    f"that often costs here by itself"))
    rows.append(row(f"tuned {cost.get('tuned_version', '')} (network-latency)", "tuned",
                    f"busy_read set to {cost.get('tuned_busy_read', '?')}, D-Bus name "
                    f"{cost.get('tuned_bus_name', '?')}, {cost.get('tuned_window_s', '?')} s window"))
    t = table(["daemon", "RSS", "CPU s / min", "of one CPU", "wake-ups / s", "start-up CPU s", "notes"], rows)
    if "busrtt_ratio_p50" in cost:
        t += ("\n\n" + table(["call (same private bus)", "p50 µs", "p99 µs"], [
            ["org.freedesktop.DBus.GetId (bus daemon)", cost["busrtt_getid_p50_us"],
             cost["busrtt_getid_p99_us"]],
            [f"org.netpolld1.Manager.SetKnob {cost.get('busrtt_knob', '')} "
             f"{cost.get('busrtt_value', '')}", cost["busrtt_setknob_p50_us"],
             cost["busrtt_setknob_p99_us"]]]) +
            f"\n\nSetKnob / GetId round trip (p50): **{float(cost['busrtt_ratio_p50']):.2f}×** "
            f"over {cost.get('busrtt_count', '?')} alternating calls each.")
    return t


def plots(outdir, cells, client, scenarios):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot or not scenarios:
        return []
    made = []
    # Log scales: the scenarios differ by orders of magnitude.
    for key, label in (("tps", "transactions/s"), ("p99_us", "p99 round trip (µs)")):
        dat = os.path.join(outdir, f"plot-{client}-{key}.dat")
        with open(dat, "w") as f:
            f.write("scenario " + " ".join(f'"{CONFIG_TITLE[c]}"' for c in CONFIGS) + "\n")
            for s in scenarios:
                vals = []
                for cfg in CONFIGS:
                    c = cells.get((s, cfg, client))
                    v = c.med(key) if c else None
                    vals.append("NaN" if v is None else f"{v:.3f}")
                f.write(f'"{PLOT_TITLE[s]}" ' + " ".join(vals) + "\n")
        png = os.path.join(outdir, f"{client}-{key.replace('_us', '')}.png")
        script = f"""
set terminal pngcairo size 1100,560 font "sans,10"
set output "{png}"
set title "{client}: median {label} per scenario and configuration (log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key outside top center horizontal
set xrange [-0.6:{len(scenarios) - 0.4}]
set grid ytics
set ylabel "{label}"
set yrange [1:*]
set logscale y
set xtics noenhanced
set key noenhanced
plot for [i=2:{len(CONFIGS) + 1}] "{dat}" using i:xtic(1) title columnheader(i)
"""
        r = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
        if r.returncode == 0 and os.path.exists(png):
            made.append(os.path.basename(png))
        else:
            sys.stderr.write(f"report: gnuplot failed for {png}: {r.stderr}\n")
    return made


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: report.py OUTDIR\n")
        return 2
    outdir = sys.argv[1]
    runs = load_runs(os.path.join(outdir, "runs.csv"))
    meta = read_kv(os.path.join(outdir, "meta.txt"))
    cost = read_kv(os.path.join(outdir, "cost.txt"))
    if runs is None:
        # --parts cost alone: the run's description and the daemon cost.
        md = [f"# netpolld benchmark results ({meta.get('mode', 'full')} run)", "",
              table(["run", ""], [[k, f"`{v}`" if k in ("command", "commit") else v] for k, v in meta.items()]),
              "", "## Daemon cost", "", cost_section(cost), ""]
        with open(os.path.join(outdir, "results.md"), "w") as f:
            f.write("\n".join(md))
        return 0
    cells = summarize(runs)
    write_summary_csv(os.path.join(outdir, "summary.csv"), cells)

    rr_scen = [s for s in SCENARIOS if any(k[0] == s and k[2] == "rr" for k in cells)]
    sp_scen = [s for s in SCENARIOS if any(k[0] == s and k[2] == "sockperf" for k in cells)]
    pngs = plots(outdir, cells, "rr", rr_scen) + plots(outdir, cells, "sockperf", sp_scen)

    md = [f"# netpolld benchmark results ({meta.get('mode', 'full')} run)", ""]
    md.append(table(["run", ""], [[k, f"`{v}`" if k in ("command", "commit") else v]
                               for k, v in meta.items()]))
    md += ["", "## rr: 1-byte TCP request/response (bench/rr.c, blocking recv)", "",
           client_tables(cells, "rr", rr_scen), ""]
    if sp_scen:
        md += ["## sockperf ping-pong (TCP, 14-byte messages, round trips)", "",
               client_tables(cells, "sockperf", sp_scen), ""]
    md += ["## Antagonists", "", antagonist_table(cells, runs), "",
           "## Steal time and CPU use per measured window", "", steal_table(cells, runs), "",
           "## Daemon cost", "", cost_section(cost), ""]
    md += ["## What netpolld did during its runs", "", daemon_table(runs), ""]
    if pngs:
        md += ["## Plots", ""] + [f"![{p}]({p})" for p in pngs] + [""]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
