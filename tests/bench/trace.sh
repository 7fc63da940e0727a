#!/usr/bin/env bash
# tests/bench/trace.sh LAB [CHECK ARGS...]: where the time of one `grader check` goes. Runs it
# with LABGRADER_TRACE=1 (timestamps of each stage on stderr: probes, builds, references, each
# variant's process and cases, judging) and prints the trace, the phases and the case walls.
# For people tuning the grader; `make bench` is the measurement users quote.
set -u
lab=$1
shift
bin=${BIN:-build/grader}
out=${TRACE_OUT:-reports/trace}
mkdir -p "$out"
t0=$(date +%s.%N)
LABGRADER_TRACE=1 "$bin" check "$lab" --out "$out" --no-pdf --quiet "$@" 2> "$out/trace.txt" > /dev/null
t1=$(date +%s.%N)
grep '^\[trace' "$out/trace.txt"
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "total: %.2f s\n", b - a }'
python3 - "$out" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*/*/results.json"):
    r = json.load(open(f))
    print("phases:", {k: round(v, 2) for k, v in r.get("phases", {}).items()})
    for e in r["exercises"]:
        for v in e["variants"]:
            for c in v.get("cases", []):
                if c.get("wall_s"):
                    print("  %s/%s %s %s wall %.2f s pairs %s" % (e["exercise_id"], v["variant_id"],
                          c["case_id"], c["verdict"], c["wall_s"], c.get("pairs", "-")))
PY

