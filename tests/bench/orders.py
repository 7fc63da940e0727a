#!/usr/bin/env python3
"""tests/bench/orders.py ROOT...: how far the two orders of the timed pairs disagree.

Reads every kept run folder under each ROOT (grader check/grade --keep: .work/*/run/<exercise>-
<variant>-run<k>/, its job.txt and result.txt) and prints, per series of a paired case, one row:

  n        pairs kept (blocks: pairs 2m and 2m+1, one of each order)
  ms       the function's median time
  speedup  1 / the geometric mean of the two orders' median ratios (grade/speed.c)
  r0 r1    the median ratio function/reference where the function ran first ('0') and where
           the reference did ('1'): an honest position effect f (the first call of a pair pays
           for the pause before it) puts r0/r1 at f^2
  f_stu    the function's own position effect: its median time first / second
  f_ref    the reference's, likewise
  D        the order disagreement with the position effect taken out: the median over blocks of
           (function first x reference second) / (reference first x function second), the
           times of the block's order-0 pair over its order-1 pair; 1 when both sides feel the
           position alike (base/stats.h, stats_order_agreement)
  lo hi    D's 95% interval (order statistics over the blocks)
  shift    the same disagreement from every pair, blocks aside: the Hodges-Lehmann shift of
           the order-0 pairs' time products over the order-1 pairs', with its Mann-Whitney
           interval (stats_shift; in orders.json, and the rule's summary at the end)
  first second  the function's speedup over the reference when both run first in their pair,
           and when both run second (median over blocks)
  fence_us the harness's time fencing each pair's first side off while the second runs
           (grader/harness/fence.h; result.txt's "checks" line), per pair

and then, per lab/exercise/variant/case/series over the runs, the spread: the runs' D, the
standard deviation of log D, and the widest interval. ORDERS_JSON=path also writes every row.
"""
import json
import math
import os
import re
import statistics
import sys


TARGET = os.environ.get("ORDERS_TARGET", "all")


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def interval(xs):
    """The median's distribution-free ~95% interval (base/stats.c, stats_paired_ratio)."""
    s = sorted(xs)
    k = len(s)
    if k == 0:
        return float("nan"), float("nan")
    half, w = k / 2.0, 0.98 * math.sqrt(k)
    lo = max(1, math.floor(half - w))
    hi = min(k, math.ceil(1 + half + w))
    return s[lo - 1], s[hi - 1]


def shift(x, y):
    """The Hodges-Lehmann shift of x over y and its Mann-Whitney ~95% interval (stats_shift)."""
    if len(x) < 3 or len(y) < 3:
        return float("nan"), float("nan"), float("nan")
    d = sorted(a - b for a in x for b in y)
    mn = len(d)
    c = mn / 2 - 1.96 * math.sqrt(mn * (len(x) + len(y) + 1) / 12)
    k = max(0, math.floor(c))
    return median(d), d[k], d[mn - 1 - k]


def read_job(path):
    job = {"cases": []}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] in ("function", "target", "transfer_from"):
                job[w[0]] = w[1]
            elif w[0] == "case":
                job["cases"].append(w[1])
    return job


def read_result(path):
    """{case index: {series: {"n", "order", samples...}}} from a result.txt."""
    cases, case, cont = {}, None, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if cont is not None:
                more = w and w[-1] == "\\"
                cont.extend(float(x) for x in (w[:-1] if more else w))
                cont = cont if more else None
                continue
            if not w:
                continue
            if w[0] == "case" and len(w) >= 3 and w[2] == "begin":
                case = cases.setdefault(int(w[1]), {})
            elif w[0] == "series" and case is not None:
                case[w[1]] = {"n": int(w[2]), "paired": w[3] == "1"}
            elif w[0] == "order" and case is not None and w[1] in case:
                case[w[1]]["order"] = w[2]
            elif w[0] == "checks" and case is not None and w[1] in case and len(w) >= 5:
                case[w[1]]["fence_ms"] = float(w[4])
            elif w[0] == "samples" and case is not None and w[1] in case:
                more = w[-1] == "\\"
                xs = [float(x) for x in (w[3:-1] if more else w[3:])]
                case[w[1]].setdefault(w[2], []).extend(xs)
                if more:
                    cont = case[w[1]][w[2]]
    return cases


def analyse(series):
    n = series["n"]
    order = series.get("order", "")
    ev = series.get("stu_event")
    gpu = ev is not None and len(ev) == n and n > 0 and ev[0] >= 0
    stu = ev if gpu else series.get("stu_host", [])
    ref = series.get("ref_event" if gpu else "ref_host", [])
    if not series.get("paired") or n < 4 or len(stu) != n or len(ref) != n or len(order) != n:
        return None
    ratio = [s / r for s, r in zip(stu, ref) if r > 0]
    by = {g: [i for i in range(n) if order[i] == g and ref[i] > 0 and stu[i] > 0] for g in "01"}
    r0 = median([stu[i] / ref[i] for i in by["0"]])
    r1 = median([stu[i] / ref[i] for i in by["1"]])
    d, qf, qs = [], [], []
    for m in range(n // 2):
        i, j = 2 * m, 2 * m + 1
        if {order[i], order[j]} != {"0", "1"}:
            continue
        p0, p1 = (i, j) if order[i] == "0" else (j, i)
        if min(stu[p0], ref[p0], stu[p1], ref[p1]) <= 0:
            continue
        d.append(stu[p0] * ref[p0] / (stu[p1] * ref[p1]))
        qf.append(ref[p1] / stu[p0])
        qs.append(ref[p0] / stu[p1])
    lo, hi = interval(d)
    logs = {g: [math.log(stu[i] * ref[i]) for i in by[g]] for g in "01"}
    sh, sh_lo, sh_hi = (math.exp(v) for v in shift(logs["0"], logs["1"]))
    return {
        "n": n,
        "gpu_events": gpu,
        "ms": median(stu),
        "speedup": 1 / math.sqrt(r0 * r1) if r0 > 0 and r1 > 0 else float("nan"),
        "speedup_all": 1 / median(ratio) if ratio else float("nan"),
        "r0": r0,
        "r1": r1,
        "f_stu": median([stu[i] for i in by["0"]]) / median([stu[i] for i in by["1"]]),
        "f_ref": median([ref[i] for i in by["1"]]) / median([ref[i] for i in by["0"]]),
        "blocks": len(d),
        "D": median(d),
        "D_lo": lo,
        "D_hi": hi,
        "shift": sh,
        "shift_lo": sh_lo,
        "shift_hi": sh_hi,
        "first": median(qf),
        "second": median(qs),
        "fence_us": 1e3 * series["fence_ms"] / n if "fence_ms" in series else float("nan"),
    }


def rows_of(root):
    rows = []
    found = []
    for d, _, files in os.walk(root):
        if "result.txt" in files and os.path.basename(os.path.dirname(d)) == "run":
            found.append(os.path.join(d, "result.txt"))
    for res in sorted(found):
        d = os.path.dirname(res)
        name = os.path.basename(d)
        if "-run" not in name:
            continue
        if name.startswith("ref-") or name.startswith("expected-"):
            continue
        ex_var = name.rsplit("-run", 1)[0]
        job_path = os.path.join(d, "job.txt")
        if not os.path.exists(job_path) or "-" not in ex_var:
            continue
        job = read_job(job_path)
        exercise, variant = ex_var.split("-", 1)
        # orders.sh grades into <lab>[-<submission>]-r<run>: the run is not part of the key.
        lab = next((p for p in res.split(os.sep) if p.startswith("lab")), "?")
        lab = re.sub(r"-r[0-9]+$", "", lab)
        if TARGET not in ("all", job.get("target")):
            continue
        for ci, series_map in read_result(res).items():
            case = job["cases"][ci] if ci < len(job["cases"]) else str(ci)
            for sname, s in series_map.items():
                a = analyse(s)
                if a:
                    a.update(lab=lab, exercise=exercise, variant=variant, case=case,
                             series=sname, target=job.get("target", "?"), root=root)
                    rows.append(a)
    return rows


# grade/speed.c's ORDERS_* constants: the rule the honest spread must stay clear of.
RULE_MIN_BLOCKS, RULE_FLOOR_MS, RULE_GROSS_FLOOR_MS = 6, 0.002, 0.01
RULE_MARGIN, RULE_SHIFT_MARGIN, RULE_GROSS, RULE_SHIFT_GROSS = 1.15, 1.3, 1.5, 2.0


def beyond(lo, hi, ms, floor_ms):
    """How far an interval lies from 1, as a factor, where that part of it is more than
    floor_ms of the call (speed.c's beyond())."""
    f = lo if lo > 1 else (1 / hi if 0 < hi < 1 else 1)
    return f if f > 1 and math.log(f) * ms > floor_ms else 1


def disagree(r, floor_ms, margin, shift_margin):
    return (beyond(r["D_lo"], r["D_hi"], r["ms"], floor_ms) > margin or
            beyond(r["shift_lo"], r["shift_hi"], r["ms"], floor_ms) > shift_margin)


def rule_summary(rows):
    judged, flagged = 0, []
    for r in rows:
        if r["n"] < 2 * RULE_MIN_BLOCKS or r["blocks"] < RULE_MIN_BLOCKS:
            continue
        judged += 1
        if disagree(r, RULE_GROSS_FLOOR_MS, RULE_GROSS, RULE_SHIFT_GROSS):
            flagged.append(("CH", r))
        elif r["series"] == "call" and disagree(r, RULE_FLOOR_MS, RULE_MARGIN, RULE_SHIFT_MARGIN):
            flagged.append(("not credited", r))
    return judged, flagged


def fmt(x, p=3):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else "%.*f" % (p, x)


def main(roots):
    rows = [r for root in roots for r in rows_of(root)]
    cols = ("lab", "exercise/variant/case", "series", "n", "ms", "speedup", "r0", "r1", "f_stu",
            "f_ref", "D", "lo", "hi", "first", "second", "fence_us")
    print("# runs: one row per series")
    print("\t".join(cols))
    for r in rows:
        print("\t".join([r["lab"], "%s/%s/%s" % (r["exercise"], r["variant"], r["case"]),
                         r["series"], str(r["n"]), fmt(r["ms"], 4), fmt(r["speedup"]),
                         fmt(r["r0"]), fmt(r["r1"]), fmt(r["f_stu"]), fmt(r["f_ref"]),
                         fmt(r["D"]), fmt(r["D_lo"]), fmt(r["D_hi"]), fmt(r["first"]),
                         fmt(r["second"]), fmt(r["fence_us"], 1)]))
    groups = {}
    for r in rows:
        key = (r["lab"], r["exercise"], r["variant"], r["case"], r["series"])
        groups.setdefault(key, []).append(r)
    print("\n# spread over the runs: D of each run, sd of log D, the widest interval "
          "(max of hi/D and D/lo), the largest |log D| as a factor")
    print("\t".join(("lab", "exercise/variant/case", "series", "runs", "ms", "D of each run",
                     "sd_logD", "widest", "worst")))
    worst_all = 0.0
    for key, rs in sorted(groups.items()):
        logs = [math.log(r["D"]) for r in rs if r["D"] > 0]
        sd = statistics.stdev(logs) if len(logs) > 1 else float("nan")
        widest = max(max(r["D_hi"] / r["D"], r["D"] / r["D_lo"]) for r in rs if r["D"] > 0)
        worst = math.exp(max(abs(x) for x in logs)) if logs else float("nan")
        worst_all = max(worst_all, worst)
        print("\t".join([key[0], "%s/%s/%s" % key[1:4], key[4], str(len(rs)),
                         fmt(median([r["ms"] for r in rs]), 4),
                         " ".join(fmt(r["D"]) for r in rs), fmt(sd), fmt(widest), fmt(worst)]))
    print("\n# largest disagreement of any run, as a factor: %s" % fmt(worst_all))
    judged, flagged = rule_summary(rows)
    print("# grade/speed.c's rule on these series: %d judged (%d blocks or more), %d past it"
          % (judged, RULE_MIN_BLOCKS, len(flagged)))
    for what, r in flagged:
        print("#   %s: %s %s/%s/%s %s, %.4f ms, D %s (%s-%s), shift %s (%s-%s)" % (
            what, r["lab"], r["exercise"], r["variant"], r["case"], r["series"], r["ms"],
            fmt(r["D"]), fmt(r["D_lo"]), fmt(r["D_hi"]), fmt(r["shift"]), fmt(r["shift_lo"]),
            fmt(r["shift_hi"])))
    out = os.environ.get("ORDERS_JSON")
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
