#!/usr/bin/env bash
# tests/gpu/pairs-run.sh [LOGDIR]: the GPU part of issue 37 (the two calls of a timed pair) in
# one machine call, for a machine lent by the minute. LOGDIR defaults to $OUT, else
# /tmp/lg-pairs-logs. LG_DEVICE_BUDGET_S (570) bounds the whole run; each step gets a share of
# what is left, so that every log comes back:
#
#   machine.txt       the GPU, driver, nvcc, CPUs, transparent huge pages
#   build.log         the CI build of the grader, the harness and the GPU suites
#   fence_probe.txt   what fencing a pair's outputs costs here, and whether the device fence
#                     holds (tests/bench/fence_probe.cu)
#   exploits_gpu.log  tests/gpu/test_exploits_gpu.c on PAIRS_EXPLOITS (issue 37's exploits and
#                     the side-stream ones the fence sits beside; "all" for every GPU row): one
#                     "exploit NAME: VERDICT, want ..." line per exploit, then Check's summary
#   orders/           tests/bench/orders.sh on every lab's solution, GPU and CPU variants
#                     (ORDERS_MODE, default check here; ORDERS_RUNS 2): orders.txt is the table
#                     of the two orders' ratios, their disagreement and its spread
#
# Exits with the exploit suite's status.
set -uo pipefail
cd "$(dirname "$0")/../.."
logs=${1:-${OUT:-/tmp/lg-pairs-logs}}
budget=${LG_DEVICE_BUDGET_S:-570}
mkdir -p "$logs"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start) - ${1:-0})); }
stamp() { echo "== $* (t=$(($(date +%s) - start)) s)"; }
export LG_NO_INSTALL=1 # no package registry on such machines: never try apt-get
# One cache for the exploit suite and the spread: the machine is calibrated once.
export LABGRADER_CACHE=${LABGRADER_CACHE:-/tmp/lg-pairs-cache}

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvcc --version 2>&1 | tail -n 2
  echo "cpus $(nproc)"
  echo "thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)"; } > "$logs/machine.txt"

stamp build
make -j"$(nproc)" CI=true all build/tests/test_exploits_gpu > "$logs/build.log" 2>&1 &&
    nvcc -O2 -o build/fence_probe tests/bench/fence_probe.cu -lpthread >> "$logs/build.log" 2>&1 ||
    { tail -n 40 "$logs/build.log"; exit 1; }

stamp fence probe
timeout 60 build/fence_probe > "$logs/fence_probe.txt" 2>&1
cat "$logs/fence_probe.txt"

# The exploits first (they decide whether the defences hold), then the spread with what is left.
# The suite grades everything before its first test: a time limit that cut it would leave no
# verdict at all, so it gets most of what is left.
stamp exploits
only=${PAIRS_EXPLOITS:-gpu_pair_peek,gpu_order_peek,gpu_order_peek_throttled,gpu_stale_scratch,gpu_tf32_small,gpu_tf32_probe,gpu_lazy_stream,gpu_side_stream}
[ "$only" = all ] && only=
LG_EXPLOITS_ONLY=$only LG_BIN=$PWD/build/grader \
    timeout -k 20 "$(( $(left) * 65 / 100 ))" build/tests/test_exploits_gpu > "$logs/exploits_gpu.log" 2>&1
rc=$?
grep -E "^exploit |^[0-9]+%|:F:|:E:" "$logs/exploits_gpu.log"
# A failing suite keeps its scratch folder: each grading's log comes back with the rest.
scratch=$(grep -o "scratch /tmp/lg-exploits-[A-Za-z0-9]*" "$logs/exploits_gpu.log" | cut -d' ' -f2)
if [ $rc -ne 0 ] && [ -n "$scratch" ] && [ -d "$scratch" ]; then
    mkdir -p "$logs/exploit-logs" && cp "$scratch"/*.log "$logs/exploit-logs/" 2> /dev/null
fi

stamp orders
ORDERS_MODE=${ORDERS_MODE:-check} ORDERS_RUNS=${ORDERS_RUNS:-2} ORDERS_LABS=${ORDERS_LABS:-6 7 4 9 8 3} \
    timeout -k 30 "$(left 40)" tests/bench/orders.sh "$logs/orders" > "$logs/orders.log" 2>&1
sed -n '/# spread/,$p' "$logs/orders/orders.txt" 2> /dev/null
# The runs' folders are large: the table and each grading's log are what is kept.
find "$logs/orders" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2> /dev/null
stamp done
exit $rc
