#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""seeds-report.py [--smp N] FILE: the "KTEST seed" lines that
tests/kernel/run.sh --seeds collected, as the Markdown tables of
docs/KERNEL-SEEDS.md. Each row is the mean over the repetitions (their
spread in brackets: min-max), with ratios against the upstream
configuration of the same scenario measured in the same boot."""

import argparse
import collections
import statistics
import sys


def parse(path):
    runs = collections.defaultdict(list)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words:
                continue
            seed, fields = words[0], {}
            for w in words[1:]:
                key, sep, value = w.partition("=")
                if not sep:
                    sys.exit(f"{path}:{n}: '{w}' is not KEY=VALUE")
                fields[key] = value
            runs[seed].append(fields)
    return runs


def num(runs, key):
    try:
        return [float(r[key]) for r in runs]
    except (KeyError, ValueError) as e:
        sys.exit(f"a seed run lacks a numeric {key}: {e}")


def cell(values, digits=0):
    mean = statistics.mean(values)
    if len(values) > 1:
        return f"{mean:.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"
    return f"{mean:.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}x" if b else "n/a"


def group(runs, keys):
    groups = collections.OrderedDict()
    for r in runs:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    return groups


def seed_000(runs, seconds):
    print("### Seed 000: busy-poll loop ends when another task waits\n")
    print("| connections | wait in | CPU-bound neighbour | busy_loop_threshold | transactions/s "
          "| vs threshold 0 | BusyPollRxPackets | neighbour spins | neighbour vs threshold 0 |")
    print("|---|---|---|---|---|---|---|---|---|")
    g = group(runs, ["conns", "mode", "neighbour", "threshold"])
    for (conns, mode, nb, thr), rs in g.items():
        base = g.get((conns, mode, nb, "0"), rs)
        tps = [t / seconds for t in num(rs, "transactions")]
        base_tps = statistics.mean(num(base, "transactions")) / seconds
        spins = num(rs, "neighbour_spins")
        base_spins = statistics.mean(num(base, "neighbour_spins"))
        print(f"| {conns} | {'recv()' if mode == 'block' else 'epoll_wait()'} | {'yes' if nb == '1' else 'no'} "
              f"| {thr} | {cell(tps)} | {ratio(statistics.mean(tps), base_tps)} "
              f"| {cell(num(rs, 'busypoll_rx'))} | {cell(spins) if nb == '1' else '-'} "
              f"| {ratio(statistics.mean(spins), base_spins) if nb == '1' else '-'} |")
    print()


def seed_002(runs):
    print("### Seed 002: softirq time budget\n")
    print("| softirq_budget_usecs | softirq_max_restart | longest stretch taken from the neighbour (us) "
          "| p99 stretch (us) | CPU time taken (us) | NET_RX runs | ksoftirqd runs | bytes sent |")
    print("|---|---|---|---|---|---|---|---|")
    for (budget, restarts), rs in group(runs, ["budget_us", "restarts"]).items():
        print(f"| {budget} | {restarts} | {cell(num(rs, 'max_gap_us'))} | {cell(num(rs, 'p99_gap_us'))} "
              f"| {cell(num(rs, 'stolen_us'))} | {cell(num(rs, 'net_rx'))} "
              f"| {cell(num(rs, 'ksoftirqd_runs'))} | {cell(num(rs, 'bytes'))} |")
    print()


def seed_001(runs):
    print("### Seed 001: NAPI skb cache size and bulk\n")
    print("| napi_skb_cache_size | napi_skb_cache_bulk | bytes sent | vs 64/16 | cache refills "
          "| objects per refill |")
    print("|---|---|---|---|---|---|")
    g = group(runs, ["size", "bulk"])
    base = statistics.mean(num(g.get(("64", "16"), next(iter(g.values()))), "bytes"))
    for (size, bulk), rs in g.items():
        refills, objs = sum(num(rs, "refills")), sum(num(rs, "refill_objects"))
        print(f"| {size} | {bulk} | {cell(num(rs, 'bytes'))} | {ratio(statistics.mean(num(rs, 'bytes')), base)} "
              f"| {cell(num(rs, 'refills'))} | {objs / refills if refills else 0:.1f} |")
    print()


def seed_poll(runs, seconds):
    print("### Dedicated polling cores: NAPI threads in busy-poll mode (issue 29)\n")
    print("The server's virtio-net device's NAPI instances in busy-poll mode, their threads on a CPU of "
          "their own (server CPU 0, clients CPU 1, poller CPU 2), beside socket busy polling "
          "(busy_read/busy_poll 50 us) and none; sessions wait in recv(). CPU is clock ticks "
          "(USER_HZ 100) over the run: the poller's, and all CPUs' busy time.\n")
    print("| sessions | polling | transactions/s | vs none | p50 (us) | p99 (us) | poller CPU ticks "
          "| all CPUs busy ticks |")
    print("|---|---|---|---|---|---|---|---|")
    g = group(runs, ["conns", "config"])
    for (conns, cfg), rs in g.items():
        base = g.get((conns, "none"), rs)
        tps = [t / seconds for t in num(rs, "transactions")]
        base_tps = statistics.mean(num(base, "transactions")) / seconds
        print(f"| {conns} | {cfg} | {cell(tps)} | {ratio(statistics.mean(tps), base_tps)} "
              f"| {cell(num(rs, 'p50_us'))} | {cell(num(rs, 'p99_us'))} | {cell(num(rs, 'poller_ticks'))} "
              f"| {cell(num(rs, 'busy_ticks'))} |")
    print()


def seed_classes(runs, seconds):
    print("### Which waiting tasks end a poller's loop (patch 1)\n")
    print("One back-to-back request/response session busy polling (busy_read 50) on the client CPU, "
          "beside one neighbour there. Neighbour progress: CPU hogs' spins, bulk TCP's bytes, periodic "
          "tasks' 99th percentile wake-up lateness (us; lower is better).\n")
    print("| poller | neighbour | busy_loop_threshold | transactions/s | vs threshold 0 | p99 (us) "
          "| BusyPollRxPackets | neighbour progress | vs threshold 0 | ksoftirqd runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    progress = {"fair": "spins", "idle": "spins", "softirq": "bytes", "fairwake": "p99_late_us",
                "rt": "p99_late_us"}
    g = group(runs, ["poller", "neighbour", "threshold"])
    for (pol, nb, thr), rs in g.items():
        base = g.get((pol, nb, "0"), rs)
        tps = [t / seconds for t in num(rs, "transactions")]
        base_tps = statistics.mean(num(base, "transactions")) / seconds
        key = progress.get(nb)
        thr = "off (busy_read 0)" if thr == "off" else thr
        prog = num(rs, key) if key else []
        base_prog = statistics.mean(num(base, key)) if key else 0
        print(f"| {pol} | {nb} | {thr} | {cell(tps)} | {ratio(statistics.mean(tps), base_tps)} "
              f"| {cell(num(rs, 'p99_us'))} | {cell(num(rs, 'busypoll_rx'))} "
              f"| {cell(prog) + ' ' + key if prog else '-'} "
              f"| {ratio(statistics.mean(prog), base_prog) if prog else '-'} "
              f"| {cell(num(rs, 'ksoftirqd_runs'))} |")
    print()


def seed_002layout(runs, seconds):
    print("### Seed 002 in the seed's layout: a measured flow beside antagonists on the softirq CPU\n")
    print("| softirq_budget_usecs | softirq_max_restart | measured flow, transactions/s | p50 (us) | p90 (us) "
          "| p99 (us) | NET_RX runs | ksoftirqd runs | antagonists' transactions |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (budget, restarts), rs in group(runs, ["budget_us", "restarts"]).items():
        tps = [t / seconds for t in num(rs, "transactions")]
        print(f"| {budget} | {restarts} | {cell(tps)} | {cell(num(rs, 'p50_us'))} | {cell(num(rs, 'p90_us'))} "
              f"| {cell(num(rs, 'p99_us'))} | {cell(num(rs, 'net_rx'))} | {cell(num(rs, 'ksoftirqd_runs'))} "
              f"| {cell(num(rs, 'antagonist_transactions'))} |")
    print()


def seed_sirq(runs):
    print("### softirq runs under a flood, at each kernel's defaults\n")
    print("| kernel | runs | > 2000 us | p50 (us) | p90 (us) | p99 (us) | max (us) | ksoftirqd runs "
          "| bytes sent | neighbour's longest stretch (us) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (kernel,), rs in group([r for r in runs if "kernel" in r], ["kernel"]).items():
        print(f"| {kernel} | {cell(num(rs, 'runs'))} | {cell(num(rs, 'over'))} | {cell(num(rs, 'p50_us'))} "
              f"| {cell(num(rs, 'p90_us'))} | {cell(num(rs, 'p99_us'))} | {cell(num(rs, 'max_us'))} "
              f"| {cell(num(rs, 'ksoftirqd_runs'))} | {cell(num(rs, 'bytes'))} | {cell(num(rs, 'max_gap_us'))} |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--smp", default="?", help="vCPUs of the boot, for the heading")
    ap.add_argument("--wall-clock", action="store_true", help="the boot ran without -icount")
    ap.add_argument("file")
    args = ap.parse_args()
    runs = parse(args.file)
    if not runs:
        sys.exit(f"{args.file}: no seed runs")
    clock = "wall clock (TCG without -icount)" if args.wall_clock else "qemu -icount shift=3,sleep=off"
    print(f"## {args.smp} vCPU(s), {clock}\n")
    if "000" in runs:
        seed_000(runs["000"], float(runs["000"][0].get("seconds", 1)))
    if "002" in runs:
        seed_002(runs["002"])
    if "001" in runs:
        seed_001(runs["001"])
    if "poll" in runs:
        seed_poll(runs["poll"], float(runs["poll"][0].get("seconds", 1)))
    if "classes" in runs:
        seed_classes(runs["classes"], float(runs["classes"][0].get("seconds", 1)))
    if "sirq" in runs:
        seed_sirq(runs["sirq"])
    if "002layout" in runs:
        seed_002layout(runs["002layout"], float(runs["002layout"][0].get("seconds", 1)))


if __name__ == "__main__":
    main()
