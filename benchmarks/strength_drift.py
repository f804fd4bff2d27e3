"""How far a trained memory model's push and pop strengths drift, length by length.

A model trained with soft strengths can fit its training lengths while its
pushes and pops are not whole: a queue that pops 0.01 on every step that
reads the source has popped a whole element by the end of a source 100
symbols long, and then reads the wrong first symbol. This traces a saved
run (`neural-memory train` or `reproduce`) step by step with
`trace_memory` on fresh strings of each given source length and reports:

- "push (source)": the mean push strength on the steps that read `<s>` and
  the source (whole pushes: 1);
- "pop before output": the pop strength summed over those steps, the
  memory lost before the first output symbol is read (whole pops: 0);
- "fraction": the mean of `min(s, 1 - s)` over every push and pop strength
  `s` of the string (0 for whole pushes and pops, 0.5 at most);

and, in a second table, the mean push and pop strengths on the steps that
write the target (a model that copies with whole strengths: push 0, pop 1).
A model that has not learned to use its memory pushes and pops alike in
both phases. A DeQue gets a row per end, top and bottom. Each figure is the
mean over `--examples` strings.

A run that has not finished is traced at its last backed-up epoch (see
`run_folder.load_run`).

Usage:
    KERAS_BACKEND=jax python benchmarks/strength_drift.py RUN_DIR [--lengths 64,128,160] [--examples 20]
"""

import argparse
import collections
import sys

import numpy as np

from keras_neural_memory.experiments import data, evaluation
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.config import UsageError
from keras_neural_memory.experiments.run_folder import load_run
from keras_neural_memory.models import MEMORY_KINDS

# The kinds that have a memory to trace ("lstm" has none).
TRACEABLE = tuple(kind for kind in MEMORY_KINDS if kind != "lstm")


def traces(model, memory, setup, split, examples, seed=1):
    """`(trace, sequence)` for `examples` fresh strings of `split`, traced step by step.

    Args:
        model: A loaded transducer of `models.build_transducer`.
        memory: Its memory kind ("stack", "queue" or "deque").
        setup: The `data.TaskSetup` whose strings to draw.
        split: "train" or "test": which length regime of `setup`.
        examples: How many strings.
        seed: Seed of the string stream.
    """
    from keras_neural_memory import trace_memory

    embedding, layer = model.get_layer("embedding"), model.get_layer(f"{memory}_rnn")
    for _, sequence in zip(range(examples), data.training_sequences(setup, split, seed)):
        yield trace_memory(layer, embedding(np.asarray(sequence["inputs"])[None])), sequence


def fraction(strengths):
    """The mean of `min(s, 1 - s)` over the strengths `s` of a list of arrays."""
    strengths = np.concatenate([np.ravel(part) for part in strengths])
    return float(np.minimum(strengths, 1 - strengths).mean())


def drift(model, memory, setup, examples):
    """This module's figures for each end of the memory, means over `examples` strings.

    Returns:
        One dict per end (one, or top and bottom for a DeQue) with "push
        (source)", "pop before output", "fraction", "push (target)" and
        "pop (target)".
    """
    rows = None
    for trace, sequence in traces(model, memory, setup, "train", examples):
        # Steps whose loss mask is 0 read `<s>` and the source; the rest write the target.
        reading = np.asarray(sequence["loss_mask"]) == 0
        push, pop = trace["push"][0], trace["pop"][0]  # (time, ends)
        rows = rows or [collections.defaultdict(list) for _ in range(push.shape[-1])]
        for end, row in enumerate(rows):
            row["push (source)"].append(push[reading, end].mean())
            row["pop before output"].append(pop[reading, end].sum())
            row["push (target)"].append(push[~reading, end].mean())
            row["pop (target)"].append(pop[~reading, end].mean())
            row["fraction"] += [push[:, end], pop[:, end]]  # every strength, reduced below
    return [{key: fraction(values) if key == "fraction" else float(np.mean(values)) for key, values in row.items()}
            for row in rows]  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a run folder (or its model.keras) of a memory model")
    parser.add_argument("--lengths", type=list_of(positive_int), default=[64, 128, 160], help="source lengths to trace")
    parser.add_argument("--examples", type=positive_int, default=20, help="strings per length")
    args = parser.parse_args(argv)
    try:
        loaded = load_run(args.run)
    except UsageError as error:
        parser.error(str(error))
    model, settings = loaded.model, loaded.record.get("settings")
    if not settings or settings.get("memory") not in TRACEABLE:
        parser.error(f"{args.run!r} is not a run of a memory model (its results.json or settings.json names none); pass a stack, queue or deque run")
    memory = settings["memory"]
    print(f"{memory} on {settings['task']} ({settings['scale']} scale), {args.examples} strings per length; {loaded.source}")
    ends = [""] if memory != "deque" else [", top", ", bottom"]
    figures = {}
    for length in args.lengths:
        setup = data.task_setup(settings["task"], settings["scale"], train_lengths=(length, length),
                                **evaluation.run_grammar(loaded.record))  # fmt: skip
        figures[length] = drift(model, memory, setup, args.examples)
    print("| source length | push (source) | pop before output | fraction |")
    print("|--:|--:|--:|--:|")
    for length, rows in figures.items():
        for end, row in zip(ends, rows):
            print(f"| {length}{end} | {row['push (source)']:.3f} | {row['pop before output']:.3f} | {row['fraction']:.3f} |")
    print("\nWhile writing the target (mean strengths):\n")
    print("| source length | push (target) | pop (target) |")
    print("|--:|--:|--:|")
    for length, rows in figures.items():
        for end, row in zip(ends, rows):
            print(f"| {length}{end} | {row['push (target)']:.3f} | {row['pop (target)']:.3f} |")


if __name__ == "__main__":
    sys.exit(main())
