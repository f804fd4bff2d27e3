"""Figures and the markdown table of `benchmarks/paper_reversal.sh`'s runs.

Usage::

    python benchmarks/paper_reversal_figures.py runs/paper-reversal [--docs docs]

Reads `RUN-stack` and `RUN-lstm` (their `results.json`, `sweep.json` and
TensorBoard logs: the logs keep every epoch of a run that was interrupted
and resumed, where an older `results.json` kept only the resumed part), writes `paper_reversal_convergence.png` and `paper_reversal_lengths.png`
into `--docs`, and prints the table for docs/results.md.
"""

import argparse
import json
import pathlib

import tensorflow as tf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from keras_neural_memory import viz

LABELS = {"stack": "Stack-LSTM", "lstm": "LSTM, 2 layers"}


def tensorboard_history(run, tag="epoch_coarse_accuracy"):
    """`[value per epoch]` of `tag` from the run's TensorBoard training logs."""
    events = EventAccumulator(str(run / "logs" / "train"), size_guidance={"tensors": 0})
    events.Reload()
    by_epoch = {event.step: float(tf.make_ndarray(event.tensor_proto)) for event in events.Tensors(tag)}
    return [by_epoch[epoch] for epoch in sorted(by_epoch)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", help="the RUN_DIR prefix given to paper_reversal.sh")
    parser.add_argument("--docs", default="docs", help="where the PNGs go")
    args = parser.parse_args()
    docs = pathlib.Path(args.docs)
    results, sweeps, histories = {}, {}, {}
    for memory, label in LABELS.items():
        run = pathlib.Path(f"{args.runs}-{memory}")
        results[label] = json.loads((run / "results.json").read_text())
        sweeps[label] = json.loads((run / "sweep.json").read_text())
        histories[label] = {key: tensorboard_history(run, f"epoch_{key}") for key in ("coarse_accuracy", "fine_accuracy")}
    steps = {label: result["steps_per_epoch"] for label, result in results.items()}
    # Fine accuracy: at this budget coarse accuracy stays near 0 for both models.
    viz.plot_convergence(histories, metric="fine_accuracy", steps_per_epoch=steps,
                         title="sequence_reversal, paper scale: training fine accuracy",
                         save_to=docs / "paper_reversal_convergence.png")
    first = next(iter(results.values()))
    viz.plot_length_generalisation(sweeps, train_range=tuple(first["train_lengths"]), metric=("coarse", "fine"),
                                   title="sequence_reversal, paper scale",
                                   save_to=docs / "paper_reversal_lengths.png")
    print("| model | parameters | batches | train coarse / fine | test coarse / fine |")
    print("|---|---|---|---|---|")
    for label, r in results.items():
        train, test = r["train_accuracy"], r["test_accuracy"]
        print(f"| {label} | {r['parameters']:,} | {len(histories[label]['fine_accuracy']) * r['steps_per_epoch']:,} | "
              f"{train['coarse']:.3f} / {train['fine']:.3f} | {test['coarse']:.3f} / {test['fine']:.3f} |")


if __name__ == "__main__":
    main()
