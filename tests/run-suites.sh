#!/usr/bin/env bash
# Run Check suite binaries, print each one's summary, and a closing "N passed, N failed" line.
# usage: tests/run-suites.sh LABEL BIN...
#
# No suite asserts how long something took; hangs are bounded by watchdogs instead, generous
# enough for a loaded machine: Check's per-test timeout where a suite sets none
# (CK_DEFAULT_TIMEOUT, Check's own default being 4 s), and LG_SUITE_TIMEOUT for a whole suite
# (killed, and counted as failed, past it).
set -u
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
suite_timeout=${LG_SUITE_TIMEOUT:-1800}
label=$1; shift
passed=0; failed=0; skips=0; bad=()
for bin in "$@"; do
    [ -x "$bin" ] || { echo "$label: missing $bin"; bad+=("$bin"); failed=$((failed+1)); continue; }
    t0=$SECONDS
    out=$(CK_FORK=yes timeout -k 30 "$suite_timeout" "$bin" 2>&1); rc=$?
    [ $rc -eq 124 ] && out+=$'\n'"$label: $(basename "$bin") still running after ${suite_timeout} s: killed (LG_SUITE_TIMEOUT)"
    took=$((SECONDS - t0))
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n1)
    n=$(printf '%s' "$line" | sed -nE 's/.*Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/p')
    if [ -n "$n" ]; then
        set -- $n "$@"; checks=$1; fails=$(( $2 + $3 )); shift 3
        passed=$((passed + checks - fails)); failed=$((failed + fails))
    elif [ $rc -ne 0 ]; then
        failed=$((failed+1))
    fi
    if [ $rc -ne 0 ]; then
        bad+=("$bin")
        printf '%s\n' "$out" | grep -vE '^[0-9]+%: Checks' | tail -n 40
    fi
    printf '%-10s %-32s %-48s %4d s\n' "$label" "$(basename "$bin")" "${line:-exit $rc}" "$took"
    # A check that could not run here passes, so say why, rather than let it look like a run.
    printf '%s\n' "$out" | grep -iE '(^|[: ])skipped: ' | sort -u | sed 's/^/           /'
    skips=$((skips + $(printf '%s\n' "$out" | grep -ciE '(^|[: ])skipped: ')))
done
note=""
[ "$skips" -gt 0 ] && note=" ($skips of the passes only skipped, reasons above)"
echo "$label: $passed passed, $failed failed$note, in $SECONDS s"
[ ${#bad[@]} -eq 0 ]
