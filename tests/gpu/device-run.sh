#!/usr/bin/env bash
# A GPU machine's whole job in one go, for machines lent by the minute (a course's GPU CI runner,
# a cluster node): the CI build, `make test-gpu`, then `make bench` if the budget allows.
#   tests/gpu/device-run.sh [LOGDIR]      LOGDIR defaults to $OUT, else /tmp/lg-gpu-logs
# LG_DEVICE_BUDGET_S (default 570) bounds the whole run; each step gets what is left, so the
# logs always come back. Exits with the first failing step's status.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=${1:-${OUT:-/tmp/lg-gpu-logs}}
budget=${LG_DEVICE_BUDGET_S:-570}
mkdir -p "$logs"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start) - ${1:-0})); }
stamp() { echo "== $* (t=$(($(date +%s) - start)) s)"; }
export LG_NO_INSTALL=1 # no package registry on such machines: never try apt-get

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvcc --version 2>&1 | tail -n 2; nproc; } > "$logs/machine.txt"
stamp build
make -j"$(nproc)" CI=true all $(make -s CI=true print-gpu-bin) > "$logs/build.log" 2>&1 ||
    { tail -n 40 "$logs/build.log"; exit 1; }
stamp test-gpu
timeout "$(left 60)" make --no-print-directory CI=true test-gpu 2>&1 | tee "$logs/test-gpu.log"
rc=$?
stamp bench
if [ "$(left)" -gt 120 ]; then
    timeout "$(left)" make --no-print-directory CI=true bench 2>&1 | tee "$logs/bench.log"
    brc=$?
    [ $rc -eq 0 ] && rc=$brc
else
    echo "bench: skipped, $(left) s of the budget left"
fi
stamp done
exit $rc
