#!/bin/bash
# Paper-scale sequence reversal (Grefenstette et al. §4): Stack-LSTM and the
# parameter-matched 2-layer LSTM, hidden 256, 128 symbols, train lengths 8-64,
# test lengths 65-128, seed 0, 400 batches per epoch.
# Results and figures: docs/results.md ("Paper scale: sequence reversal").
# The recorded run gave the Stack-LSTM 25 epochs (10,000 batches) and the LSTM
# 10 epochs (4,000 batches), a CPU-time budget (see the doc).
#
# Usage: bash benchmarks/paper_reversal.sh [RUN_DIR] [STACK_EPOCHS] [LSTM_EPOCHS]
set -euo pipefail
runs=${1:-runs/paper-reversal}
declare -A epochs=([stack]=${2:-25} [lstm]=${3:-10})
for memory in stack lstm; do
  /usr/bin/time -f "$memory: %e s wall" neural-memory train --task sequence_reversal --memory $memory \
    --scale paper --epochs "${epochs[$memory]}" --steps-per-epoch 400 --seed 0 --output-dir "$runs-$memory" --verbose 2
done
for memory in stack lstm; do
  # Accuracy against source length, 8 to 128 in steps of 8, 100 fresh examples per length.
  neural-memory evaluate --model "$runs-$memory/model.keras" --task sequence_reversal --scale paper \
    --lengths 8 128 --sweep --sweep-step 8 --sweep-examples 100 --output "$runs-$memory/sweep.json"
done
python benchmarks/paper_reversal_figures.py "$runs"
