#!/usr/bin/env python3
"""Fresh-process `kb search` latency: p50 and p95 of keyword-only and hybrid
searches, each a new `kb` process, as an agent runs them.

Usage: scripts/bench_search_latency.py --kb PATH/TO/kb --data-dir D [--runs 30] [--rounds 5]

Each round runs --runs searches per mode (cycling through NFCorpus-style
questions) after two warm-up runs; the figures are the medians over rounds of
each round's p50 and p95. Compare two builds by running it with each --kb on
copies of the same knowledge base. Prints the machine's load average, since
other work on the machine skews the figures.
"""
import argparse
import os
import statistics
import subprocess
import time

QUERIES = [
    "vitamin d deficiency and bone health",
    "does green tea prevent cancer",
    "statins side effects muscle pain",
    "gut bacteria and obesity",
    "how much protein do athletes need",
    "FY2018 omega-3 fish oil trials",
]


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def one_round(kb, data_dir, extra, runs):
    times = []
    for i in range(runs + 2):
        cmd = [kb, "--data-dir", data_dir, "search", QUERIES[i % len(QUERIES)], *extra]
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True)
        ms = (time.perf_counter() - t) * 1000
        if out.returncode != 0:
            raise SystemExit(f"kb search failed: {out.stderr.decode(errors='replace')}")
        if i >= 2:
            times.append(ms)
    return percentile(times, 0.5), percentile(times, 0.95)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for label, extra in [("keyword-only", ["--fts-only"]), ("hybrid", [])]:
        rounds = [one_round(a.kb, a.data_dir, extra, a.runs) for _ in range(a.rounds)]
        p50 = statistics.median(r[0] for r in rounds)
        p95 = statistics.median(r[1] for r in rounds)
        print(f"kb search {label}, fresh process: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
              f"({a.rounds} rounds of {a.runs})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
