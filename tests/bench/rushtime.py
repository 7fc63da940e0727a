#!/usr/bin/env python3
"""tests/bench/rushtime.py LOG...: where the time of graders that ran at once went.

Reads the stderr of each grader run with LABGRADER_TRACE=1 (grade.c's trace: each variant's
process, its cases' stages, its judging, on the wall clock's seconds within the day), lays
every case's stages out on one clock, and prints, over the wave from the first process to the
last judging: the share of it during which a CPU series ran, a GPU series ran, and no series
ran at all. A series is a case's warm-up and timed stages; its variant is a CPU one when its id
is "cpu" or ends in "/cpu" (the labs' convention), else a GPU one.

Also the share of the wave during which no series ran while a GPU variant's series was queued
for its turn (its case's queue stage): the GPU's turn held up by other graders' untimed GPU work
(start-up, checked calls, freeing), or by the CPU series' freezing it.

Output, one line each: "cpu_series <pct>", "gpu_series <pct>", "no_series <pct>",
"no_series_gpu_queued <pct>", "wave_s <s>".
For people tuning the rush (docs/benchmarks.md, "Where a rush's time goes"); make bench prints
the first three beside its rush rows.
"""
import re
import sys

TRACE = re.compile(r"\[trace\s+[\d.]+ s\s+\d+ MiB @([\d.]+)\] (.*)")
CASE = re.compile(r"case \d+ of run \d+: ([\d.]+) s \(setup ([\d.]+), checked ([\d.]+), "
                  r"queue ([\d.]+), warm-up ([\d.]+), timed ([\d.]+), after ([\d.]+)\)")
STAGES = ("setup", "checked", "queue", "warmup", "timed", "after")


DAY = 86400.0


def unwrap(t, anchor):
    """Seconds within the day, laid out on one clock with anchor (the first moment read, of any
    log): a wave that crosses midnight goes on past DAY rather than back to 0."""
    while anchor is not None and t < anchor - DAY / 2:
        t += DAY
    return t


def segments(path, anchor):
    """(start, end, cpu) of every series of one grader's log, (start, end) of every GPU case's
    wait for its turn, and the log's first and last moments; anchor as for unwrap, or None to
    take this log's first moment."""
    out, queued, cases, variant, ended, last, first = [], [], [], "", None, None, None
    for line in open(path, errors="replace"):
        m = TRACE.match(line)
        if not m:
            continue
        t = unwrap(float(m.group(1)), anchor if anchor is not None else first)
        last = t
        first = t if first is None else first
        what = m.group(2)
        if what.endswith(" reference library ready"):
            variant = what.split()[0]
        elif "job written" in what:
            cases = []
        elif "process ended" in what:
            ended = t
        elif CASE.search(what):
            cases.append([float(x) for x in CASE.search(what).groups()])
        elif what.endswith(" ran and judged") and ended is not None:
            # The cases ran one after another and the process ended after the last: laid out
            # backwards from its end.
            at = ended - sum(c[0] for c in cases)
            for c in cases:
                x = at
                cpu = variant.endswith("/cpu") or variant == "cpu"
                for name, d in zip(STAGES, c[1:]):
                    if name in ("warmup", "timed") and d > 0:
                        out.append((x, x + d, cpu))
                    elif name == "queue" and d > 0 and not cpu:
                        queued.append((x, x + d))
                    x += d
                at += c[0]
            ended = None
    return out, queued, first, last


def covered(intervals):
    """Seconds covered by the union of (start, end) intervals."""
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def main(paths):
    series, queued, t0, t1 = [], [], None, None
    for p in paths:
        s, q, a, b = segments(p, t0)
        series += s
        queued += q
        if a is not None:
            t0 = a if t0 is None else min(t0, a)
            t1 = b if t1 is None else max(t1, b)
    if t0 is None or t1 <= t0:
        print("wave_s 0")
        return
    wave = t1 - t0
    cpu = covered([(a, b) for a, b, c in series if c])
    gpu = covered([(a, b) for a, b, c in series if not c])
    anyone = covered([(a, b) for a, b, _ in series])
    print("cpu_series %.1f" % (100.0 * cpu / wave))
    print("gpu_series %.1f" % (100.0 * gpu / wave))
    print("no_series %.1f" % (100.0 * (wave - anyone) / wave))
    # Queued with no series running: what the union of both adds to the series' own.
    held_up = covered([(a, b) for a, b, _ in series] + queued) - anyone
    print("no_series_gpu_queued %.1f" % (100.0 * held_up / wave))
    print("wave_s %.1f" % wave)


if __name__ == "__main__":
    main(sys.argv[1:])
