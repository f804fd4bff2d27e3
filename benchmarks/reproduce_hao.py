"""Reproduces Table 1 of Hao et al. (2018) with this package, and two training aids.

Experiments 1-4 of §5: every condition of Table 1, trained as in the paper
(800 training pairs, batch 10, a development set of 100, early stopping
after 5 epochs without a new best development accuracy, LSTM state 10,
stack vectors of size 2, or 6 for the XOR tasks) and tested on 1000 longer
strings. Accuracy is per scored symbol (the task's eval mask).

Then, beyond the paper: the strength regulariser of the authors'
reference code on parenthesis prediction, with and without, same seeds;
and strength noise (`BufferedStackRNN(strength_noise=...)`) on the buffered
linear network's reversal and XOR rows, against the same rows of the table.
`--output-offset 1` trains the buffered rows with the output buffer read as
in Hao et al.'s reference code.

The data come from `tfds_tasks` (`generators.generate(task, "default")`),
identical for every trial; a trial's seed sets the weights and the batch
order. Every finished trial is a row of the record `--record`
(`docs/results/hao_runs.json`), keyed by everything that decides its result
(`hao_table.row_key`) and merged into what is on disk under its lock: a run
that is stopped resumes with the next unfinished trial when the same command
is run again. The page `docs/results/hao.md` is written from the record
(`hao_table.page_parts`) between its two marker lines; the text around them
is kept. `docs/make_results_pages.py` writes and checks the same part.

Usage:

    python benchmarks/reproduce_hao.py --trials 10                  # the page's table and both aids
    python benchmarks/reproduce_hao.py --trials 10 --only cumulative_xor,string_reversal \\
        --skip-aid --skip-noise --output-offset 1                    # the read-off comparison
    python benchmarks/reproduce_hao.py --quick --record /tmp/hao.json --output /tmp/hao.md  # smoke run, a minute

Runs on the JAX backend unless KERAS_BACKEND says otherwise (faster on CPU
for these tiny models).
"""

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from hao_table import CONDITIONS, RECORD, XOR_TASKS, page_parts, regulariser_condition, row_key, table_condition  # noqa: E402
from keras_neural_memory import BufferedStackRNN, LinearController  # noqa: E402
from keras_neural_memory.metrics import MaskedAccuracy  # noqa: E402
from keras_neural_memory.models import build_hao_model  # noqa: E402
from marked_part import write_part  # noqa: E402
from study_record import add_row, read_rows  # noqa: E402
from tfds_tasks import Layout, generators, make_aligned_sequence  # noqa: E402

MACHINE = f"an {platform.machine()} CPU with {os.cpu_count()} cores"

def encode(examples, source_size, target_size, length):
    """Aligned-layout arrays, padded to `length` so that one compilation serves a split."""
    ids = np.zeros((len(examples), length), "int32")
    targets = np.zeros((len(examples), length), "int32")
    weights = np.zeros((len(examples), length), "float32")
    for row, example in enumerate(examples):
        seq = make_aligned_sequence(example.source, example.target, source_size, target_size, example.eval_mask)
        n = len(seq["inputs"])
        ids[row, :n], targets[row, :n], weights[row, :n] = seq["inputs"], seq["targets"], seq["loss_mask"]
    return ids, targets, weights


def load_task(task):
    train_task, _ = generators.tasks_for(task)
    source_size, target_size = len(train_task.source_vocab), len(train_task.target_vocab)
    splits = generators.generate(task, "default")
    train_length = max(len(e.source) for e in splits["train"] + splits["validation"])
    test_length = max(len(e.source) for e in splits["test"])
    data = {
        "train": encode(splits["train"], source_size, target_size, train_length),
        "validation": encode(splits["validation"], source_size, target_size, train_length),
        "test": encode(splits["test"], source_size, target_size, test_length),
    }
    return source_size, target_size, data


def build_buffered(
    source_size,
    target_size,
    controller,
    memory_width,
    strength_regularization=0.0,
    buffered=True,
    output_offset=0,
    strength_noise=0.0,
):
    inputs = keras.Input((None,), dtype="int32", name="ids")
    # One-hot input, as in build_hao_model: a frozen identity embedding that masks id 0.
    x = keras.layers.Embedding(
        1 + source_size, 1 + source_size, embeddings_initializer="identity", trainable=False, mask_zero=True
    )(inputs)
    cell = LinearController() if controller == "linear" else keras.layers.LSTMCell(10)
    logits = BufferedStackRNN(
        cell,
        output_size=1 + target_size,
        memory_width=memory_width,
        buffered=buffered,
        steps_per_input=2 if buffered else 1,
        strength_regularization=strength_regularization,
        output_offset=output_offset,
        strength_noise=strength_noise,
    )(x)
    return keras.Model(inputs, logits)


def train_and_test(model, data, max_epochs, learning_rate):
    """Trains with the paper's early stopping; returns the trial's accuracies in % and its epochs."""
    model.compile(
        keras.optimizers.Adam(learning_rate),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[MaskedAccuracy(name="acc")],
        jit_compile=True,
    )
    ids, targets, weights = data["train"]
    history = model.fit(
        ids,
        targets,
        sample_weight=weights,
        batch_size=10,
        epochs=max_epochs,
        validation_data=data["validation"],
        callbacks=[keras.callbacks.EarlyStopping("val_acc", mode="max", patience=5)],
        shuffle=True,
        verbose=0,
    )
    ids, targets, weights = data["test"]
    test = model.evaluate(ids, targets, sample_weight=weights, batch_size=100, verbose=0, return_dict=True)
    return {
        "train": 100.0 * history.history["acc"][-1],
        "dev": 100.0 * history.history["val_acc"][-1],
        "test": 100.0 * test["acc"],
        "epochs": len(history.history["val_acc"]),
    }


class Trials:
    """Runs each trial that the record lacks, and adds it as a row; returns every trial's row."""

    def __init__(self, args, command):
        self.args, self.command = args, command
        self.record = pathlib.Path(args.record)
        self.rows = {row_key(row): row for row in read_rows(self.record)}

    def run(self, condition, build, data):
        """The rows of `condition` for every seed, trained (one at a time, each then recorded) where missing."""
        rows = []
        for seed in range(self.args.trials):
            row = {**condition, "seed": seed, "learning_rate": self.args.learning_rate, "max_epochs": self.args.max_epochs}
            if row_key(row) not in self.rows:
                start = time.time()
                keras.utils.set_random_seed(seed)
                try:
                    row.update(train_and_test(build(), data, self.args.max_epochs, self.args.learning_rate))
                finally:
                    keras.backend.clear_session()
                row.update(seconds=time.time() - start, command=self.command, backend=keras.backend.backend(),
                           machine=MACHINE)  # fmt: skip
                add_row(self.record, row, row_key)
                self.rows[row_key(row)] = row
            rows.append(self.rows[row_key(row)])
        return rows


def summary_text(rows, name):
    """min, median and max of the rows' `name`, as the console shows them."""
    values = [r[name] for r in rows]
    return f"{min(values):5.1f} {statistics.median(values):5.1f} {max(values):5.1f}"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="trials per condition, seeds 0 to N-1 (paper: 10)")
    parser.add_argument("--quick", action="store_true", help="1 trial, 2 epochs, 2 conditions: a smoke run")
    parser.add_argument(
        "--max-epochs", type=int, default=100,
        help="a guard on epochs; the paper has none, and early stopping ends every trial first at the default",
    )  # fmt: skip
    parser.add_argument("--learning-rate", type=float, default=0.01, help="Adam learning rate")
    parser.add_argument("--regularization", type=float, default=1.0, help="strength regulariser weight in §3")
    parser.add_argument("--only", default=None, help="comma-separated task names to run (default: all)")
    parser.add_argument(
        "--output-offset", type=int, choices=(0, 1), default=0,
        help="buffered rows: unit dequeues of the output buffer before output 1 is read "
        "(0: this package's default; 1: Hao et al.'s reference code)",
    )  # fmt: skip
    parser.add_argument("--skip-aid", action="store_true", help="skip the §3 regulariser comparison")
    parser.add_argument(
        "--strength-noise", type=float, default=1.0,
        help="standard deviation of the strength noise compared on the buffered linear rows",
    )  # fmt: skip
    parser.add_argument("--skip-noise", action="store_true", help="skip the strength-noise comparison")
    parser.add_argument(
        "--skip-table", action="store_true",
        help="train only the comparisons (whose noise-free rows still come from, and go to, the same record)",
    )  # fmt: skip
    parser.add_argument("--record", default=str(RECORD), help="the JSON record of every finished trial")
    parser.add_argument("--output", default="docs/results/hao.md", help="the page written from the record ('' to skip)")
    parser.add_argument("--page-only", action="store_true", help="write the page from the record; train nothing")
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error(f"--trials must be at least 1; received {args.trials}")
    if not args.strength_noise > 0 or not np.isfinite(args.strength_noise):
        parser.error(f"--strength-noise must be a positive number; received {args.strength_noise}")
    if args.max_epochs < 1:
        parser.error(f"--max-epochs must be at least 1; received {args.max_epochs}")
    tasks_known = {c[1] for c in CONDITIONS}
    if args.only and not set(args.only.split(",")) <= tasks_known:
        unknown = sorted(set(args.only.split(",")) - tasks_known)
        parser.error(f"--only names unknown tasks {unknown}; choose from {sorted(tasks_known)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    command = " ".join(["python benchmarks/reproduce_hao.py", *(argv if argv is not None else sys.argv[1:])])
    conditions = CONDITIONS
    if args.quick:
        args.trials, args.max_epochs = 1, 2
        conditions = [CONDITIONS[1], CONDITIONS[10]]
    if args.only:
        conditions = [c for c in conditions if c[1] in args.only.split(",")]
    if args.skip_table:
        conditions = []
    if args.page_only:
        conditions, args.skip_aid, args.skip_noise = [], True, True
    trials = Trials(args, command)
    tasks = {}

    def data_of(task):
        if task not in tasks:
            tasks[task] = load_task(task)
        return tasks[task]

    start = time.time()
    for label, task, buffered, controller, stack, *_ in conditions:
        source_size, target_size, data = data_of(task)
        width = 6 if task in XOR_TASKS else 2

        def build():
            if buffered:
                return build_buffered(source_size, target_size, controller, width, output_offset=args.output_offset)
            return build_hao_model(Layout("aligned", source_size, target_size), controller=controller, stack=stack, memory_width=width)

        rows = trials.run(table_condition(task, buffered, controller, stack, args.output_offset), build, data)
        print(f"{label:<12} buffered {buffered!s:<5} {controller:<6} stack {stack!s:<5} train {summary_text(rows, 'train')}"
              f"  test {summary_text(rows, 'test')}", flush=True)  # fmt: skip
    if not args.skip_aid:
        source_size, target_size, data = data_of("parenthesis_prediction")
        for weight in (0.0, args.regularization):

            def build():
                return build_buffered(source_size, target_size, "lstm", 2, strength_regularization=weight, buffered=False)

            rows = trials.run(regulariser_condition(weight), build, data)
            print(f"regulariser {weight:g}: train {summary_text(rows, 'train')}  test {summary_text(rows, 'test')}", flush=True)
    if not args.skip_noise:
        buffered_rows = [c for c in conditions if c[2] and c[3] == "linear"]
        for label, task, *_ in buffered_rows:
            source_size, target_size, data = data_of(task)
            width = 6 if task in XOR_TASKS else 2

            def build():
                return build_buffered(source_size, target_size, "linear", width, output_offset=args.output_offset,
                                      strength_noise=args.strength_noise)  # fmt: skip

            condition = table_condition(task, True, "linear", True, args.output_offset, args.strength_noise)
            rows = trials.run(condition, build, data)
            print(f"{label} strength noise {args.strength_noise:g}: train {summary_text(rows, 'train')}"
                  f"  test {summary_text(rows, 'test')}", flush=True)  # fmt: skip
    print(f"\ntotal {(time.time() - start) / 60:.1f} min, {args.trials} trial(s) per condition")
    if args.output:
        for page, writer, part, title in page_parts(args.record, args.output):
            write_part(page, writer, part, title)
            print(f"wrote {page}")


if __name__ == "__main__":
    main()
