#!/usr/bin/env python3
"""The regression gate's proof as markdown (bench/scripts/gate-proof analyse): from OUT/<pool>.pool.json
(a pool's gate.json) and OUT/<pool>.decisions.jsonl (its decisions), for the pools named after
OUT. Pools named avsa* are A-vs-A (both sides one commit): their failed decisions are false
alarms. The others are a patch of tests/gate-patches/ against its commit: their failed decisions
caught it. Pools named NAME.NN (gate-proof runs: live gate runs one after another) form the
series NAME; a series, like a pool, is told apart by its GPU.   usage: gate-proof-report.py OUT POOL..."""
import json
import math
import os
import re
import sys


def binomial_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval of a binomial proportion k / n, by bisection."""
    tail = (1 - level) / 2

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            if f(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = 0.0 if k == 0 else solve(lambda p: 1 - binomial_cdf(k - 1, n, p) < tail)
    upper = 1.0 if k == n else solve(lambda p: binomial_cdf(k, n, p) > tail)
    return lower, upper


def t_quantile_975(df):
    """Student's t 97.5 % point (table for small df, normal beyond)."""
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
             9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042,
             40: 2.021, 60: 2.000, 120: 1.980}
    if df <= 0:
        return float("inf")
    best = min((k for k in table if k <= df), key=lambda k: df - k, default=1)
    return table[best] if df < 120 else 1.96


def true_effect(bench):
    """Geometric mean ratio head / base over all the pool's rounds, and its 95 % interval."""
    d = [math.log(h / b) for b, h in zip(bench["base_seconds"], bench["head_seconds"])]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else 0
    half = t_quantile_975(n - 1) * sd / math.sqrt(n) if n > 1 else float("inf")
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half), n, sd


def percent(x):
    return "%.1f %%" % (100 * x)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def series_of(name):
    """A run NAME.NN of `gate-proof runs` belongs to the series NAME; any other pool is its own."""
    return re.sub(r"\.\d+$", "", name)


def group_pools(pools, facts):
    """[(label, series, [pool, ...])]: a series NAME.NN on one GPU is one group, any other pool
    its own; in the order first seen. Labels name the GPU where one name ran on several."""
    groups, order = {}, []
    for name in pools:
        key = (series_of(name), facts[name]["uuid"])
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(name)
    names = [k[0] for k in order]
    return [(k[0] if names.count(k[0]) == 1 else "%s (%s)" % (k[0], k[1][:12]), k[0], groups[k])
            for k in order]


def pairs_of(members, facts, bench):
    """All of a group's pairs for one benchmark, pool after pool."""
    out = {"name": bench, "base_seconds": [], "head_seconds": [], "verdicts": []}
    for n in members:
        for b in facts[n]["benchmarks"]:
            if b["name"] == bench:
                out["base_seconds"] += b["base_seconds"]
                out["head_seconds"] += b["head_seconds"]
                out["verdicts"].append(b["verdict"])
    return out


def bench_names(members, facts):
    names = []
    for n in members:
        for b in facts[n]["benchmarks"]:
            if b["name"] not in names:
                names.append(b["name"])
    return names


CONSOLE_LINE = re.compile(r"^run (\S+): (.+) \((GPU-[^)]+)\), (\d+) s, (\d+) processes, "
                          r"\[([\d, ]+)\] rounds a benchmark, (.+)$")


def read_console(path):
    """The runs a console (the lines `gate-proof runs` printed) tells of, records lost:
    [{series, device, uuid, processes, rounds, failed, verdicts}]."""
    runs = []
    with open(path) as f:
        for line in f:
            m = CONSOLE_LINE.match(line.strip())
            if m:
                verdicts = m.group(7).split()
                runs.append({"series": series_of(os.path.basename(m.group(1))),
                             "device": m.group(2), "uuid": m.group(3),
                             "processes": int(m.group(5)),
                             "rounds": max(int(r) for r in m.group(6).split(",")),
                             "verdicts": verdicts,
                             "failed": "SLOWER" in verdicts or "NOW-INVALID" in verdicts})
    if not runs:
        sys.exit("gate-proof-report: %s has no line of `gate-proof runs`" % path)
    return runs


def console_groups(paths):
    """[(label, uuid, device, [run, ...], path)]: a console's runs by series and GPU."""
    groups = []
    for path in paths:
        keys = []
        for run in read_console(path):
            key = (run["series"], run["uuid"])
            if key not in keys:
                keys.append(key)
                groups.append(["%s (%s), console" % (run["series"], run["uuid"][:12]),
                               run["uuid"], run["device"], [], path, run["series"]])
            groups[-len(keys) + keys.index(key)][3].append(run)
    return groups


def main():
    args = sys.argv[2:]
    consoles = [p for p in args if p.endswith(".txt")]
    out = sys.argv[1]
    pools = [os.path.basename(os.path.normpath(p)) for p in args if not p.endswith(".txt")]
    facts, decisions = {}, {}
    for name in pools:
        facts[name] = json.load(open(os.path.join(out, name + ".pool.json")))
        with open(os.path.join(out, name + ".decisions.jsonl")) as f:
            decisions[name] = [json.loads(line) for line in f if line.strip()]
    print("# The regression gate's proof\n")
    print("Made by `sh bench/scripts/gate-proof analyse` from the pools below: each a session of two "
          "builds on one GPU, their processes interleaved as `stagebench gate` interleaves them: "
          "either a long pool of rounds (`gate-proof pool`) or a series of live gate runs one "
          "after another (`gate-proof runs`). Each pool's decisions are the live gate's "
          "sequential rule (first look after 6 rounds, 3 more while UNSURE, at most 40) replayed "
          "over disjoint runs of its rounds (`stagebench gate --replay POOL --decisions N`): every "
          "decision is one gate run, and a live run replays as the one decision it took.\n")
    print("A pool's last decision, cut short when its rounds ran out, is left out: a pool shorter "
          "than one decision gives none, though its own verdict over all its rounds is in its "
          "`gate.json`.\n")
    groups = group_pools(pools, facts)
    print("## The pools\n")
    print("A series is gate runs one after another (`gate-proof runs`), each a folder NAME.NN "
          "analysed as a pool of one decision.\n")
    print("| pool or series | GPU | UUID | base | head | first process | last process | pools | "
          "processes | rounds a line | decisions |")
    print("|---|---|---|---|---|---|---|---:|---:|---|---:|")
    for label, _, members in groups:
        f = [facts[n] for n in members]
        rounds = sorted(set(b["rounds"] for x in f for b in x["benchmarks"]))
        print("| %s | %s | %s | `%s` | `%s` | %s | %s | %d | %d | %s | %d |" % (
            label, f[0]["device"], f[0]["uuid"],
            "`, `".join(sorted(set(x["commits"]["base"][:12] for x in f))),
            "`, `".join(sorted(set(x["commits"]["head"][:12] for x in f))),
            min(x["first_process"] for x in f), max(x["last_process"] for x in f), len(f),
            sum(x["session"]["processes"] for x in f),
            "-".join(str(r) for r in (rounds[0], rounds[-1])) if len(rounds) > 1 else rounds[0],
            sum(len(decisions[n]) for n in members)))
    lost = console_groups(consoles)
    for label, uuid, device, runs, path, _ in lost:
        print("| %s | %s | %s | records lost | records lost | - | - | %d | %d | %s | %d |" % (
            label, device, uuid, len(runs), sum(r["processes"] for r in runs),
            "-".join(str(r) for r in sorted(set((min(x["rounds"] for x in runs),
                                                 max(x["rounds"] for x in runs))))),
            len(runs)))
    if lost:
        print("\nA console's runs (%s) are the lines `gate-proof runs` printed; their records did "
              "not come back from the device: each run's verdicts count as its decision, with no "
              "true effect and no replay." % ", ".join("`%s`" % p for p in consoles))
    machines = sorted(set((facts[n]["device"], facts[n]["uuid"]) for n in pools) |
                      set((g[2], g[1]) for g in lost))
    print("\n%s\n" % ("All pools ran on one GPU: %s (%s)." % machines[0] if len(machines) == 1 else
                      "The pools ran on %d GPUs (each pool on one): %s." % (
                          len(machines), "; ".join("%s (%s)" % m for m in machines))))

    avsa = [n for n in pools if n.startswith("avsa")]
    if avsa:
        lost_avsa = [r for g in lost if g[5].startswith("avsa") for r in g[3]]
        runs = sum(len(decisions[n]) for n in avsa) + len(lost_avsa)
        failed = sum(d["failed"] for n in avsa for d in decisions[n]) + sum(
            r["failed"] for r in lost_avsa)
        lo, hi = clopper_pearson(failed, runs) if runs else (0, 1)
        print("## False alarms (A-vs-A: one commit, built twice)\n")
        print("**%d of %d gate runs failed (%s; 95 %% Clopper-Pearson interval %s to %s).** "
              "The goal: at most 1 %% of gate runs, shown with at least 30 of them.\n" % (
                  failed, runs, percent(failed / runs if runs else 0), percent(lo), percent(hi)))
        print("| benchmark | SAME | UNSURE | SLOWER | FASTER | rounds (median) |")
        print("|---|---:|---:|---:|---:|---:|")
        names = []
        for n in avsa:
            for d in decisions[n]:
                for b in d["benchmarks"]:
                    if b["name"] not in names:
                        names.append(b["name"])
        for bench in names:
            rows = [b for n in avsa for d in decisions[n] for b in d["benchmarks"]
                    if b["name"] == bench]
            count = {v: sum(b["verdict"] == v for b in rows)
                     for v in ("SAME", "UNSURE", "SLOWER", "FASTER")}
            rounds = sorted(b["rounds"] for b in rows)
            print("| `%s` | %d | %d | %d | %d | %s |" % (
                bench, count["SAME"], count["UNSURE"], count["SLOWER"], count["FASTER"],
                rounds[len(rounds) // 2] if rounds else "-"))
        print()

    avsa_groups = [(label, m) for label, _, m in groups if m[0].startswith("avsa")]
    if avsa_groups:
        print("### What each benchmark can catch\n")
        print("From each A-vs-A pool's own decision over all its rounds (in a series, the median "
              "over its runs): the spread of the pairs' log ratios (sd) and the minimum detectable "
              "effect, the smallest slow-down the gate calls SLOWER with 95 % power by its 40th "
              "round at that spread.\n")
        print("| benchmark | %s |" % " | ".join("%s: rounds, sd, mde" % label
                                              for label, _ in avsa_groups))
        print("|---|" + "---|" * len(avsa_groups))
        names = []
        for _, members in avsa_groups:
            names += [b for b in bench_names(members, facts) if b not in names]
        for bench in names:
            cells = []
            for _, members in avsa_groups:
                b = [x for n in members for x in facts[n]["benchmarks"]
                     if x["name"] == bench and x.get("sd") is not None and x.get("mde")]
                cells.append("%d, %.2f %%, %s" % (
                    sum(x["rounds"] for x in b), 100 * median([x["sd"] for x in b]),
                    percent(median([x["mde"] for x in b]))) if b else "-")
            print("| `%s` | %s |" % (bench, " | ".join(cells)))
        print()

    patch_groups = [g for g in groups if not g[2][0].startswith("avsa")]
    if patch_groups:
        print("## Power (a patch of tests/gate-patches/ against its commit)\n")
        print("The true effect: the geometric mean ratio over all of the pool's (or series') rounds, "
              "with its 95 % interval. Caught: decisions that failed the gate (a benchmark "
              "SLOWER), alpha spread over the whole suite's benchmarks as a real gate run spreads "
              "it. Goals: a change of 3 % or more caught in at least 95 % of gate runs, of 2 % or "
              "more in at least 80 %; a change's size is its largest true effect.\n")
        print("| patch | benchmark | true effect | rounds | verdict over the rounds | tries | caught | 95 % interval | goal |")
        print("|---|---|---|---:|---|---:|---:|---|---|")
        classes = {0.03: [0, 0], 0.02: [0, 0]}
        for label, _, members in patch_groups:
            tries = sum(len(decisions[n]) for n in members)
            caught = sum(d["failed"] for n in members for d in decisions[n])
            lo, hi = clopper_pearson(caught, tries) if tries else (0, 1)
            size = None
            for bench in bench_names(members, facts):
                b = pairs_of(members, facts, bench)
                ratio, elo, ehi, rounds, _ = true_effect(b)
                effect = ratio - 1
                size = effect if size is None else max(size, effect)
                need = 0.95 if effect >= 0.03 else 0.80 if effect >= 0.02 else None
                goal = "none under 2 %" if need is None else "%.0f %%: %s" % (
                    100 * need, "no decision yet" if tries == 0 else
                    ("met" if caught >= need * tries else "missed") +
                    (" so far (%d of the 20 tries wanted)" % tries if tries < 20 else ""))
                verdicts = b["verdicts"]
                said = verdicts[0] if len(verdicts) == 1 else ", ".join(
                    "%s in %d of %d runs" % (v, verdicts.count(v), len(verdicts))
                    for v in sorted(set(verdicts)))
                print("| %s | `%s` | %+.2f %% (%.4f-%.4fx) | %d | %s | %d | %d (%s) | %s to %s | %s |" % (
                    label, b["name"], 100 * effect, elo, ehi, rounds, said, tries, caught,
                    percent(caught / tries if tries else 0), percent(lo), percent(hi), goal))
            for floor in classes:
                if size is not None and size >= floor:
                    classes[floor][0] += tries
                    classes[floor][1] += caught
        for label, uuid, _, runs, _, series in lost:
            if series.startswith("avsa"):
                continue
            # the change's size on this GPU, where a recorded series of it measured one
            sizes = [true_effect(pairs_of(m, facts, b))[0] - 1
                     for _, name, m in patch_groups
                     if name == series and facts[m[0]]["uuid"] == uuid
                     for b in bench_names(m, facts)]
            size = max(sizes) if sizes else None
            tries, caught = len(runs), sum(r["failed"] for r in runs)
            lo, hi = clopper_pearson(caught, tries)
            need = None if size is None else 0.95 if size >= 0.03 else 0.80 if size >= 0.02 else None
            verdicts = [" ".join(r["verdicts"]) for r in runs]
            print("| %s | every benchmark of the run | %s | %d | %s | %d | %d (%s) | %s to %s | %s |" % (
                label, "records lost%s" % ("" if size is None else
                                           "; %+.2f %% in the recorded runs" % (100 * size)),
                sum(r["rounds"] for r in runs), ", ".join(
                    "%s in %d of %d runs" % (v, verdicts.count(v), len(verdicts))
                    for v in sorted(set(verdicts))),
                tries, caught, percent(caught / tries), percent(lo), percent(hi),
                "size unknown" if size is None else "none under 2 %" if need is None else
                "%.0f %%: %s" % (100 * need, "met" if caught >= need * tries else "missed")))
            for floor in classes:
                if size is not None and size >= floor:
                    classes[floor][0] += tries
                    classes[floor][1] += caught
        print()
        totals = {}
        for _, series, members in patch_groups:
            t = totals.setdefault(series, [0, 0])
            t[0] += sum(len(decisions[n]) for n in members)
            t[1] += sum(d["failed"] for n in members for d in decisions[n])
        for g in lost:
            if not g[5].startswith("avsa"):
                t = totals.setdefault(g[5], [0, 0])
                t[0] += len(g[3])
                t[1] += sum(r["failed"] for r in g[3])
        print("Tries a patch, every GPU and form, records kept or lost: %s.\n" % "; ".join(
            "%s %d tries, %d caught" % (name, t[0], t[1]) for name, t in totals.items()))
        for floor, need in ((0.03, 0.95), (0.02, 0.80)):
            tries, caught = classes[floor]
            lo, hi = clopper_pearson(caught, tries) if tries else (0, 1)
            print("- **Changes of %.0f %% or more: caught in %d of %d tries (%s; 95 %% interval %s "
                  "to %s); goal %.0f %%.**" % (100 * floor, caught, tries,
                                              percent(caught / tries if tries else 0),
                                              percent(lo), percent(hi), 100 * need))
        print()


if __name__ == "__main__":
    main()
