#!/usr/bin/env bash
# Run Check suite binaries, print each one's summary, and a closing "N passed, N failed" line.
# usage: tests/run-suites.sh LABEL BIN...
#
# No suite asserts how long something took; hangs are bounded by watchdogs instead, generous
# enough for a loaded machine: Check's per-test timeout where a suite sets none
# (CK_DEFAULT_TIMEOUT, Check's own default being 4 s), and LG_SUITE_TIMEOUT for a whole suite
# (killed, and counted as failed, past it).
#
# LG_SUITE_JOBS suites run at once (default 2 for the unit and end-to-end suites, which spend
# much of their time waiting on compilers, sandboxed runs and their limits; 2 for the GPU suites
# on a machine of 8 CPUs or more, which take turns on the GPU through the timing coordinator,
# else 1); each suite's output is kept and printed in the order given.
set -u
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-300}
suite_timeout=${LG_SUITE_TIMEOUT:-1800}
label=$1; shift
tmp=$(mktemp -d /tmp/lg-suites-XXXXXX)
cleanup() { rm -rf "$tmp"; [ -n "${own_cache:-}" ] && rm -rf "$own_cache"; [ -n "${own_coord:-}" ] && rm -rf "$own_coord"; }
trap cleanup EXIT
# The end-to-end and GPU suites grade the same labs again and again: one grader cache for the
# whole run (references, expected outputs, calibration, objects; keyed by content and published
# atomically), so each lab is built and calibrated once. Suites that inspect a cache of their
# own unset it.
# Unit suites are hermetic: never a cache from the environment.
[ "$label" = unit ] && unset LABGRADER_CACHE
if [ "$label" != unit ] && [ -z "${LABGRADER_CACHE:-}" ]; then
    own_cache=$(mktemp -d /tmp/lg-suite-cache-XXXXXX)
    export LABGRADER_CACHE=$own_cache
fi
# One timing coordinator for the whole run (docs/coordinator.md): the suites take turns for
# their timed series as graders of one machine do, apart from any real grader of this machine.
if [ -z "${LABGRADER_COORDINATOR:-}" ]; then
    own_coord=$(mktemp -d /tmp/lg-suite-coord-XXXXXX)
    chmod 1777 "$own_coord"
    export LABGRADER_COORDINATOR=$own_coord
fi
# The GPU suites share the GPU through the machine's timing coordinator as a course's graders do
# (docs/coordinator.md), two at once where the machine has the cores for their untimed work (8
# and more), so that one's compiles and checked calls overlap the other's series. Three at once
# on an H200 made each suite about three times slower, not the whole faster: their series take
# turns, and each one's untimed work is frozen for the others' CPU series.
gpu_jobs=1
[ "$label" = gpu ] && [ "$(nproc 2>/dev/null || echo 1)" -ge 8 ] && gpu_jobs=2
jobs=${LG_SUITE_JOBS:-$([ "$label" = gpu ] && echo "$gpu_jobs" || echo 2)}

# GPU suites several at once (LG_SUITE_JOBS) on a machine of several GPUs: each suite on a GPU of
# its own, in turn, unless CUDA_VISIBLE_DEVICES says otherwise (a suite that grades with
# --gpus N sees the GPU it was given; the timing coordinator keeps the series of suites that
# share a GPU apart).
gpus=0
if [ "$label" = gpu ] && [ "$jobs" -gt 1 ] && [ -z "${CUDA_VISIBLE_DEVICES+x}" ] &&
    command -v nvidia-smi > /dev/null; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi

# One suite: its output in $tmp/<i>.out, its exit status and seconds in $tmp/<i>.rc.
run_one() {
    local i=$1 bin=$2 t0=$SECONDS rc
    [ "$gpus" -gt 1 ] && export CUDA_VISIBLE_DEVICES=$((i % gpus))
    CK_FORK=yes CK_XML_LOG_FILE_NAME="$tmp/$i.xml" timeout -k 30 "$suite_timeout" "$bin" \
        > "$tmp/$i.out" 2>&1; rc=$?
    [ $rc -eq 124 ] && echo "$label: $(basename "$bin") still running after ${suite_timeout} s: killed (LG_SUITE_TIMEOUT)" >> "$tmp/$i.out"
    echo "$rc $((SECONDS - t0))" > "$tmp/$i.rc"
}

passed=0; failed=0; skips=0; bad=(); recap=()
# Where a long suite's time went (Check's XML log: each test's duration), so that keeping
# `make test` inside its budget starts from figures: its three slowest tests, for suites of 30 s
# or more.
slowest() {
    [ "$2" -ge 30 ] && [ -s "$1" ] || return 0
    awk '/<test[ >]/ { intest = 1 } /<\/test>/ { intest = 0 }
         intest && match($0, /<id>[^<]*<\/id>/) { id = substr($0, RSTART + 4, RLENGTH - 9) }
         intest && match($0, /<duration>[^<]*<\/duration>/) {
             print substr($0, RSTART + 10, RLENGTH - 21), id }' "$1" | sort -rn | head -n 3 |
        awk '{ printf "%s%s %.0f s", (NR > 1 ? ", " : "           slowest: "), $2, $1 } END { if (NR) print "" }'
}
# A finished suite's summary (and its failures' output).
report() {
    local i=$1 bin=$2 out rc took line n checks f e
    out=$(cat "$tmp/$i.out"); read -r rc took < "$tmp/$i.rc"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n1)
    n=$(printf '%s' "$line" | sed -nE 's/.*Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/p')
    if [ -n "$n" ]; then
        read -r checks f e <<< "$n"
        passed=$((passed + checks - f - e)); failed=$((failed + f + e))
    elif [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
    fi
    if [ "$rc" -ne 0 ]; then
        bad+=("$bin")
        printf '%s\n' "$out" | grep -vE '^[0-9]+%: Checks' | tail -n 40
        # Check's own failure lines once more, last: a sanitizer's leak report (a test that
        # failed leaves what it allocated) or a long log can push them out of a CI excerpt.
        printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+:[FE]:' | tail -n 10 | sed 's/^/  failed: /'
        recap+=("$(basename "$bin"): $(printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+:[FE]:' |
            head -n 3 | cut -c1-300 | tr '\n' ' ')")
        [ "$rc" -eq 124 ] && recap[-1]+="(killed past LG_SUITE_TIMEOUT)"
    fi
    printf '%-10s %-32s %-48s %4d s\n' "$label" "$(basename "$bin")" "${line:-exit $rc}" "$took"
    slowest "$tmp/$i.xml" "$took"
    # A check that could not run here passes, so say why, rather than let it look like a run.
    printf '%s\n' "$out" | grep -iE '(^|[: ])skipped: ' | sort -u | sed 's/^/           /'
    skips=$((skips + $(printf '%s\n' "$out" | grep -ciE '(^|[: ])skipped: ')))
}

# Stopped from outside (a machine lent by the minute, its time running out): the suites that
# ended are still reported, and the others named.
partial() {
    local k=0
    for b in "$@"; do
        k=$((k + 1))
        if [ -f "$tmp/$k.rc" ]; then report "$k" "$b"; else echo "$label: $(basename "$b") did not end"; fi
    done
    echo "$label: $passed passed, $failed failed, stopped before every suite ended, in $SECONDS s"
    exit 143
}
[ "$jobs" -ne 1 ] && trap 'partial "$@"' TERM

i=0
for bin in "$@"; do
    i=$((i + 1))
    if [ ! -x "$bin" ]; then
        echo "$label: missing $bin" > "$tmp/$i.out"; echo "127 0" > "$tmp/$i.rc"
        [ "$jobs" -eq 1 ] && report "$i" "$bin"
        continue
    fi
    if [ "$jobs" -eq 1 ]; then
        # One at a time: each summary as soon as its suite ends (a run cut short keeps them).
        run_one "$i" "$bin"
        report "$i" "$bin"
        continue
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run_one "$i" "$bin" &
done
wait
if [ "$jobs" -ne 1 ]; then
    i=0
    for bin in "$@"; do
        i=$((i + 1))
        report "$i" "$bin"
    done
fi
# The failures once more, right above the closing line: a CI excerpt is the log's tail, and a
# failed suite's own lines are far above it when the suites after it passed.
for r in "${recap[@]}"; do echo "$label: FAILED $r"; done
note=""
[ "$skips" -gt 0 ] && note=" ($skips of the passes only skipped, reasons above)"
echo "$label: $passed passed, $failed failed$note, in $SECONDS s"
[ ${#bad[@]} -eq 0 ]
