#!/bin/bash
# The default-scale results over three seeds, recorded for docs/results/.
#
# * The quick plan of the paper's table (`neural-memory reproduce --plan
#   quick`: five tasks; Stack-, Queue-, DeQue-LSTM and 2-layer LSTM; 1,500
#   batches each) for seeds 0, 1 and 2, recorded in
#   docs/results/quick_plan_runs.json.
# * The main job, `neural-memory train --task sequence_reversal --memory
#   stack` and its LSTM baseline (`--memory lstm`), for seeds 0, 1 and 2.
#   `reproduce --plan default --epochs 10 --steps-per-epoch 300` trains
#   exactly the run that `train --seed S` trains (same settings, same data),
#   and records it in docs/results/train_default_runs.json.
#
# Every run resumes and is never retrained, so start the same command again
# after any interruption. The two halves run side by side, one per core;
# `python docs/make_results_pages.py` then renders the pages from the files.
#
# Usage: nohup bash benchmarks/default_scale_tables.sh [RUN_DIR] > default_scale.log 2>&1 &
set -euo pipefail
runs=${1:-runs/default-scale}
seeds=${SEEDS:-0,1,2}
cores=$(nproc)
pin() {  # pin a half to one core where there are several, so the halves do not compete
  if [ "$cores" -ge 2 ] && command -v taskset > /dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi
}
(
  pin 0 neural-memory reproduce --plan quick --tasks sequence_copy,sequence_reversal,bigram_flip --seeds "$seeds" \
    --output-dir "$runs/quick" --results-file docs/results/quick_plan_runs.json
) &
first=$!
(
  pin 1 neural-memory reproduce --plan quick --tasks itg_svo_sov,itg_gender_conjugation --seeds "$seeds" \
    --output-dir "$runs/quick" --results-file docs/results/quick_plan_runs.json
  pin 1 neural-memory reproduce --plan default --epochs 10 --steps-per-epoch 300 --tasks sequence_reversal \
    --models stack,lstm2 --seeds "$seeds" --output-dir "$runs/train" --results-file docs/results/train_default_runs.json
) &
second=$!
wait "$first"
wait "$second"
# Accuracy against length of the `train` runs, for the README's figure.
python benchmarks/reversal_sweeps.py --runs-dir "$runs/train" --seeds "$seeds"
