"""Reproduces Table 1 of Hao et al. (2018) with this package, and one training aid.

Experiments 1-4 of §5: every condition of Table 1, trained as in the paper
(800 training pairs, batch 10, a development set of 100, early stopping
after 5 epochs without a new best development accuracy, LSTM state 10,
stack vectors of size 2, or 6 for the XOR tasks) and tested on 1000 longer
strings. Accuracy is per scored symbol (the task's eval mask).

Then, beyond the paper: the strength regulariser of the authors'
reference code on parenthesis prediction, with and without, same seeds;
and strength noise (`BufferedStackRNN(strength_noise=...)`) on the buffered
linear network's reversal and XOR rows, against the same rows of the table.

The data come from `tfds_tasks` (`generators.generate(task, "default")`),
identical for every trial; a trial's seed sets the weights and the batch
order. Prints the table beside the paper's and writes `docs/results/hao.md`:
the tables between its two marker lines are regenerated, the text before
and after them is kept.

Every finished trial is kept in `--trials-file` (written atomically), keyed
by everything that decides its result: a run that is stopped resumes with
the next unfinished trial when the same command is run again.

Usage:

    python benchmarks/reproduce_hao.py                     # the doc's run
    python benchmarks/reproduce_hao.py --quick --output /tmp/quick.md   # smoke run, a minute

Runs on the JAX backend unless KERAS_BACKEND says otherwise (faster on CPU
for these tiny models).
"""

import argparse
import collections
import functools
import json
import os
import pathlib
import platform
import statistics
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from keras_neural_memory import BufferedStackRNN, LinearController  # noqa: E402
from keras_neural_memory.experiments.run_folder import write_atomically  # noqa: E402
from keras_neural_memory.metrics import MaskedAccuracy  # noqa: E402
from keras_neural_memory.models import build_hao_model  # noqa: E402
from tfds_tasks import Layout, generators, make_aligned_sequence  # noqa: E402

# (label, task, buffered, controller, stack, paper train min/med/max, paper test min/med/max)
CONDITIONS = [
    ("Reversal", "string_reversal", False, "linear", True, (49.9, 100.0, 100.0), (49.3, 100.0, 100.0)),
    ("Reversal", "string_reversal", True, "linear", True, (55.3, 98.7, 99.4), (49.5, 60.4, 74.7)),
    ("Reversal", "string_reversal", False, "lstm", True, (81.2, 89.3, 94.4), (67.2, 71.0, 73.7)),
    ("Reversal", "string_reversal", False, "lstm", False, (83.0, 86.5, 92.5), (64.8, 68.6, 73.3)),
    ("XOR", "cumulative_xor", False, "linear", True, (51.1, 53.5, 54.4), (50.7, 51.9, 51.9)),
    ("XOR", "cumulative_xor", False, "lstm", True, (100.0, 100.0, 100.0), (99.7, 100.0, 100.0)),
    ("XOR", "cumulative_xor", True, "linear", True, (51.0, 99.8, 100.0), (50.4, 96.0, 99.1)),
    ("Delayed XOR", "delayed_xor", False, "linear", True, (100.0, 100.0, 100.0), (100.0, 100.0, 100.0)),
    ("Parenthesis", "parenthesis_prediction", False, "linear", True, (72.8, 97.0, 99.3), (59.9, 80.3, 83.2)),
    ("Parenthesis", "parenthesis_prediction", False, "linear", False, (70.0, 71.8, 73.3), (59.9, 60.5, 60.7)),
    ("Parenthesis", "parenthesis_prediction", False, "lstm", True, (100.0, 100.0, 100.0), (85.8, 86.8, 88.9)),
    ("Parenthesis", "parenthesis_prediction", False, "lstm", False, (100.0, 100.0, 100.0), (83.5, 85.8, 88.0)),
    ("Formula", "boolean_formula", False, "linear", True, (87.4, 92.0, 97.3), (87.8, 91.2, 96.2)),
    ("Formula", "boolean_formula", False, "lstm", True, (98.0, 98.7, 99.4), (96.8, 97.7, 98.4)),
    ("Formula", "boolean_formula", False, "lstm", False, (95.4, 98.5, 99.3), (95.3, 97.6, 98.4)),
    ("Agreement", "subject_auxiliary_agreement", False, "linear", True, (53.3, 73.5, 93.9), (51.8, 68.8, 85.8)),
    ("Agreement", "subject_auxiliary_agreement", False, "lstm", True, (95.6, 98.5, 99.7), (82.4, 88.8, 91.2)),
    ("Agreement", "subject_auxiliary_agreement", False, "lstm", False, (96.2, 98.1, 100.0), (83.7, 88.2, 90.6)),
]

XOR_TASKS = ("cumulative_xor", "delayed_xor")


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


@functools.cache
def memoryless_accuracy(task):
    """The best accuracy, in %, of any predictor that sees only the current input symbol.

    Fitted on the training split (the majority target of each source
    symbol at the scored positions) and measured on each split. On the
    training split no predictor that sees only the current symbol does
    better, so this is the floor a memory must beat; it depends on the
    data alone.
    """
    splits = generators.generate(task, "default")
    counts = collections.defaultdict(collections.Counter)
    for scored, target in scored_pairs(splits["train"]):
        counts[scored][target] += 1
    rule = {symbol: counter.most_common(1)[0][0] for symbol, counter in counts.items()}
    accuracy = {}
    for split in ("train", "validation", "test"):
        pairs = list(scored_pairs(splits[split]))
        accuracy[split] = 100.0 * sum(rule.get(symbol) == target for symbol, target in pairs) / len(pairs)
    return accuracy


def scored_pairs(examples):
    for example in examples:
        mask = example.eval_mask or (1,) * len(example.target)
        yield from ((s, t) for s, t, scored in zip(example.source, example.target, mask) if scored)


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


class TrialStore:
    """Finished trials in a JSON file, rewritten atomically after each one.

    A trial is keyed by everything that decides its result, so a run that is
    killed and run again with the same arguments trains only the trials
    it had not finished, and a run with other arguments trains its own.
    """

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.trials = json.loads(self.path.read_text()) if self.path.exists() else {}

    def run(self, key, train):
        if key not in self.trials:
            start = time.time()
            self.trials[key] = {**train(), "seconds": time.time() - start}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, json.dumps(self.trials, indent=1, sort_keys=True))
        return self.trials[key]


def trial_key(args, seed, **condition):
    settings = {"lr": args.learning_rate, "max_epochs": args.max_epochs, "seed": seed, **condition}
    return ",".join(f"{name}={value}" for name, value in sorted(settings.items()))


def summary(values):
    return (min(values), statistics.median(values), max(values))


def fmt(triple):
    return " ".join(f"{v:5.1f}" for v in triple)


def within(value, paper):
    return paper[0] <= round(value, 1) <= paper[2]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="trials per condition (paper: 10)")
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
        help="train only the comparisons (whose noise-free rows still come from, and go to, the same trials file)",
    )  # fmt: skip
    parser.add_argument("--output", default="docs/results/hao.md", help="markdown report ('' to skip)")
    parser.add_argument(
        "--trials-file", default="runs/hao/trials.json",
        help="finished trials, kept so that a stopped run resumes where it stopped (keep it out of git)",
    )  # fmt: skip
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
    trials, conditions = args.trials, CONDITIONS
    if args.quick:
        trials, args.max_epochs = 1, 2
        conditions = [CONDITIONS[1], CONDITIONS[10]]
    if args.only:
        conditions = [c for c in conditions if c[1] in args.only.split(",")]
    if args.skip_table:
        conditions = []
    store = TrialStore(args.trials_file)
    seeds = list(range(trials))
    start = time.time()
    tasks = {}
    rows = []
    print(
        f"{'task':<12}{'buf':>4} {'ctrl':<7}{'stack':<6}| ours train min/med/max | ours test min/med/max "
        f"| paper train min/med/max | paper test min/med/max | epochs | s/trial"
    )
    for label, task, buffered, controller, stack, paper_train, paper_test in conditions:
        if task not in tasks:
            tasks[task] = load_task(task)
        source_size, target_size, data = tasks[task]
        width = 6 if task in XOR_TASKS else 2
        offset = args.output_offset if buffered else 0

        def build():
            if buffered:
                return build_buffered(source_size, target_size, controller, width, output_offset=offset)
            return build_hao_model(Layout("aligned", source_size, target_size), controller=controller, stack=stack, memory_width=width)

        results = []
        for seed in seeds:
            key = trial_key(args, seed, task=task, buffered=buffered, controller=controller, stack=stack, offset=offset)
            results.append(store.run(key, lambda: seeded_trial(seed, build, data, args)))
        row = (label, buffered, controller, stack, results, paper_train, paper_test, task)
        rows.append(row)
        train, test, epochs = ([r[name] for r in results] for name in ("train", "test", "epochs"))
        print(
            f"{label:<12}{'yes' if buffered else 'no':>4} {controller:<7}{'yes' if stack else 'no':<6}| "
            f"{fmt(summary(train)):>22} | {fmt(summary(test)):>21} | {fmt(paper_train):>23} | "
            f"{fmt(paper_test):>22} | {min(epochs)}-{max(epochs)} | {mean_seconds(results):.0f}",
            flush=True,
        )
        if args.output:  # rewritten after every row, so an interrupted run still leaves its table
            write_report(args, rows, [], trials, seeds, partial=True)
    aid = []
    if not args.skip_aid:
        source_size, target_size, data = tasks.get("parenthesis_prediction") or load_task("parenthesis_prediction")
        print("\n§3: strength regulariser on parenthesis prediction, LSTM(10) + stack, unbuffered")
        for weight in (0.0, args.regularization):

            def build():
                return build_buffered(
                    source_size, target_size, "lstm", 2, strength_regularization=weight, buffered=False
                )  # fmt: skip

            results = []
            for seed in seeds:
                key = trial_key(args, seed, task="parenthesis_prediction", regulariser=weight)
                results.append(store.run(key, lambda: seeded_trial(seed, build, data, args)))
            aid.append((weight, results))
            test = [r["test"] for r in results]
            print(
                f"weight {weight:g}: train {fmt(summary([r['train'] for r in results]))}  test {fmt(summary(test))}  "
                f"(per seed test: {', '.join(f'{v:.1f}' for v in test)})",
                flush=True,
            )
    noise = []
    if not args.skip_noise:
        noise = compare_strength_noise(args, store, seeds, rows, tasks)
    elapsed = time.time() - start
    print(f"\ntotal {elapsed / 60:.1f} min, {trials} trial(s) per condition, seeds {seeds}")
    if args.output:
        write_report(args, rows, aid, trials, seeds, noise=noise)


def compare_strength_noise(args, store, seeds, rows, tasks):
    """Buffered linear rows with `--strength-noise` against the table's own (noise 0).

    Same seeds, data and protocol as the table; the noise-free trials are
    the table's (the same keys), so they are trained once.
    Returns `[(label, noise, results)]`.
    """
    compared = []
    buffered_rows = [c for c in CONDITIONS if c[2] and c[3] == "linear"]
    if args.only:
        buffered_rows = [c for c in buffered_rows if c[1] in args.only.split(",")]
    print(f"\nStrength noise {args.strength_noise:g} on the buffered linear network")
    for label, task, *_ in buffered_rows:
        if task not in tasks:
            tasks[task] = load_task(task)
        source_size, target_size, data = tasks[task]
        width = 6 if task in XOR_TASKS else 2
        for sigma in (0.0, args.strength_noise):

            def build():
                return build_buffered(
                    source_size, target_size, "linear", width, output_offset=args.output_offset, strength_noise=sigma
                )  # fmt: skip

            results = []
            for seed in seeds:
                condition = dict(task=task, buffered=True, controller="linear", stack=True, offset=args.output_offset)
                if sigma:
                    condition["strength_noise"] = sigma
                key = trial_key(args, seed, **condition)
                results.append(store.run(key, lambda: seeded_trial(seed, build, data, args)))
            compared.append((label, sigma, results))
            test = [r["test"] for r in results]
            print(
                f"{label} noise {sigma:g}: train {fmt(summary([r['train'] for r in results]))}  "
                f"test {fmt(summary(test))}  (per seed test: {', '.join(f'{v:.1f}' for v in test)})",
                flush=True,
            )
    return compared


def seeded_trial(seed, build, data, args):
    keras.utils.set_random_seed(seed)
    try:
        return train_and_test(build(), data, args.max_epochs, args.learning_rate)
    finally:
        keras.backend.clear_session()


def mean_seconds(results):
    return statistics.mean(r["seconds"] for r in results)


GENERATED_BEGIN = "<!-- Written by benchmarks/reproduce_hao.py down to the closing marker; the text around it is kept. -->"
GENERATED_END = "<!-- End of the part written by benchmarks/reproduce_hao.py. -->"
DEFAULT_HEAD = "# Hao et al. (2018) Table 1, reproduced with keras-neural-memory\n\n"


def write_report(args, rows, aid, trials, seeds, partial=False, noise=()):
    """Writes the tables between `GENERATED_BEGIN` and `GENERATED_END` in `args.output`.

    The hand-written text before and after the two markers is kept; a file
    without them is replaced.
    """
    command = "python benchmarks/reproduce_hao.py " + " ".join(sys.argv[1:])
    machine = f"an {platform.machine()} CPU with {os.cpu_count()} cores"
    lines = [
        "## Table 1",
        "",
        *(["**Partial: the run was still going (or was interrupted) when this was written.**", ""] if partial else []),
        f"- Command: `{command}` (backend: {keras.backend.backend()}); s/trial measured on {machine}.",
        f"- Trials per condition: **{trials}** (the paper: 10), seeds {seeds} (weights and batch order; "
        "the data are the same for every trial: `tfds_tasks.generators.generate(task, 'default')`).",
        f"- Training: Adam, learning rate {args.learning_rate}, batch 10, 800 training pairs, early stopping "
        "when 5 epochs bring no new best development accuracy (100 pairs), as in the paper's §5, with a guard "
        f"of {args.max_epochs} epochs; loss and accuracy on the scored positions only (the tasks' eval masks). "
        "LSTM state 10, stack vectors 2 (6 for XOR). Test: 1000 longer strings (`tfds_tasks` test regimes).",
        "- \"train\" is the accuracy on the training set during the last epoch (the paper's left block: "
        "accuracy \"during the last epoch of the training phase\"), \"dev\" the development accuracy after "
        "it, \"test\" the final test accuracy; in %, per scored symbol. \"in range\" says whether this run's "
        "median lies within the paper's min-max, for train and for test.",
        f"- Buffered rows: `BufferedStackRNN(LinearController(), steps_per_input=2, output_offset={args.output_offset})`. "
        "Unbuffered rows: `keras_neural_memory.models.build_hao_model`.",
        "",
        "| Task | Buffered | Controller | Stack | ours train min | med | max | dev med | ours test min | med | max "
        "| paper train min | med | max | paper test min | med | max | in range | epochs | s/trial |",
        "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|",
    ]
    for label, buffered, controller, stack, results, paper_train, paper_test, _ in rows:
        train, dev, test, epochs = ([r[name] for r in results] for name in ("train", "dev", "test", "epochs"))
        cells = [label, "Yes" if buffered else "No", controller.upper() if controller == "lstm" else "Linear"]
        cells.append("Yes" if stack else "No")
        cells += [f"{v:.1f}" for v in (*summary(train), statistics.median(dev), *summary(test))]
        cells += [f"{v:.1f}" for v in (*paper_train, *paper_test)]
        in_range = (within(statistics.median(train), paper_train), within(statistics.median(test), paper_test))
        cells.append(" / ".join("yes" if ok else "**no**" for ok in in_range))
        cells += [f"{min(epochs)}-{max(epochs)}", f"{mean_seconds(results):.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "The best accuracy without memory (`memoryless_accuracy`): the majority target of each input symbol, "
        "fitted on the training pairs and measured on each split. It depends on the data alone; on the "
        "training pairs no network that sees only the current symbol (the linear controller without a stack) "
        "does better.",
        "",
        "| Task | train | dev | test |",
        "|---|--:|--:|--:|",
    ]
    for task in dict.fromkeys(row[7] for row in rows):
        accuracy = memoryless_accuracy(task)
        label = next(row[0] for row in rows if row[7] == task)
        lines.append(f"| {label} | " + " | ".join(f"{accuracy[s]:.1f}" for s in ("train", "validation", "test")) + " |")
    if aid:
        lines += [
            "",
            "## Beyond the paper: the strength regulariser",
            "",
            "`BufferedStackRNN(..., strength_regularization=w)` adds `w * mean(1 / (1 + (3.25 s - 1.625)^12))` "
            "over the stack's push and pop strengths (and the buffer gates when buffered): the penalty of Hao "
            "et al.'s reference code, 1 at s = 0.5 and about 0.003 at 0 and 1. It discourages half pushes and "
            "half pops, the \"stack as unstructured memory\" behaviour of §6. Measured on parenthesis "
            "prediction with an LSTM(10) controller and a stack (`buffered=False`, i.e. the standard network "
            "of §2.1-2.2), same seeds and data with and without:",
            "",
            "| weight | train min | med | max | test min | med | max | test per seed | epochs | s/trial |",
            "|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|",
        ]
        for weight, results in aid:
            train, test, epochs = ([r[name] for r in results] for name in ("train", "test", "epochs"))
            lines.append(
                f"| {weight:g} | " + " | ".join(f"{v:.1f}" for v in (*summary(train), *summary(test)))
                + f" | {', '.join(f'{v:.1f}' for v in test)} | {min(epochs)}-{max(epochs)} "
                f"| {mean_seconds(results):.0f} |"
            )
    if noise:
        lines += [
            "",
            "## Beyond the paper: strength noise on the buffered network",
            "",
            f"`BufferedStackRNN(..., strength_noise={args.strength_noise:g})` adds Gaussian noise of that standard "
            "deviation, while training only, to the logits of the stack's push and pop strengths and of the "
            "buffer gates `i_t` and `o_t`. The buffered linear network's rows of the table above, with and "
            "without, same seeds, data and protocol (the noise-free rows are the table's):",
            "",
            "| Task | noise | train min | med | max | dev med | test min | med | max | test per seed | epochs |",
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|",
        ]
        for label, sigma, results in noise:
            train, dev, test, epochs = ([r[name] for r in results] for name in ("train", "dev", "test", "epochs"))
            lines.append(
                f"| {label} | {sigma:g} | "
                + " | ".join(f"{v:.1f}" for v in (*summary(train), statistics.median(dev), *summary(test)))
                + f" | {', '.join(f'{v:.1f}' for v in test)} | {min(epochs)}-{max(epochs)} |"
            )
    output = pathlib.Path(args.output)
    head, tail = DEFAULT_HEAD, "\n"
    text = output.read_text() if output.exists() else ""
    if GENERATED_BEGIN in text and GENERATED_END in text.split(GENERATED_BEGIN, 1)[1]:
        head, rest = text.split(GENERATED_BEGIN, 1)
        tail = rest.split(GENERATED_END, 1)[1]
    output.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(lines)
    write_atomically(output, f"{head}{GENERATED_BEGIN}\n\n{body}\n\n{GENERATED_END}{tail}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
