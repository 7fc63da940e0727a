#!/usr/bin/env bash
# make bench: how fast labgrader grades, and how well it measures, as ratios against
# targets, peers and physical limits. Prints one table; exits non-zero only if the bench could
# not run.
#
#   speed          (tests/bench/speed.sh) `check` of lab 6 (GPU machine) and of the CPU test
#                  lab: cold, unchanged, after an edit, --no-timing, one case, --full; a class
#                  with a hanging kernel (submissions per minute, the hang's cost); each
#                  variant's re-grade CV of the speedup; the share of run time the timed pairs'
#                  checks cost
#   accuracy       (GPU) the grader's reference times vs a plain CUDA-event loop (eventloop.cu)
#   limits         calibrated machine limits
#   concurrency    (tests/bench/concurrency.sh, GPU) graders beside each other: four checks at
#                  once, a class of identical copies, --gpus 1/2/4, autogrades at a deadline;
#                  BENCH_CONCURRENCY=none skips them
#   similarity     `grader similarity` on one core over BENCH_SIM (500) generated lab 6
#                  submissions (tests/bench/similarity_class.py; 0 skips it): the planted copies
#                  found; and over as many copies of lab 6's solution: one group
# BENCH_REGRADES (5), BENCH_CLASS (7, 0 skips the class), BENCH_SPEED=0 skips the speed rows;
# BENCH_ACCURACY (both): plain, blocking, both or none.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$PWD/build/grader
work=$(mktemp -d /tmp/lg-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
rows=()
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
# Progress on stderr, so a run cut off by a time limit still says how far it got.
note() { echo "bench: $* ($(date +%T))" >&2; }
row() { rows+=("$(printf '%-58s %12s %18s %8s' "$1" "$2" "$3" "$4")"); }
table() {
    printf '%-58s %12s %18s %8s\n' "measure" "value" "target / peer" "ratio"
    printf '%s\n' "${rows[@]}"
}
# Cut off by a time limit: still print what was measured.
trap 'echo "bench: stopped early; the rows measured so far:" >&2; table; exit 143' TERM INT

gpu=no
if build/harness/gpuprobe >/dev/null 2>&1; then gpu=yes; fi
# Lab 6 with its device-pointer calls timed behind the blocking kernel (true, as the lab
# says) or plainly (false): a copy whose timing maps say so, beside a copy of the references
# it names (a link would lead the compile outside what the sandbox shows it).
lab6_copy() {
    local dir=$work/lab6-$1
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir/labs"
        cp -r labs/lab6 "$dir/labs/"
        cp -r kernels "$dir/"
        sed -i -E "s/blocking: (true|false), //; s/timing: \{/timing: {blocking: $1, /" \
            "$dir/labs/lab6/lab.yaml"
        grep -q "blocking: $1" "$dir/labs/lab6/lab.yaml" || { echo "bench: no timing map in lab 6" >&2; exit 1; }
    fi
    echo "$dir/labs/lab6"
}

if [ "${BENCH_SPEED:-1}" != 0 ]; then
    while IFS='|' read -r m v t r; do row "$m" "$v" "$t" "$r"; done \
        < <(tests/bench/speed.sh "$BIN" "$work")
fi

# --- graders beside each other (GPU machine): tests/bench/concurrency.sh -------------------------
if [ "$gpu" = yes ] && [ "${BENCH_CONCURRENCY:-checks copies scale rush}" != none ]; then
    while IFS='|' read -r m v t r; do row "$m" "$v" "$t" "$r"; done \
        < <(bash tests/bench/concurrency.sh "$BIN" "$work")
fi

# --- similarity ---------------------------------------------------------------------------
# Two classes on one core: SIM generated submissions (independent choices, 10 planted copies:
# found as pairs, nothing else) and SIM copies of lab 6's solution (issue 41's leak: one
# group of SIM). Time and peak memory of each run.
SIM=${BENCH_SIM:-500}
sim_run() { # name class: the check over class, on one core; sets t_sim and rss_sim
    local one_core="" timer=""
    command -v taskset >/dev/null && one_core="taskset -c $(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')"
    [ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $work/$1.rss"
    local t0 t1
    t0=$(date +%s.%N)
    $timer $one_core "$BIN" similarity labs/lab6 --submissions "$2" --out "$work/$1/out" \
        --quiet > "$work/$1.log" 2>&1 || return 1
    t1=$(date +%s.%N)
    t_sim=$(calc "$t1 - $t0")
    rss_sim=$( [ -s "$work/$1.rss" ] && awk '{ printf "%.0f MB", $1 / 1024 }' "$work/$1.rss" || echo "?")
}
if [ "$SIM" -gt 0 ]; then
    note "similarity: $SIM generated submissions of lab 6"
    python3 tests/bench/similarity_class.py "$work/sim" "$SIM"
    if sim_run sim "$work/sim/class"; then
        found=0; planted=0
        while read -r a b; do
            planted=$((planted + 1))
            awk -F, -v a="$a" -v b="$b" '(($1 == a && $2 == b) || ($1 == b && $2 == a)) && $3 >= 0.8 \
                { f = 1 } END { exit !f }' "$work/sim/out/lab6/similarity.csv" && found=$((found + 1))
        done < "$work/sim/planted.txt"
        row "similarity: $SIM generated, one core (s; $rss_sim)" "$t_sim" "limit: 60" \
            "$(calc "$t_sim / 60")"
        row "  planted copies found" "$found of $planted" \
            "$(grep -oE '[0-9]+ pairs at or above' "$work/sim.log")" ""
        row "  groups (none expected)" "$(grep -oE '[0-9]+ groups?' "$work/sim.log")" "" ""
    else
        row "similarity" "skipped" "$(tail -n 1 "$work/sim.log" | cut -c1-60)" ""
    fi
    note "similarity: $SIM copies of lab 6's solution"
    python3 tests/bench/similarity_class.py --copies "$work/simc" "$SIM"
    if sim_run simc "$work/simc/class"; then
        row "similarity: $SIM solution copies, one core (s; $rss_sim)" "$t_sim" "limit: 60" \
            "$(calc "$t_sim / 60")"
        row "  the copies as one group" "$(grep -oE 'group 1: [0-9]+ submissions' "$work/simc.log" \
            | grep -oE '[0-9]+ submissions$' || echo none)" "$SIM submissions" ""
    else
        row "similarity (copies)" "skipped" "$(tail -n 1 "$work/simc.log" | cut -c1-60)" ""
    fi
fi

note "accuracy and limits"
# --- accuracy and limits (GPU) ----------------------------------------------------------------
if [ $gpu = yes ]; then
    # Built for this GPU, as the grader builds the references.
    nvcc -O2 -arch=native -o "$work/eventloop" tests/bench/eventloop.cu kernels/matmul_cublas.cu \
        kernels/grade2.cu -lcublas
    # Plain: events around each call, the host's launch latency included, against the
    # same kind of loop. Blocking: the GPU's time for one call, against the loop's own
    # blocked calls; back-to-back calls (throughput) shown beside it.
    acc=${BENCH_ACCURACY:-both}
    # The solution must pass there: a failed case would leave its row out, so say so.
    acc_grade() {
        "$BIN" check "$(lab6_copy "$1")" --submission labs/lab6/solution --out "$2" --no-pdf \
            --quiet --full --case n1024,n7000,n5M > "$2.log" 2>&1 ||
            { note "accuracy grade (blocking: $1) exited $?:"; grep -E ' (WA|RE|TO|CH|XX) ' "$2.log" >&2; }
    }
    [ "$acc" = blocking ] || [ "$acc" = none ] || acc_grade false "$work/acc"
    [ "$acc" = plain ] || [ "$acc" = none ] || acc_grade true "$work/accb"
    ref_ms() {
        [ -d "$1" ] || return 0
        python3 - "$(ls "$1"/lab6/*/results.json)" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["exercises"]:
    if e["exercise_id"] != sys.argv[2]: continue
    for v in e["variants"]:
        if v["variant_id"] != "gpu_dev": continue
        for c in v["cases"]:
            if c["case_id"] == sys.argv[3] and c["ref_time"]["valid"]:
                print("%.6f" % c["ref_time"]["median_ms"])
PY
    }
    [ "$acc" = none ] && specs=() || specs=("matmul n1024 1024" "matmul n7000 7000" "grade2 n5M 5000000")
    for spec in "${specs[@]}"; do
        set -- $spec
        read -r single blocked b2b < <("$work/eventloop" "$1" "$3") || true
        ours=$(ref_ms "$work/acc" "$1" "$2" || true)
        [ -n "$ours" ] && row "accuracy: $1 $2 reference (ms)" "$ours" "event loop $single" \
            "$(calc "$ours / $single")"
        ours=$(ref_ms "$work/accb" "$1" "$2" || true)
        [ -n "$ours" ] && row "accuracy, blocking: $1 $2 (ms)" "$ours" "blocked $blocked" \
            "$(calc "$ours / $blocked")" &&
            row "  vs back-to-back calls (throughput)" "" "back-to-back $b2b" "$(calc "$ours / $b2b")"
    done
    build/harness/calibrate > "$work/cal.txt"
    get() { awk -v k="$1" '$1 == k { print $2 }' "$work/cal.txt"; }
    row "limit: device copy (GB/s, read+write)" "$(get gpu_copy_gbs)" "H100 spec ~3350" ""
    row "limit: H2D pinned (GB/s)" "$(get h2d_pinned_gbs)" "PCIe5 x16 ~64" ""
    row "limit: H2D pageable (GB/s)" "$(get h2d_pageable_gbs)" "pinned $(get h2d_pinned_gbs)" \
        "$(calc "$(get h2d_pageable_gbs) / $(get h2d_pinned_gbs)")"
    row "limit: cuBLAS SGEMM n=8192 (GFLOP/s)" "$(get gpu_sgemm_gflops)" "H100 FP32 ~67000" ""
else
    build/harness/calibrate > "$work/cal.txt"
    get() { awk -v k="$1" '$1 == k { print $2 }' "$work/cal.txt"; }
    row "limit: CPU memory copy (GB/s, read+write)" "$(get cpu_bw_gbs)" "" ""
    row "limit: OpenBLAS SGEMM n=2048 (GFLOP/s)" "$(get cpu_sgemm_gflops)" "" ""
    row "accuracy vs event loop" "skipped" "no GPU here" ""
fi

table
