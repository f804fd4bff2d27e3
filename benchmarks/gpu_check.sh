#!/usr/bin/env bash
# XLA on a GPU: what TensorFlow and JAX see, the core tests on each, and the
# memory models' training speed against the 2-layer LSTM, in one report.
#
# Usage, from anywhere, with the package importable (pip install -e ".[test]"):
#   bash benchmarks/gpu_check.sh OUTDIR           # a GPU machine: under 8 minutes
#   bash benchmarks/gpu_check.sh --quick OUTDIR   # small settings, any machine: ~2-3 minutes on 2 CPU cores
#   PYTHON=/path/to/python bash benchmarks/gpu_check.sh OUTDIR   # default: `python` on PATH
#   GPU_CHECK_BUDGET=900 bash benchmarks/gpu_check.sh OUTDIR      # seconds for all parts (460; --quick 240);
#                                                                 # each part's limit scales with it
#
# For the GPU, each framework needs its CUDA build: ".[test]" installs
# jax[cpu], so also `pip install -U "jax[cuda12]"`, and TensorFlow needs
# `pip install "tensorflow[and-cuda]"` (or a system CUDA). The report says
# when nvidia-smi lists a GPU that a backend does not see.
#
# Parts, each its own process under a time limit, in this order:
#   1. devices: each backend's device list (both at once);
#   2. tests: tests/core/test_cells.py and tests/core/test_fused_scan.py on
#      each backend (both at once; the tests with jit_compile=True first,
#      then the rest in what is left of the backend's limit). --quick: one
#      XLA test;
#   3. timings: benchmarks/throughput.py, the Stack-, Queue-, DeQue-LSTM and
#      the 2-layer LSTM in one process per backend and length, T=131 and
#      T=1027 (--quick: T=16 and 64, hidden 32, a few steps); they add
#      nothing to the speed record (`--record ''`).
# A part that fails or runs out of time is recorded and the script goes on.
#
# Output: OUTDIR/gpu_check.md (date, devices, versions, tests passed/failed
# per backend, timing tables), printed at the end too; beside it, each part's
# NAME.log, NAME.status ("exit status, seconds, limit") and throughput JSON.
# Exit status: 0 if every part passed, 1 if one failed, 2 for bad usage or
# a package that cannot be imported.
set -uo pipefail  # no -e: a failed part is recorded and the next one runs

usage="usage: bash benchmarks/gpu_check.sh [--quick] OUTDIR"
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
if [ $# -ne 1 ] || [[ $1 == -* ]]; then
  echo "$usage" >&2
  exit 2
fi
mkdir -p "$1" && out=$(cd "$1" && pwd) || { echo "gpu_check: cannot create OUTDIR $1" >&2; exit 2; }
command_line="bash benchmarks/gpu_check.sh $([ $quick = 1 ] && echo '--quick ')$1"
cd "$(dirname "$0")/.."  # the tests and benchmarks run from the repository root

if [ -z "${PYTHON:-}" ]; then
  PYTHON=python
  command -v python >/dev/null 2>&1 || PYTHON=python3
fi
if ! import_error=$("$PYTHON" -c "import keras_neural_memory" 2>&1); then
  reason=$(tail -n 1 <<<"$import_error")
  echo "gpu_check: cannot import keras_neural_memory with $PYTHON (${reason:-no message});" \
    "install it first: pip install -e \".[test]\"" >&2
  exit 2
fi

# Tests of both backends run at once on one GPU: neither framework may take
# most of its memory up front, as JAX (75%) and TensorFlow (all) otherwise do.
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_FORCE_GPU_ALLOW_GROWTH=true
export TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-2}" PYTHONUNBUFFERED=1
# A previous check's files would be read as this one's.
rm -f "$out"/{devices,tests,throughput}-*.{log,status,skipped,json} "$out/gpu_check.md"

test_files=(tests/core/test_cells.py tests/core/test_fused_scan.py)
models=lstm2,stack,queue,deque
if [ $quick = 1 ]; then
  default_budget=240  # seconds for all parts; the limits below fit in it on 2 busy CPU cores
  devices_limit=60 tests_limit=100
  xla_tests="fused_trains_under_jit_compile" other_tests=""
  lengths=(16 64)
  declare -A bench_args=([16]="--steps 2 --warmup 1 --repeats 1" [64]="--steps 2 --warmup 1 --repeats 1")
  declare -A bench_limit=([16]=60 [64]=60)
  sizes="--hidden 32 --width 32"
else
  default_budget=460  # 7 2/3 minutes, so that the whole script ends within 8
  devices_limit=45 tests_limit=150
  xla_tests="jit_compile or grows_linearly" other_tests="not (jit_compile or grows_linearly)"
  lengths=(131 1027)
  # About 1 s a training step at T=1027 is possible (a step per time step,
  # forwards and backwards): few steps there.
  declare -A bench_args=([131]="--steps 10 --warmup 2 --repeats 2" [1027]="--steps 3 --warmup 1 --repeats 1")
  declare -A bench_limit=([131]=75 [1027]=100)
  sizes=""  # throughput.py's defaults: the paper's hidden 256, memory width 256, batch 10
fi
budget=${GPU_CHECK_BUDGET:-$default_budget}
start=$SECONDS

# limit CAP LATER: CAP (scaled with the budget), or less so that LATER parts
# still get 30 s each before the budget ends.
limit() {
  local cap=$(($1 * budget / default_budget)) left=$((budget - (SECONDS - start) - 30 * $2))
  echo $((cap < left ? cap : left))
}

# part NAME LIMIT COMMAND...: runs COMMAND under LIMIT seconds into NAME.log and NAME.status.
part() {
  local name=$1 seconds=$2 began=$SECONDS rc
  shift 2
  if [ "$seconds" -lt 10 ]; then
    echo "skipped: the check's time budget (${budget} s) was spent" >"$out/$name.skipped"
    echo "gpu_check: $name skipped, no time left"
    return 1
  fi
  echo "gpu_check: $name (limit ${seconds} s)"
  timeout -k 10 "$seconds" "$@" >"$out/$name.log" 2>&1
  rc=$?
  echo "$rc $((SECONDS - began)) $seconds" >"$out/$name.status"
  echo "gpu_check: $name: exit status $rc after $((SECONDS - began)) s"
  return $rc
}

pytest_args=(-v -rfE -p no:cacheprovider)
# tests BACKEND LIMIT: the XLA tests, then the others in the time left.
tests() {
  local backend=$1 seconds=$2 began=$SECONDS
  part "tests-$backend-xla" "$seconds" env KERAS_BACKEND="$backend" \
    "$PYTHON" -m pytest "${test_files[@]}" -k "$xla_tests" "${pytest_args[@]}"
  if [ -n "$other_tests" ]; then
    part "tests-$backend-other" $((seconds - (SECONDS - began))) env KERAS_BACKEND="$backend" \
      "$PYTHON" -m pytest "${test_files[@]}" -k "$other_tests" "${pytest_args[@]}"
  fi
}

timing_parts=$((${#lengths[@]} * 2))
seconds=$(limit "$devices_limit" $((2 + timing_parts)))
for backend in tensorflow jax; do
  part "devices-$backend" "$seconds" "$PYTHON" benchmarks/gpu_check.py devices "$backend" "$out/devices-$backend.json" &
done
wait
grep -h " sees: " "$out"/devices-*.log

seconds=$(limit "$tests_limit" "$timing_parts")
for backend in tensorflow jax; do
  tests "$backend" "$seconds" &
done
wait

# One timing at a time: two would share the GPU. The short length on both
# backends first, so that a spent budget costs the long one.
later=$timing_parts
for length in "${lengths[@]}"; do
  for backend in tensorflow jax; do
    later=$((later - 1))
    # shellcheck disable=SC2086  # the settings are words
    part "throughput-$backend-$length" "$(limit "${bench_limit[$length]}" "$later")" env KERAS_BACKEND="$backend" \
      "$PYTHON" benchmarks/throughput.py --models "$models" --length "$length" ${bench_args[$length]} $sizes \
      --json "$out/throughput-$backend-$length.json" --record ''
  done
done

mode=$([ $quick = 1 ] && echo quick || echo full)
"$PYTHON" benchmarks/gpu_check.py report "$out" --mode "$mode" --seconds $((SECONDS - start)) --command "$command_line"
status=$?
if [ -f "$out/gpu_check.md" ]; then
  echo
  cat "$out/gpu_check.md"
else
  echo "gpu_check: the report could not be written (exit status $status)" >&2
  status=1
fi
echo "gpu_check: report in $out/gpu_check.md; exit status $status"
exit $status
