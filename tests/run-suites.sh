#!/usr/bin/env bash
# Run Check suite binaries, print each one's summary, and a closing "N passed, N failed" line.
# usage: tests/run-suites.sh LABEL BIN...
set -u
label=$1; shift
passed=0; failed=0; skips=0; bad=()
for bin in "$@"; do
    [ -x "$bin" ] || { echo "$label: missing $bin"; bad+=("$bin"); failed=$((failed+1)); continue; }
    t0=$SECONDS
    out=$(CK_FORK=yes "$bin" 2>&1); rc=$?
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
