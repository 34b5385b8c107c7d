#!/usr/bin/env python3
"""The regression gate's proof as markdown (bench/scripts/gate-proof analyse): from OUT/<pool>.pool.json
(a pool's gate.json) and OUT/<pool>.decisions.jsonl (its decisions), for the pools named after
OUT. Pools named avsa* are A-vs-A (both sides one commit): their failed decisions are false
alarms. The others are a patch of tests/gate-patches/ against its commit: their failed decisions
caught it.   usage: gate-proof-report.py OUT POOL..."""
import json
import math
import os
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


def main():
    out, pools = sys.argv[1], [os.path.basename(os.path.normpath(p)) for p in sys.argv[2:]]
    facts, decisions = {}, {}
    for name in pools:
        facts[name] = json.load(open(os.path.join(out, name + ".pool.json")))
        with open(os.path.join(out, name + ".decisions.jsonl")) as f:
            decisions[name] = [json.loads(line) for line in f if line.strip()]
    print("# The regression gate's proof\n")
    print("Made by `sh bench/scripts/gate-proof analyse` from the pools below: each a long session of two "
          "builds on one GPU, their processes interleaved as `stagebench gate` interleaves them. "
          "Each pool's decisions are the live gate's sequential rule (first look after 6 rounds, "
          "3 more while UNSURE, at most 40) replayed over disjoint runs of its rounds "
          "(`stagebench gate --replay POOL --decisions N`): every decision is one gate run.\n")
    print("A pool's last decision, cut short when its rounds ran out, is left out: a pool shorter "
          "than one decision gives none, though its own verdict over all its rounds is in its "
          "`gate.json`.\n")
    print("## The pools\n")
    print("| pool | GPU | UUID | base | head | first process | last process | processes | "
          "rounds a line | decisions |")
    print("|---|---|---|---|---|---|---|---:|---|---:|")
    for name in pools:
        f = facts[name]
        rounds = sorted(set(b["rounds"] for b in f["benchmarks"]))
        print("| %s | %s | %s | `%s` | `%s` | %s | %s | %d | %s | %d |" % (
            name, f["device"], f["uuid"], f["commits"]["base"][:12], f["commits"]["head"][:12],
            f["first_process"], f["last_process"], f["session"]["processes"],
            "-".join(str(r) for r in (rounds[0], rounds[-1])) if len(rounds) > 1 else rounds[0],
            len(decisions[name])))
    machines = sorted(set((facts[n]["device"], facts[n]["uuid"]) for n in pools))
    print("\n%s\n" % ("All pools ran on one GPU: %s (%s)." % machines[0] if len(machines) == 1 else
                      "The pools ran on %d GPUs (each pool on one): %s." % (
                          len(machines), "; ".join("%s (%s)" % m for m in machines))))

    avsa = [n for n in pools if n.startswith("avsa")]
    if avsa:
        runs = sum(len(decisions[n]) for n in avsa)
        failed = sum(d["failed"] for n in avsa for d in decisions[n])
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

    if avsa:
        print("### What each benchmark can catch\n")
        print("From each A-vs-A pool's own decision over all its rounds: the spread of the pairs' "
              "log ratios (sd) and the minimum detectable effect, the smallest slow-down the gate "
              "calls SLOWER with 95 % power by its 40th round at that spread.\n")
        print("| benchmark | %s |" % " | ".join("%s: rounds, sd, mde" % n for n in avsa))
        print("|---|" + "---|" * len(avsa))
        names = []
        for n in avsa:
            for b in facts[n]["benchmarks"]:
                if b["name"] not in names:
                    names.append(b["name"])
        for bench in names:
            cells = []
            for n in avsa:
                b = [x for x in facts[n]["benchmarks"] if x["name"] == bench]
                cells.append("%d, %.2f %%, %s" % (b[0]["rounds"], 100 * b[0]["sd"], percent(b[0]["mde"]))
                             if b and b[0].get("sd") is not None and b[0].get("mde") else "-")
            print("| `%s` | %s |" % (bench, " | ".join(cells)))
        print()

    patches = [n for n in pools if not n.startswith("avsa")]
    if patches:
        print("## Power (a patch of tests/gate-patches/ against its commit)\n")
        print("The true effect: the geometric mean ratio over all of the pool's rounds, with its "
              "95 % interval. Caught: decisions that failed the gate (a benchmark SLOWER), alpha "
              "spread over the whole suite's benchmarks as a real gate run spreads it. Goals: a "
              "change of 3 % or more caught in at least 95 % of gate runs, of 2 % or more in at "
              "least 80 %.\n")
        print("| patch | benchmark | true effect | rounds | pool's verdict | tries | caught | 95 % interval | goal |")
        print("|---|---|---|---:|---|---:|---:|---|---|")
        for n in patches:
            tries = len(decisions[n])
            caught = sum(d["failed"] for d in decisions[n])
            lo, hi = clopper_pearson(caught, tries) if tries else (0, 1)
            for b in facts[n]["benchmarks"]:
                ratio, elo, ehi, rounds, _ = true_effect(b)
                effect = ratio - 1
                need = 0.95 if effect >= 0.03 else 0.80 if effect >= 0.02 else None
                goal = "none under 2 %" if need is None else "%.0f %%: %s" % (
                    100 * need, "no decision yet" if tries == 0 else
                    ("met" if caught >= need * tries else "missed") +
                    (" so far (%d of the 20 tries wanted)" % tries if tries < 20 else ""))
                print("| %s | `%s` | %+.2f %% (%.4f-%.4fx) | %d | %s | %d | %d (%s) | %s to %s | %s |" % (
                    n, b["name"], 100 * effect, elo, ehi, rounds, b["verdict"], tries, caught,
                    percent(caught / tries if tries else 0), percent(lo), percent(hi), goal))
        print()


if __name__ == "__main__":
    main()
