#!/usr/bin/env bash
# tests/bench/concurrency.sh BIN WORK: make bench's rows for graders that run beside each other
# on one machine (docs/coordinator.md), lab 6 on a GPU machine. Prints table rows
# ("measure|value|target|ratio") on stdout, progress on stderr.
#
#   checks    four students' checks at once, each in a folder of its own: CH on honest code, and
#             how far each case's speed-up moved from the same check alone
#   copies    a class of BENCH_COPIES (8) copies of the solution, --gpus BENCH_COPIES_GPUS (1):
#             the spread of their scores, and the worst coefficient of variation of a case's
#             speed-up over them
#   scale     a class of BENCH_SCALE (20) copies at --gpus 1, 2 and 4 (BENCH_SCALE_GPUS; the
#             word "default" grades without --gpus, as `grade` does unless told):
#             submissions a minute, the ratio to the first, CH on honest code
#             (BENCH_PARALLEL N: each worker grades N variants of a student side by side,
#             grade --parallel N, in the copies and scale rows and their labels)
#   rush      BENCH_RUSH ("1 8 20 50") autogrades at once (--stdin-tar, as Gradescope's runners
#             call the course's machine over ssh), warm, and BENCH_RUSH_COLD (20; 0: none) on
#             empty caches first: how many answered with a grade, the slowest and median
#             seconds to an answer, any not the lone run's grade or with speed points pending
# BENCH_CONCURRENCY picks the groups (default "checks copies scale rush"); BENCH_CONCURRENCY_LAB
# another lab (tests/fixtures/labcpu tries the script on a machine without a GPU).
set -u
BIN=$1
WORK=$2
GROUPS_=" ${BENCH_CONCURRENCY:-checks copies scale rush} "
want() { [[ "$GROUPS_" == *" $1 "* ]]; }
note() { echo "bench: $* ($(date +%T))" >&2; }
row() { printf '%s|%s|%s|%s\n' "$1" "$2" "$3" "$4"; }
LAB=${BENCH_CONCURRENCY_LAB:-labs/lab6}
PAR=()
SAYPAR=""
if [ -n "${BENCH_PARALLEL:-}" ]; then PAR=(--parallel "$BENCH_PARALLEL"); SAYPAR=" --parallel $BENCH_PARALLEL"; fi
export LABGRADER_CACHE=${LABGRADER_CACHE:-$WORK/concurrency-cache}

# A class of n copies of the solution in dir, each with a comment of its own (no object shared
# through the cache; the same code for the grade's decisions).
copies() {
    local dir=$1 n=$2
    rm -rf "$dir"
    for i in $(seq 1 "$n"); do
        mkdir -p "$dir/s$i"
        cp "$LAB"/solution/* "$dir/s$i/"
        for f in "$dir/s$i"/*.c*; do printf '\n/* s%d */\n' "$i" >> "$f"; done
    done
}

# Facts of results files (the arguments): each CH case, each case not timed, the scores, and
# each case's speed-up (cases of 50 us or more), as "key value" lines.
facts() {
    python3 - "$@" <<'PY'
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f))
    print("score", r["score"])
    for e in r["exercises"]:
        for v in e["variants"]:
            for c in v["cases"]:
                if c["verdict"] == "CH":
                    print("ch", f, e["exercise_id"], v["variant_id"], c["case_id"])
                if c.get("not_timed"):
                    print("nottimed", c["not_timed"])
                if c["verdict"] == "OK" and c.get("speedup_ref") and c["time"]["median_ms"] >= 0.05:
                    print("speed", "%s/%s/%s" % (e["exercise_id"], v["variant_id"], c["case_id"]),
                          c["speedup_ref"])
PY
}

checks_rows() {
    note "four checks at once"
    local d=$WORK/checks
    rm -rf "$d"
    "$BIN" check "$LAB" --out "$d/warm" --no-pdf --no-html --quiet > /dev/null 2>&1
    for k in 1 2 3 4; do
        "$BIN" check "$LAB" --out "$d/at-once-$k" --no-pdf --no-html --quiet > "$d.$k.log" 2>&1 &
    done
    wait
    "$BIN" check "$LAB" --out "$d/alone" --no-pdf --no-html --quiet > /dev/null 2>&1
    local alone=$(ls "$d"/alone/*/*/results.json)
    facts "$d"/at-once-*/*/*/results.json > "$d.facts"
    facts $alone > "$d.alone"
    local ch=$(grep -c '^ch ' "$d.facts")
    row "4 checks at once: CH on honest code (cases)" "$ch" "target 0" ""
    row "  cases not timed (the machine busy past the wait)" "$(grep -c '^nottimed' "$d.facts")" "-" ""
    python3 - "$d.facts" "$d.alone" <<'PY'
import sys
def speeds(p):
    out = {}
    for l in open(p):
        w = l.split()
        if w[0] == "speed":
            out.setdefault(w[1], []).append(float(w[2]))
    return out
many, alone = speeds(sys.argv[1]), speeds(sys.argv[2])
worst, key = 0.0, "-"
for k, xs in many.items():
    if k in alone:
        for x in xs:
            d = abs(x / alone[k][0] - 1) * 100
            if d > worst:
                worst, key = d, k
print("  speed-up against the same check alone, worst case (%%)|%.1f|%s|" % (worst, key))
PY
}

copies_rows() {
    local n=${BENCH_COPIES:-8} g=${BENCH_COPIES_GPUS:-1} d=$WORK/copies
    note "a class of $n identical copies, --gpus $g$SAYPAR"
    copies "$d/class" "$n"
    local w=() # "default": no --gpus, grade's own choice
    [ "$g" = default ] || w=(--gpus "$g")
    "$BIN" grade "$LAB" --submissions "$d/class" --out "$d/out" --no-pdf --no-html --no-slow \
        "${w[@]}" "${PAR[@]}" > "$d.log" 2>&1
    facts "$d"/out/*/s*/results.json > "$d.facts"
    python3 - "$d.facts" "$n" ", --gpus $g$SAYPAR" <<'PY'
import statistics, sys
scores, speed, ch = [], {}, 0
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] == "score":
        scores.append(float(w[1]))
    elif w[0] == "speed":
        speed.setdefault(w[1], []).append(float(w[2]))
    elif w[0] == "ch":
        ch += 1
print("class of %s identical copies%s: score spread (points)|%.2f|target 0|" % (sys.argv[2], sys.argv[3], max(scores) - min(scores)))
worst, key = 0.0, "-"
for k, xs in speed.items():
    if len(xs) > 1:
        cv = 100 * statistics.stdev(xs) / statistics.mean(xs)
        if cv > worst:
            worst, key = cv, k
print("  worst speed-up CV over the copies (%%, %s)|%.2f|limit 2|%.2f" % (key, worst, worst / 2))
print("  CH on honest code (cases)|%d|target 0|" % ch)
PY
}

# The GPUs this machine shows (0 without nvidia-smi).
GPUS_SEEN=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)

scale_rows() {
    local n=${BENCH_SCALE:-20} d=$WORK/scale base=""
    copies "$d/class" "$n"
    for g in ${BENCH_SCALE_GPUS:-1 2 4}; do
        note "a class of $n, --gpus $g"
        rm -rf "$d/out$g"
        local t0=$(date +%s.%N) w=()
        [ "$g" = default ] || w=(--gpus "$g")
        "$BIN" grade "$LAB" --submissions "$d/class" --out "$d/out$g" --no-pdf --no-html \
            --no-slow --timeout 20 "${w[@]}" "${PAR[@]}" > "$d.$g.log" 2>&1
        local t1=$(date +%s.%N)
        local rate=$(awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n * 60 / (b - a) }')
        [ -z "$base" ] && base=$rate
        local ch=$(facts "$d"/out$g/*/s*/results.json | grep -c '^ch ')
        # One worker, and grade's own choice, against the target of one GPU, as the other rows
        # (1 or under meets it: 15 / rate); more workers against one (the speed-up).
        local ratio one=no
        { [ "$g" = 1 ] || [ "$g" = default ]; } && one=yes
        if [ "$one" = yes ]; then
            ratio=$(awk -v a="$rate" 'BEGIN { if (a > 0) printf "%.2f", 15 / a }')
        else
            ratio=$(awk -v a="$rate" -v b="$base" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
        fi
        # 1.8x is the target where each worker has a GPU of its own; workers sharing fewer GPUs
        # take turns on them, so their row is the speed-up over one worker, with no target.
        local target="target 15"
        if [ "$one" = no ]; then
            target="x of --gpus 1"
            [ "$GPUS_SEEN" -ge "$g" ] && target="1.8x of --gpus 1"
        fi
        row "class of $n, --gpus $g$SAYPAR: submissions/min (CH: $ch)" "$rate" "$target" "$ratio"
    done
}

# One autograde as Gradescope's runner calls the machine: the submission as a tar on stdin,
# traced (the trace goes to its log, which rushtime.py reads; the answer is the same).
rush_one() {
    local tgz=$1 out=$2
    local t0=$(date +%s.%N)
    LABGRADER_TRACE=1 "$BIN" autograde "$LAB" --stdin-tar --gpu-policy fail < "$tgz" \
        > "$out.json" 2> "$out.log"
    echo "$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" > "$out.t"
}

# The answers of one wave (d/<tag>-*): answered with a grade, slowest, the lone run's score.
rush_row() {
    python3 - "$1" "$2" "$3" <<'PY'
import glob, json, statistics, sys
d, tag, label = sys.argv[1], sys.argv[2], sys.argv[3]
def doc(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None
alone = (doc(d + "/alone.json") or {}).get("score")
lone_tests = {x.get("name"): x for x in (doc(d + "/alone.json") or {}).get("tests", [])}
secs, failed, other, pending, shared = [], 0, 0, 0, 0
for t in glob.glob("%s/%s-*.t" % (d, tag)):
    rc, s = open(t).read().split()
    secs.append(float(s))
    answer = doc(t[:-2] + ".json")
    failed += rc != "0" or answer is None or "score" not in answer
    # Cases not timed by the answer's due time, their speed points (if any) left to the
    # instructor's grading (docs/coordinator.md, "Not timed"): the status every export
    # carries, whatever the language of the answer's text.
    extra = (answer or {}).get("extra_data") or {}
    late = extra.get("labgrader_status") == "not-timed"
    # Of them, those with a case whose every measurement shared the machine: the coordinator
    # should have kept the machine quiet for it (docs/coordinator.md, "Not timed").
    sh = late and (extra.get("labgrader_not_timed") or {}).get("shared", 0) > 0
    pending += late and not sh
    shared += sh
    differs = answer is not None and not late and answer.get("score") != alone
    other += differs
    if differs:
        # Which test lost or gained points, and what the answer says of it: the next look at a
        # grade that changed with what ran beside it starts there.
        mine = {x.get("name"): x for x in answer.get("tests", [])}
        for name, x in mine.items():
            a = lone_tests.get(name)
            if a is not None and a.get("score") != x.get("score"):
                lines = [l for l in (x.get("output") or "").split("\n") if l.strip()]
                print("  %s: %s %s of %s (alone %s): %s" % (t[:-2].split("/")[-1], name, x.get("score"),
                      x.get("max_score"), a.get("score"), " | ".join(lines[1:])[:400]), file=sys.stderr)
secs.sort()
print("%s: answered with a grade %d of %d; slowest / median answer s (%d not the lone grade, %d with cases not timed by their limit, %d with a case shared)|%.1f / %.1f|limit 600|%.2f"
      % (label, len(secs) - failed, len(secs), other, pending, shared, secs[-1], statistics.median(secs), secs[-1] / 600))
PY
    # Where the wave's time went (docs/benchmarks.md, "Where a rush's time goes").
    python3 tests/bench/rushtime.py "$1/$2"-*.log | awk '
        { v[$1] = $2 }
        END { printf "  share of the wave with no series running (%%; CPU series %s%%, GPU series %s%%)|%s|-|\n",
                     v["cpu_series"], v["gpu_series"], v["no_series"]
              printf "    no series while a GPU series was queued for its turn (%% of the wave)|%s|-|\n", v["no_series_gpu_queued"] }'
}

rush_wave() { # tag n: n autogrades at once
    local d=$WORK/rush
    for k in $(seq 1 "$2"); do rush_one "$d/sub.tgz" "$d/$1-$k" & done
    wait
}

rush_rows() {
    local d=$WORK/rush
    rm -rf "$d"
    mkdir -p "$d/root/submission"
    cp "$LAB"/solution/*.c* "$d/root/submission/"
    echo '{"users": [{"email": "s@uni.example", "name": "S"}]}' > "$d/root/submission_metadata.json"
    tar -C "$d/root" -czf "$d/sub.tgz" submission submission_metadata.json
    if [ -n "${BENCH_RUSH_COLD:-20}" ] && [ "${BENCH_RUSH_COLD:-20}" != 0 ]; then
        # A machine just started: nothing measured, nothing built, in a cache of its own.
        note "autograde: ${BENCH_RUSH_COLD:-20} at once on empty caches"
        local warm_cache=$LABGRADER_CACHE
        export LABGRADER_CACHE=$WORK/rush-cold-cache
        rm -rf "$LABGRADER_CACHE"
        rush_wave cold "${BENCH_RUSH_COLD:-20}"
        export LABGRADER_CACHE=$warm_cache
    fi
    note "autograde: one alone (warms the cache: the machine's references)"
    rush_one "$d/sub.tgz" "$d/warmup"
    rush_one "$d/sub.tgz" "$d/alone"
    row "autograde alone: seconds to an answer" "$(cut -d' ' -f2 "$d/alone.t")" "-" ""
    [ -n "${BENCH_RUSH_COLD:-20}" ] && [ "${BENCH_RUSH_COLD:-20}" != 0 ] &&
        rush_row "$d" cold "autograde ${BENCH_RUSH_COLD:-20} at once, empty caches"
    for n in ${BENCH_RUSH:-1 8 20 50}; do
        note "autograde: $n at once"
        rush_wave "n$n" "$n"
        rush_row "$d" "n$n" "autograde $n at once"
    done
}

want checks && checks_rows
want copies && copies_rows
want scale && scale_rows
want rush && rush_rows
true
