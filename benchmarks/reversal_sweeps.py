"""Accuracy against length of the default-scale reversal runs: the README's figure.

For every run that `benchmarks/default_scale_tables.sh` trains with
`neural-memory train --task sequence_reversal` (Stack-LSTM and 2-layer
LSTM, seeds 0-2), this measures coarse and fine accuracy at every 4th
source length from 8 to 64 (the training lengths are 8-16), 100 fresh
strings per length, as `neural-memory evaluate --sweep` does, and records
the sweeps in docs/results/reversal_sweeps.json. A sweep already recorded
is not measured again, so the script resumes after a kill.
`python docs/make_results_pages.py` draws the figure from the file.

Usage:
    python benchmarks/reversal_sweeps.py [--runs-dir runs/default-scale/train]
"""

import argparse
import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from keras_neural_memory.experiments import evaluation, run_folder  # noqa: E402

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "docs" / "results" / "reversal_sweeps.json"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs-dir", default="runs/default-scale/train")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--output", default=str(OUTPUT))
    args = parser.parse_args()
    output = pathlib.Path(args.output)
    sweeps = json.loads(output.read_text()) if output.exists() else []
    for model in ("stack", "lstm2"):
        for seed in (int(s) for s in args.seeds.split(",")):
            if any(s["plan_model"] == model and s["seed"] == seed for s in sweeps):
                continue
            run = pathlib.Path(args.runs_dir) / f"sequence_reversal-{model}" / f"lr0.005-seed{seed}"
            if not (run / "model.keras").exists():
                parser.error(f"{run} holds no finished run; run benchmarks/default_scale_tables.sh first")
            report = evaluation.evaluate(str(run), lengths=(8, 64), examples=100, sweep_step=4, sweep_examples=100)
            recorded = json.loads((run / "results.json").read_text())
            sweeps.append({"task": "sequence_reversal", "plan_model": model, "seed": seed,
                           "learning_rate": recorded["learning_rate"], "train_lengths": recorded["train_lengths"],
                           "sweep": report["sweep"]})  # fmt: skip
            run_folder.write_atomically(output, json.dumps(sweeps, indent=2))


if __name__ == "__main__":
    main()
