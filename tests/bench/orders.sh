#!/usr/bin/env bash
# tests/bench/orders.sh [OUT]: how far the two orders of the timed pairs disagree on honest code
# (issue 37, docs/timing.md "When the orders disagree"): every lab's solution graded
# ORDERS_RUNS times with its runs kept, then one table row per paired series of each run
# (tests/bench/orders.py says what the columns are) and the spread over the runs. The rule that
# withholds or refuses a speed-up whose orders disagree (grade/speed.c) is set from these figures.
#
#   ORDERS_LABS    labs to grade ("3 4 6 7 8 9"; a folder under labs/ or a path to a lab)
#   ORDERS_RUNS    gradings of each (3)
#   ORDERS_MODE    grade (the lab's own budget, as an instructor grades; default) or check (a
#                  student's quick check: 0.2 s and 30 pairs a series)
#   ORDERS_SUBS    more submissions, "LABDIR:SUBDIR ..." (class fixtures, a naive kernel)
#   ORDERS_LOAD    busy processes beside the gradings (0): a loaded machine
#   ORDERS_TARGET  cpu, gpu or all (all): which variants' rows the table keeps
#
# Without a GPU the GPU variants are skipped by the grader (SK) and have no rows. OUT (default a
# folder under /tmp, removed at the end unless given) keeps the runs, orders.txt (the table) and
# orders.json (every row).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$PWD/build/grader
LABS=${ORDERS_LABS:-3 4 6 7 8 9}
RUNS=${ORDERS_RUNS:-3}
MODE=${ORDERS_MODE:-grade}
LOAD=${ORDERS_LOAD:-0}
TARGET=${ORDERS_TARGET:-all}
out=${1:-}
own=
if [ -z "$out" ]; then
    out=$(mktemp -d /tmp/lg-orders-XXXXXX)
    own=1
fi
mkdir -p "$out"
# One cache for every grading (the machine's calibration, the references' builds and timings).
export LABGRADER_CACHE=${LABGRADER_CACHE:-$out/.cache}
note() { echo "orders: $* ($(date +%T))" >&2; }
[ -x "$BIN" ] || { echo "orders: build the grader first (make)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "orders: python3 is needed for the table" >&2; exit 1; }

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2> /dev/null || true; done; }
trap 'stop_hogs; [ -z "$own" ] || rm -rf "$out"' EXIT
# Cut off by a time limit: the table of what was graded so far.
cut=0 cur=
trap 'cut=1; [ -z "$cur" ] || kill "$cur" 2> /dev/null' TERM INT
for _ in $(seq 1 "$LOAD"); do
    (while :; do :; done) &
    hogs+=($!)
done

# One grading of submission SUB of lab LABDIR into OUT/NAME-rK (the name starts with "lab", so
# that the table can say which lab a row is from).
grade_one() {
    local labdir=$1 sub=$2 name=$3 k=$4
    local dest=$out/$name-r$k subs=$out/subs-$name
    rm -rf "$dest"
    if [ "$MODE" = check ]; then
        "$BIN" check "$labdir" --submission "$sub" --out "$dest" --keep --no-pdf --quiet \
            --lang en > "$dest.log" 2>&1 &
    else
        if [ ! -d "$subs" ]; then
            mkdir -p "$subs"
            cp -r "$sub" "$subs/$(basename "$sub")"
        fi
        "$BIN" grade "$labdir" --submissions "$subs" --out "$dest" --keep --no-pdf --force \
            --no-slow --lang en > "$dest.log" 2>&1 &
    fi
    # In the background, so that a time limit's TERM is served at once (the trap above).
    cur=$!
    wait "$cur" || true
    cur=
}

for k in $(seq 1 "$RUNS"); do
    [ $cut = 0 ] || break
    for lab in $LABS; do
        [ $cut = 0 ] || break
        labdir=$lab
        [ -d "$labdir" ] || labdir=labs/lab$lab
        [ -d "$labdir/solution" ] || { note "no solution in $labdir: skipped"; continue; }
        note "$labdir, run $k of $RUNS ($MODE)"
        grade_one "$labdir" "$labdir/solution" "lab$(basename "$labdir" | sed 's/^lab//')" "$k"
    done
    for pair in ${ORDERS_SUBS:-}; do
        [ $cut = 0 ] || break
        labdir=${pair%%:*} sub=${pair#*:}
        name="lab$(basename "$labdir" | sed 's/^lab//')-$(basename "$sub")"
        note "$sub over $labdir, run $k of $RUNS ($MODE)"
        grade_one "$labdir" "$sub" "$name" "$k"
    done
done
stop_hogs
[ $cut = 0 ] || echo "orders: cut off; the table of what was graded" >&2

roots=()
for d in "$out"/lab*-r*; do [ -d "$d" ] && roots+=("$d"); done
[ ${#roots[@]} -gt 0 ] || { echo "orders: nothing was graded" >&2; exit 1; }
ORDERS_JSON=$out/orders.json ORDERS_TARGET=$TARGET python3 tests/bench/orders.py "${roots[@]}" \
    | tee "$out/orders.txt"
