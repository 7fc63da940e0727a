#!/usr/bin/env bash
# make bench: how fast labgrader grades, and how well it measures, as ratios against
# peers and physical limits. Prints one table; exits non-zero only if the bench could not run.
#
#   throughput     N generated submissions graded as a class: submissions per minute and the
#                  split between compiling, references, student runs and reports
#   accuracy       (GPU) the grader's reference times vs a plain CUDA-event loop (eventloop.cu)
#   repeatability  the solution re-graded R times: identical scores, CV of the median times
#   limits         calibrated machine limits, and the solution's times as a share of them
#   similarity     `grader similarity` over BENCH_SIM (500) generated lab 6 submissions on one
#                  core (tests/bench/similarity_class.py; 0 skips it), and the planted copies found
# BENCH_N (8) submissions for throughput, 0 to skip it; BENCH_REPEATS (10) grades for
# repeatability; lab 6 is graded as its spec says (blocking kernel on), BENCH_BLOCKING=0
# grades a copy timed plainly, =1 one with `blocking: true` whatever the spec says;
# BENCH_ACCURACY (both) picks the accuracy runs on a GPU: plain, blocking, both or none;
# BENCH_ROUNDS=K (K >= 2) grades with `timing: {rounds: K}` (function and reference timed
# alternately, speedups from paired ratios) for the throughput and repeatability rows.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$PWD/build/grader
N=${BENCH_N:-8}
R=${BENCH_REPEATS:-10}
work=$(mktemp -d /tmp/lg-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
rows=()
calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }
# Progress on stderr, so a run cut off by a time limit still says how far it got.
note() { echo "bench: $* ($(date +%T))" >&2; }
row() { rows+=("$(printf '%-44s %14s %18s %10s' "$1" "$2" "$3" "$4")"); }
table() {
    printf '%-44s %14s %18s %10s\n' "measure" "value" "peer / limit" "ratio"
    printf '%s\n' "${rows[@]}"
}
# Cut off by a time limit: still print what was measured.
trap 'echo "bench: stopped early; the rows measured so far:" >&2; table; exit 143' TERM INT

gpu=no
if build/harness/gpuprobe >/dev/null 2>&1; then gpu=yes; fi
if [ $gpu = yes ]; then lab=labs/lab6; sub=labs/lab6/solution; only="--only matmul"; rep="--case n1024";
else lab=tests/fixtures/labcpu; sub=tests/fixtures/labcpu/solution; only=""; rep="--case n100k"; fi
labid=$(basename "$lab"); [ "$labid" = labcpu ] && labid=lab99
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
mode=""
if [ $gpu = yes ] && [ -n "${BENCH_BLOCKING:-}" ]; then
    case $BENCH_BLOCKING in
        1) lab=$(lab6_copy true); mode=", blocking" ;;
        0) lab=$(lab6_copy false); mode=", plain" ;;
        *) echo "bench: BENCH_BLOCKING is 0 or 1" >&2; exit 2 ;;
    esac
    sub=$PWD/labs/lab6/solution
fi
# Alternating rounds: a copy of the lab being graded whose timing maps ask for them.
rounds=${BENCH_ROUNDS:-1}
if [ "$rounds" -gt 1 ]; then
    mkdir -p "$work/rnd/labs"
    cp -r "$lab" "$work/rnd/labs/"
    [ -d "$work/rnd/kernels" ] || cp -r kernels "$work/rnd/"
    lab=$work/rnd/labs/$(basename "$lab")
    sed -i "s/timing: {/timing: {rounds: $rounds, /" "$lab/lab.yaml"
    grep -q "rounds: $rounds" "$lab/lab.yaml" || { echo "bench: no timing map in $lab" >&2; exit 1; }
    sub=$PWD/${sub#"$PWD"/}; mode="$mode, $rounds rounds"
fi

if [ "$N" -gt 0 ]; then
note "throughput: grading $N submissions of $labid"
# --- throughput -------------------------------------------------------------------------
mkdir -p "$work/class"
for i in $(seq -w 1 "$N"); do
    cp -r "$sub" "$work/class/s$i"
    # Distinct contents: nothing may be skipped as unchanged, no build reused.
    for f in "$work/class/s$i"/*.c; do printf '\n/* bench copy %s */\n' "$i" >> "$f"; done
done
t0=$(date +%s.%N)
"$BIN" grade "$lab" --submissions "$work/class" --out "$work/out" --no-pdf --no-slow $only \
    > "$work/grade.log" 2>&1 || { cat "$work/grade.log"; exit 1; }
t1=$(date +%s.%N)
wall=$(calc "$t1 - $t0")
split=$(grep '^time:' "$work/grade.log" | sed 's/^time: //')
row "throughput ($N submissions, $labid)" "$(calc "$N * 60 / $wall")/min" "wall $(printf '%.1f s' "$wall")" ""
row "  time split" "" "$split" ""
fi

note "repeatability: $R grades of the solution"
# --- repeatability ------------------------------------------------------------------------
scores=(); medians=(); ratios=()
for i in $(seq 1 "$R"); do
    "$BIN" check "$lab" --submission "$sub" --out "$work/rep" --student "rep$i" --no-pdf \
        --quiet $only $rep > /dev/null 2>&1 || true
    read -r score med ratio < <(python3 - "$work/rep" "rep$i" <<'PY'
import json, sys, glob
r = json.load(open(glob.glob(sys.argv[1] + "/*/" + sys.argv[2] + "/results.json")[0]))
ok = [c for e in r["exercises"] for v in e["variants"] for c in v["cases"]
      if c["verdict"] == "OK" and c["time"]["valid"]]
last = ok[-1] if ok else None
print(r["score"], last["time"]["median_ms"] if last else 0, (last or {}).get("speedup_ref") or 0)
PY
)
    scores+=("$score"); medians+=("$med"); ratios+=("$ratio")
done
distinct=$(printf '%s\n' "${scores[@]}" | sort -u | wc -l)
cv_of() { python3 -c '
import sys, statistics as s
x = [float(a) for a in sys.argv[1:]]
print("%.2f" % (100 * s.stdev(x) / s.mean(x) if len(x) > 1 and s.mean(x) > 0 else 0))' "$@"; }
cv=$(cv_of "${medians[@]}")
cv_ratio=$(cv_of "${ratios[@]}")
row "repeatability$mode: distinct scores over $R grades" "$distinct" "peer: 1" "$distinct"
row "repeatability$mode: CV of a median time (%)" "$cv" "limit: 2" "$(calc "$cv / 2")"
# Speed points depend on the student/reference ratio rather than on one absolute time: noise
# that moves both (a busy shared machine) cancels there.
row "repeatability$mode: CV of the speedup vs ref (%)" "$cv_ratio" "limit: 2" "$(calc "$cv_ratio / 2")"

# --- similarity ---------------------------------------------------------------------------
SIM=${BENCH_SIM:-500}
if [ "$SIM" -gt 0 ]; then
    note "similarity: $SIM generated submissions of lab 6"
    python3 tests/bench/similarity_class.py "$work/sim" "$SIM"
    one_core=""
    command -v taskset >/dev/null && one_core="taskset -c $(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')"
    t0=$(date +%s.%N)
    if $one_core "$BIN" similarity labs/lab6 --submissions "$work/sim/class" --out "$work/sim/out" \
        --quiet > "$work/sim.log" 2>&1; then
        t1=$(date +%s.%N)
        found=0; planted=0
        while read -r a b; do
            planted=$((planted + 1))
            awk -F, -v a="$a" -v b="$b" '(($1 == a && $2 == b) || ($1 == b && $2 == a)) && $3 >= 0.5 \
                { f = 1 } END { exit !f }' "$work/sim/out/lab6/similarity.csv" && found=$((found + 1))
        done < "$work/sim/planted.txt"
        row "similarity ($SIM submissions, one core, s)" "$(calc "$t1 - $t0")" "limit: 60" \
            "$(calc "($t1 - $t0) / 60")"
        row "  planted copies found" "$found of $planted" \
            "$(grep -oE '[0-9]+ pairs at or above' "$work/sim.log")" ""
    else
        row "similarity" "skipped" "$(tail -n 1 "$work/sim.log" | cut -c1-60)" ""
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
