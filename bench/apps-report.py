#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/apps-report.py OUTDIR: the app part of bench/run (apps.csv) as
apps-summary.csv, apps.md (per-scenario tables and the targets table, also
printed) and one plot per scenario, apps-SCENARIO.png, of the app's rate
against its neighbour's throughput (gnuplot).

Every ratio is taken within one repetition (the configurations of a
repetition ran back to back) and the median of those ratios is shown.
"""
import csv
import os
import shutil
import subprocess
import sys

# The helpers of the rr part's report (same directory): number parsing, medians, cells, tables.
from report import fmt, median, num, table

BASE0, BASE50 = "static0", "static50"
NEIGHBOURS = ["hog", "percpu", "bursty"]
PHASE_KINDS = ["alone"] + NEIGHBOURS
# Targets (issue 13): the app keeps 0.9x static 50 when nobody else waits, the
# neighbours keep 0.95x of static 0 while they wait, the app never falls below
# static 0 and its p99 never rises above static 0's.
T_ALONE, T_NEIGHBOUR = 0.9, 0.95


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class Data:
    def __init__(self, rows):
        self.rows = rows
        self.scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
        self.configs = list(dict.fromkeys(r["config"] for r in rows))
        self.reps = sorted({r["rep"] for r in rows}, key=int)

    def cell(self, scen, config, kind, rep=None):
        return [r for r in self.rows if r["scenario"] == scen and r["config"] == config and r["phase"] == kind
                and (rep is None or r["rep"] == rep)]

    def value(self, scen, config, kind, key, rep=None):
        """Median of KEY over the phases of that kind (and repetition)."""
        return median(num(r[key]) for r in self.cell(scen, config, kind, rep))

    def kinds(self, scen):
        """The phase kinds (alone and the neighbours) the scenario ran, in table order."""
        return [k for k in PHASE_KINDS if any(r["scenario"] == scen and r["phase"] == k for r in self.rows)]

    def ran(self, scen, config):
        return any(r["scenario"] == scen and r["config"] == config for r in self.rows)

    def latency_key(self, scen):
        """p99_us where the phases have percentiles, else the mean (Little's law)."""
        rows = [r for r in self.rows if r["scenario"] == scen]
        return "p99_us" if any(num(r["p99_us"]) is not None for r in rows) else "mean_us"

    def per_rep(self, scen, config, base, kind, key):
        """{repetition: config/base of KEY in phases of KIND} where both were measured."""
        out = {}
        for rep in self.reps:
            x, y = self.value(scen, config, kind, key, rep), self.value(scen, base, kind, key, rep)
            if x is not None and y:
                out[rep] = x / y
        return out

    def ratio(self, scen, config, base, kind, key):
        """Per-repetition ratios config/base of KEY in phases of KIND, and their median."""
        ratios = list(self.per_rep(scen, config, base, kind, key).values())
        return ratios, median(ratios)


def summary_csv(path, d):
    cols = ["scenario", "config", "phase", "reps", "rate", "p50_us", "p99_us", "p999_us", "mean_us",
            "neighbour_bogo_ops_s", "cpu_us_per_request", "rate_vs_static0", "rate_vs_static50",
            "neighbour_vs_static0", "latency_vs_static0", "client_p50_us", "client_p99_us"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for s in d.scenarios:
            lk = d.latency_key(s)
            for c in d.configs:
                for k in PHASE_KINDS:
                    rows = d.cell(s, c, k)
                    if not rows:
                        continue

                    def r3(v):
                        return "" if v is None else f"{v:.3f}"
                    w.writerow([s, c, k, len({r["rep"] for r in rows}), r3(d.value(s, c, k, "rate")),
                                r3(d.value(s, c, k, "p50_us")), r3(d.value(s, c, k, "p99_us")),
                                r3(d.value(s, c, k, "p999_us")), r3(d.value(s, c, k, "mean_us")),
                                r3(d.value(s, c, k, "neighbour_bogo_ops_s")),
                                r3(d.value(s, c, k, "cpu_us_per_request")),
                                r3(d.ratio(s, c, BASE0, k, "rate")[1]), r3(d.ratio(s, c, BASE50, k, "rate")[1]),
                                r3(d.ratio(s, c, BASE0, k, "neighbour_bogo_ops_s")[1]),
                                r3(d.ratio(s, c, BASE0, k, lk)[1]),
                                r3(median(num(r["client_p50_us"]) for r in rows)),
                                r3(median(num(r["client_p99_us"]) for r in rows))])


def scenario_table(d, s):
    lk = d.latency_key(s)
    kinds = d.kinds(s)
    rows = []
    for c in d.configs:
        row = [c]
        for k in kinds:
            if not d.cell(s, c, k):
                row.append("–")
                continue
            lat = (f"{fmt(d.value(s, c, k, 'p50_us'), 1)} / {fmt(d.value(s, c, k, 'p99_us'), 1)} / "
                   f"{fmt(d.value(s, c, k, 'p999_us'), 1)}" if lk == "p99_us"
                   else f"mean {fmt(d.value(s, c, k, 'mean_us'), 1)}")
            cell = f"{fmt(d.value(s, c, k, 'rate'))}/s, {lat} µs, {fmt(d.value(s, c, k, 'cpu_us_per_request'), 1)} µs CPU"
            if k != "alone":
                cell += f", nb {fmt(d.value(s, c, k, 'neighbour_bogo_ops_s'))}"
            row.append(cell)
        rows.append(row)
    return table(["configuration"] + kinds, rows)


def verdict(value, at_least=None, at_most=None):
    """The ratio as printed (two decimals) is what is judged: a fixed-rate client that
    delivers 0.9996x of static 0's rate shows, and counts as, 1.00."""
    if value is None:
        return "–"
    shown = round(value, 2)
    ok = (at_least is None or shown >= at_least) and (at_most is None or shown <= at_most)
    return f"{shown:.2f} {'PASS' if ok else 'MISS'}"


def targets(d):
    """One row per scenario and configuration other than the two baselines."""
    rows = []
    for s in d.scenarios:
        lk = d.latency_key(s)
        kinds = d.kinds(s)
        for c in d.configs:
            if c in (BASE0, BASE50) or not d.ran(s, c):
                continue
            alone = d.ratio(s, c, BASE50, "alone", "rate")[1]
            row = [s, c, verdict(alone, at_least=T_ALONE)]
            for k in NEIGHBOURS:
                if k not in kinds:
                    row.append("–")
                    continue
                v = d.ratio(s, c, BASE0, k, "neighbour_bogo_ops_s")[1]
                row.append(verdict(v, at_least=T_NEIGHBOUR))
            app = [d.ratio(s, c, BASE0, k, "rate")[1] for k in kinds]
            app = [v for v in app if v is not None]
            lo = min(app) if app else None
            row.append(verdict(lo, at_least=1.0))
            lat = [d.ratio(s, c, BASE0, k, lk)[1] for k in kinds]
            lat = [v for v in lat if v is not None]
            hi = max(lat) if lat else None
            row.append(verdict(hi, at_most=1.0) + ("" if lk == "p99_us" else " (mean)"))
            rows.append(row)
    header = ["scenario", "configuration", f"alone: app ÷ static50 ≥ {T_ALONE}"] + \
             [f"{k}: neighbour ÷ static0 ≥ {T_NEIGHBOUR}" for k in NEIGHBOURS] + \
             ["app ÷ static0 ≥ 1, worst phase", "p99 ÷ static0 ≤ 1, worst phase"]
    return table(header, rows), rows


# The control: no busy polling and no adaptation, so in every phase its knobs are
# static 0's and its ratios to static 0 measure nothing but the run's spread.
CONTROL = "powersave"


def spread(d):
    """The control's per-repetition ratios to static 0 in the target table's static-0
    columns, as lowest-highest: how far a cell moves between repetitions by chance."""
    rows = []
    for s in d.scenarios:
        if not (d.ran(s, CONTROL) and d.ran(s, BASE0)):
            continue
        lk = d.latency_key(s)
        kinds = d.kinds(s)
        row = [s]
        for k in NEIGHBOURS:
            row.append(span(d.per_rep(s, CONTROL, BASE0, k, "neighbour_bogo_ops_s").values())
                       if k in kinds else "–")
        for key, worst in (("rate", min), (lk, max)):
            by_kind = [d.per_rep(s, CONTROL, BASE0, k, key) for k in kinds]
            row.append(span(worst(r[rep] for r in by_kind if rep in r)
                            for rep in d.reps if any(rep in r for r in by_kind)))
        row.append(str(len(d.reps)))
        rows.append(row)
    if not rows:
        return None
    return table(["scenario"] + [f"{k}: neighbour ÷ static0" for k in NEIGHBOURS] +
                 ["app ÷ static0, worst phase", "latency ÷ static0, worst phase", "repetitions"], rows)


def span(values):
    v = sorted(values)
    return f"{v[0]:.2f}–{v[-1]:.2f}" if v else "–"


# Reaction targets (issue 30): busy polling lowered within this long of the
# neighbour's start, and back within this long of its stop, at the 95th percentile.
T_YIELD_P95_MS = 50
T_RETURN_P95_MS = 200


def p95(values):
    """The 95th percentile, nearest rank (the largest of up to 19 values)."""
    v = sorted(values)
    if not v:
        return None
    return v[max(0, -(-95 * len(v) // 100) - 1)]


def delays(rows, key):
    return [num(r[key]) for r in rows if key in r and num(r[key]) is not None]


def yields_section(path):
    """What netpolld did with busy-poll around each neighbour (apps-yields.csv): the
    yield after the neighbour's start, the return after its stop, the moves in between."""
    if not os.path.exists(path):
        return None
    rows = load(path)
    keys = list(dict.fromkeys((r["scenario"], r["config"], r["phase"]) for r in rows))
    out = []
    for scen, config, phase in keys:
        cell = [r for r in rows if (r["scenario"], r["config"], r["phase"]) == (scen, config, phase)]
        y, b = delays(cell, "delay_ms"), delays(cell, "return_ms")
        moves = [int(r["moves"]) for r in cell if r.get("moves", "").isdigit()]
        out.append([scen, config, phase, str(len(cell)), str(len(y)),
                    fmt(median(y), 0) if y else "–", fmt(p95(y), 0) if y else "–",
                    str(len(b)), fmt(median(b), 0) if b else "–", fmt(p95(b), 0) if b else "–",
                    str(max(moves)) if moves else "–", str(sum(m > 2 for m in moves)) if moves else "–"])
    if not out:
        return None
    y, b = delays(rows, "delay_ms"), delays(rows, "return_ms")
    moves = [int(r["moves"]) for r in rows if r.get("moves", "").isdigit()]
    verdict = lambda v, t: "–" if v is None else f"{v:.0f} ms {'PASS' if v <= t else 'MISS'} (≤ {t})"
    summary = table(["neighbour phases", "yielded", f"yield p95 (target ≤ {T_YIELD_P95_MS} ms)", "returned",
                     f"return p95 (target ≤ {T_RETURN_P95_MS} ms)", "phases with more than 2 moves"],
                    [[str(len(rows)), str(len(y)), verdict(p95(y), T_YIELD_P95_MS), str(len(b)),
                      verdict(p95(b), T_RETURN_P95_MS), str(sum(m > 2 for m in moves)) if moves else "–"]])
    return summary + "\n\n" + table(
        ["scenario", "configuration", "neighbour", "phases", "yielded", "yield median ms", "yield p95 ms",
         "returned", "return median ms", "return p95 ms", "most moves", "phases > 2 moves"], out)


def plot(outdir, d, s):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return None
    dat = os.path.join(outdir, f"apps-{s}.dat")
    # One data block per neighbour kind that has points: gnuplot skips empty
    # blocks when it counts indexes, so an empty one would shift the titles.
    kinds = []
    with open(dat, "w") as f:
        for k in NEIGHBOURS:
            rows = []
            for c in d.configs:
                x, y = d.value(s, c, k, "neighbour_bogo_ops_s"), d.value(s, c, k, "rate")
                if x is not None and y is not None:
                    rows.append(f'{x:.3f} {y:.3f} "{c}"\n')
            if rows:
                f.write(f"# {k}\n" + "".join(rows) + "\n\n")
                kinds.append(k)
    if not kinds:
        return None
    png = os.path.join(outdir, f"apps-{s}.png")
    script = f"""
set terminal pngcairo size 1000,640 font "sans,10"
set output "{png}"
set title "{s}: app rate against neighbour throughput, per configuration (median per phase kind)" noenhanced
set xlabel "neighbour bogo-ops/s (stress-ng)"
set ylabel "app requests/s"
set grid
set key outside top center horizontal noenhanced
plot for [i=0:{len(kinds) - 1}] "{dat}" index i using 1:2 with points pointsize 1.5 title word("{' '.join(kinds)}", i + 1), \\
     for [i=0:{len(kinds) - 1}] "{dat}" index i using 1:2:3 with labels offset 0,1 font ",8" noenhanced notitle
"""
    r = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
    if r.returncode != 0 or not os.path.exists(png):
        sys.stderr.write(f"apps-report: gnuplot failed for {png}: {r.stderr}\n")
        return None
    return os.path.basename(png)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: apps-report.py OUTDIR\n")
        return 2
    outdir = sys.argv[1]
    path = os.path.join(outdir, "apps.csv")
    if not os.path.exists(path):
        sys.stderr.write(f"apps-report: {path} does not exist\n")
        return 1
    d = Data(load(path))
    summary_csv(os.path.join(outdir, "apps-summary.csv"), d)
    md = ["# netpolld benchmark: real servers and clients", "",
          "Each connection lives through phases alone / with a neighbour / alone; a cell is the "
          "median over the phases of that kind and the repetitions: requests/s, latency "
          "(p50 / p99 / p99.9 of sockperf's round trips in that phase, or the mean by Little's law "
          "for closed-loop clients whose phases have no percentiles), the CPU time of server and "
          "client per request, and the neighbour's bogo-ops/s (nb).", ""]
    pngs = []
    for s in d.scenarios:
        md += [f"## {s}", "", scenario_table(d, s), ""]
        p = plot(outdir, d, s)
        if p:
            pngs.append(p)
            md += [f"![{p}]({p})", ""]
    t, rows = targets(d)
    md += ["## Targets", "",
           "Ratios within each repetition, median over the repetitions. PASS/MISS against: app "
           f"≥ {T_ALONE}× static 50 alone; neighbour ≥ {T_NEIGHBOUR}× static 0 in each neighbour "
           "phase; app ≥ static 0 and p99 ≤ static 0 in every phase kind. – means a baseline "
           "was not run.", "", t, ""]
    sp = spread(d)
    if sp:
        md += ["## Spread", "",
               f"{CONTROL} runs no busy polling and no adaptation, so in every phase its knobs are "
               "static 0's: its ratios to static 0 are this run's spread, not an effect. Each cell is "
               "the lowest and highest of its per-repetition ratios (the target table shows their "
               "median). A target cell that misses by less than this spread, where the control "
               "misses or nearly misses too, says nothing by itself; more repetitions "
               "(--app-reps) decide it.", "", sp, ""]
    y = yields_section(os.path.join(outdir, "apps-yields.csv"))
    if y:
        md += ["## Yields", "",
               "For each phase with a neighbour under a netpolld configuration: whether netpolld "
               "lowered busy-poll before the neighbour stopped, and how long after the bench started "
               "the neighbour (`netpollctl monitor`'s clock; the neighbour's own start-up is inside "
               "the delay); whether it raised busy-poll again before the alone phase after it ended, "
               "and how long after the bench told the neighbour to stop (its exit is inside the "
               "delay); and how often busy-poll moved from the neighbour's start to the end of that "
               "alone phase (2 is one yield and one return; more is flapping). p95 is the nearest "
               "rank.",
               "", y, ""]
    with open(os.path.join(outdir, "apps.md"), "w") as f:
        f.write("\n".join(md))
    print("targets (value PASS/MISS):")
    print(t)
    miss = sum(cell.endswith("MISS") or " MISS " in cell for r in rows for cell in r[2:])
    print(f"{len(rows)} rows, {miss} misses; plots: {', '.join(pngs) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
