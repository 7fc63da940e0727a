#!/usr/bin/env bash
# Grade the CPU fixture class through a real Slurm and compare with one machine.
#
# Starts a private munged, slurmctld and slurmd (root, localhost, a config in a temp
# folder: nothing in /etc is used or changed), runs `grader slurm` on
# tests/fixtures/labcpu + tests/fixtures/class in 3 shards, waits for the array and the
# merge job, and checks that the gradebook equals, byte for byte, that of a
# single-machine `grader grade` of the same class. Then it deletes one student's
# results, re-runs that shard alone the way `grader slurm` says to (sbatch --array=K,
# with node-local scratch this time) and merges again: the gradebook must be whole again.
# The daemons it started are stopped by pid, and its jobs cancelled, on every exit.
#
# usage (from the repository root): tests/slurm/run.sh [GRADER]   (default: $LG_BIN, build/grader)
# exit status: 0 passed, 1 failed, 77 skipped ("skipped: <reason>" on stdout)
# LG_SLURM_KEEP=1 keeps the temp folder; LG_SLURM_WAIT=seconds bounds each wait (default 600).
set -u

grader=${1:-${LG_BIN:-build/grader}}
lab=tests/fixtures/labcpu
class=tests/fixtures/class
wait_limit=${LG_SLURM_WAIT:-600}
here=$(cd "$(dirname "$0")" && pwd)

skip() {
    echo "skipped: $*"
    exit 77
}
fail() {
    echo "FAIL: $*"
    exit 1
}

# ---- what the test needs ----
for prog in munged munge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
    command -v "$prog" >/dev/null 2>&1 ||
        skip "$prog is not installed (Debian: apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (run the test as root)"
[ -x "$grader" ] || skip "no grader binary at $grader (run make)"
"$grader" slurm --help >/dev/null 2>&1 || skip "$grader has no slurm command"
[ -f "$lab/lab.yaml" ] && [ -f "$class/roster.csv" ] || skip "the fixtures $lab and $class are missing"
grader=$(cd "$(dirname "$grader")" && pwd)/$(basename "$grader")

T=$(mktemp -d /tmp/lg-slurm-e2e-XXXXXX) || fail "mktemp"
# munged refuses a socket folder that others cannot traverse.
chmod 711 "$T"
pids=()
jobs_started=()

cleanup() {
    local rc=$?
    if [ "$rc" != 0 ] && [ ${#jobs_started[@]} -gt 0 ]; then
        scancel "${jobs_started[@]}" >/dev/null 2>&1
        # Jobs' processes (slurmstepd and below) outlive slurmd: wait for them to end.
        for _ in $(seq 1 30); do
            [ -z "$(squeue -h -o %i -j "$(IFS=,; echo "${jobs_started[*]}")" 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    # Only the daemons this script started, newest first.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[$i]}" 2>/dev/null
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        for f in "$T"/log/*.log "$T"/slurm-out/lab99/slurm/*.log; do
            [ -f "$f" ] && { echo "---- $f (last 30 lines)"; tail -n 30 "$f"; }
        done
    fi
    if [ "${LG_SLURM_KEEP:-}" = 1 ]; then
        echo "kept: $T"
    else
        rm -rf "$T"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- a private cluster ----
free_port() {
    local p used
    used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://')
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 20000))
        grep -qx "$p" <<<"$used" || grep -qx "$((p + 1))" <<<"$used" || { echo "$p"; return; }
    done
    echo 26817
}

mkdir -p "$T/munge" "$T/spool" "$T/state" "$T/log" "$T/nodetmp"
chmod 711 "$T/munge"
head -c 1024 /dev/urandom >"$T/munge/munge.key"
chmod 600 "$T/munge/munge.key"
sock=$T/munge/munge.sock
munged -F --key-file="$T/munge/munge.key" --socket="$sock" --pid-file="$T/munge/munged.pid" \
    --log-file="$T/log/munged.log" --seed-file="$T/munge/munged.seed" >"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do
    munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
    sleep 0.1
done
munge -n -S "$sock" | unmunge -S "$sock" >/dev/null 2>&1 || fail "munged did not start"

port=$(free_port)
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
sed -e "s|@DIR@|$T|g" -e "s|@CTLD_PORT@|$port|" -e "s|@SLURMD_PORT@|$((port + 1))|" \
    -e "s|@CPUS@|$(nproc)|" -e "s|@MEM_MB@|$mem_mb|" "$here/slurm.conf.in" >"$T/slurm.conf" ||
    fail "cannot write slurm.conf"
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
    [ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ] && break
    sleep 0.5
done
[ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ] || fail "the node did not come up idle: $(sinfo -N 2>&1)"
echo "slurm: up (port $port, $(nproc) CPUs)"

# Wait until none of the given jobs is pending or running; then their states must be COMPLETED.
wait_jobs() {
    local ids=$1 t0=$SECONDS
    while [ -n "$(squeue -h -o %i -j "$ids" 2>/dev/null)" ]; do
        [ $((SECONDS - t0)) -lt "$wait_limit" ] || fail "jobs $ids still queued after ${wait_limit}s"
        sleep 2
    done
    local id state
    for id in ${ids//,/ }; do
        state=$(scontrol show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
        [ "$state" = "JobState=COMPLETED " ] || fail "job $id ended as: ${state:-unknown}"
    done
}

grade_opts=(--no-pdf --timeout 5 --no-timing)

# ---- the class on one machine ----
t0=$SECONDS
NO_PROGRESS=1 "$grader" grade "$lab" --submissions "$class" --roster "$class/roster.csv" \
    --out "$T/local-out" "${grade_opts[@]}" >"$T/local.log" 2>&1
rc=$?
[ -f "$T/local-out/lab99/gradebook.csv" ] || { cat "$T/local.log"; fail "grader grade (exit $rc) wrote no gradebook"; }
echo "local: graded in $((SECONDS - t0)) s (exit $rc)"

# ---- the same class through Slurm ----
t0=$SECONDS
out=$T/slurm-out
"$grader" slurm "$lab" --submissions "$class" --roster "$class/roster.csv" --shards 3 \
    --gpus-per-task 0 --out "$out" "${grade_opts[@]}" >"$T/submit.log" 2>&1 ||
    { cat "$T/submit.log"; fail "grader slurm exited with status $?"; }
grade_id=$(sed -n 's/^submitted grade job \([0-9]*\) .*/\1/p' "$T/submit.log")
merge_id=$(sed -n 's/^submitted grade job [0-9]* .* merge job \([0-9]*\) .*/\1/p' "$T/submit.log")
[ -n "$grade_id" ] && [ -n "$merge_id" ] || { cat "$T/submit.log"; fail "no job ids in grader slurm's output"; }
jobs_started+=("$grade_id" "$merge_id")
wait_jobs "$grade_id,$merge_id"
echo "slurm: array $grade_id and merge $merge_id done in $((SECONDS - t0)) s"

slurm_dir=$out/lab99/slurm
for k in 1 2 3; do
    grep -q "== shard $k/3 finished with exit status 0" "$slurm_dir/shard-$k.log" ||
        fail "shard $k did not finish with status 0 (see its log)"
    # Each task had a work folder of its own (LABGRADER_WORK).
    [ -d "$out/.work/slurm-$grade_id-$k" ] || fail "no work folder $out/.work/slurm-$grade_id-$k"
done
grep -q "== merge finished with exit status 0" "$slurm_dir/merge.log" || fail "the merge did not finish with status 0"
for f in gradebook.csv gradebook-canvas.csv; do
    cmp "$T/local-out/lab99/$f" "$out/lab99/$f" ||
        { diff "$T/local-out/lab99/$f" "$out/lab99/$f" | head -20; fail "$f differs from the single-machine one"; }
done
students=$(($(wc -l <"$out/lab99/gradebook.csv") - 1))
echo "slurm: gradebook.csv and gradebook-canvas.csv equal the single-machine ones ($students students)"

# ---- a lost shard, re-run alone with node-local scratch ----
victim_json=$(ls "$out"/lab99/*/results.json | sed -n '5p')
victim_dir=${victim_json%/results.json}
victim=$(basename "$victim_dir")
rm -f "$victim_dir/results.json" "$victim_dir/.graded"
"$grader" merge "$lab" --submissions "$class" --roster "$class/roster.csv" --out "$out" --no-pdf \
    >"$T/merge-missing.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "not yet graded" "$T/merge-missing.log" ||
    { cat "$T/merge-missing.log"; fail "grader merge with a student missing: exit $rc, expected 1 and a list"; }
# The shard that held the student: the one whose log names it ("graded i/n: ID (...").
shard=$(grep -lF ": $victim (" "$slurm_dir"/shard-*.log | head -n1 | sed 's/.*shard-\([0-9]*\)\.log/\1/')
[ -n "$shard" ] || fail "no shard log names $victim"
"$grader" slurm "$lab" --submissions "$class" --roster "$class/roster.csv" --shards 3 \
    --gpus-per-task 0 --out "$out" --node-local-scratch --dry-run "${grade_opts[@]}" >"$T/dry.log" 2>&1 ||
    { cat "$T/dry.log"; fail "grader slurm --dry-run failed"; }
# The scratch lives under the job's own $TMPDIR (sbatch hands the caller's environment on, as a
# site's prolog would set it): pointed at a path that cannot be made, the task stops at once.
: >"$T/not-a-dir"
bad_id=$(TMPDIR="$T/not-a-dir/tmp" sbatch --parsable --array="$shard" "$slurm_dir/grade.sbatch") ||
    fail "sbatch --array=$shard failed"
bad_id=${bad_id%%;*}
jobs_started+=("$bad_id")
t0=$SECONDS
while [ -n "$(squeue -h -o %i -j "$bad_id" 2>/dev/null)" ]; do
    [ $((SECONDS - t0)) -lt "$wait_limit" ] || fail "job $bad_id still queued after ${wait_limit}s"
    sleep 2
done
grep -q "not-a-dir/tmp" "$slurm_dir/shard-$shard.log" ||
    fail "with TMPDIR unusable the shard did not try to make its scratch there"
rerun_id=$(TMPDIR="$T/nodetmp" sbatch --parsable --array="$shard" "$slurm_dir/grade.sbatch") ||
    fail "sbatch --array=$shard failed"
rerun_id=${rerun_id%%;*}
jobs_started+=("$rerun_id")
merge2_id=$(sbatch --parsable --dependency="afterany:$rerun_id" "$slurm_dir/merge.sbatch") || fail "sbatch merge failed"
merge2_id=${merge2_id%%;*}
jobs_started+=("$merge2_id")
wait_jobs "$rerun_id,$merge2_id"
[ -f "$victim_dir/results.json" ] || fail "shard $shard re-ran but $victim_dir/results.json is still missing"
[ -d "$out/.work/slurm-$rerun_id-$shard" ] && fail "node-local scratch used the shared work folder"
[ -z "$(ls -A "$T/nodetmp")" ] || fail "node-local scratch left files behind: $(ls -A "$T/nodetmp")"
# Only the missing student was graded again: the others' stamps still match.
tail -n 20 "$slurm_dir/shard-$shard.log" | grep -q "in shard $shard/3, 1 to grade" ||
    fail "the re-run of shard $shard did not grade exactly the one missing student"
cmp "$T/local-out/lab99/gradebook.csv" "$out/lab99/gradebook.csv" ||
    fail "after re-running shard $shard the gradebook differs from the single-machine one"
echo "slurm: $victim's shard $shard re-run alone (job $rerun_id, node-local scratch), merged again (job $merge2_id): gradebook whole"
echo "passed"
