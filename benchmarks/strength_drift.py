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
  `s` of the string (0 for whole pushes and pops, 0.5 at most).

For a DeQue, push and pop are the means of its two ends. Each figure is the mean over
`--examples` strings.

Usage:
    KERAS_BACKEND=jax python benchmarks/strength_drift.py RUN_DIR [--lengths 64,128,160] [--examples 20]
"""

import argparse
import sys

import numpy as np

from keras_neural_memory.experiments import data, evaluation
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.config import UsageError
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


def fraction(traced):
    """The mean of `min(s, 1 - s)` over every push and pop strength of the `traced` strings."""
    strengths = np.concatenate([trace[key].ravel() for trace in traced for key in ("push", "pop")])
    return float(np.minimum(strengths, 1 - strengths).mean())


def drift(model, memory, setup, examples):
    """The three figures of this module's docstring, means over `examples` strings."""
    pushes, pops, traced = [], [], []
    for trace, sequence in traces(model, memory, setup, "train", examples):
        # Steps whose loss mask is 0 read `<s>` and the source; the rest read out the target.
        reading = np.asarray(sequence["loss_mask"]) == 0
        pushes.append(trace["push"][0, reading].mean())
        pops.append(trace["pop"][0, reading].sum(axis=0).mean())
        traced.append(trace)
    return float(np.mean(pushes)), float(np.mean(pops)), fraction(traced)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a run folder (or its model.keras) of a memory model")
    parser.add_argument("--lengths", type=list_of(positive_int), default=[64, 128, 160], help="source lengths to trace")
    parser.add_argument("--examples", type=positive_int, default=20, help="strings per length")
    args = parser.parse_args(argv)
    import keras

    try:
        path, results = evaluation.saved_run(args.run)
    except UsageError as error:
        parser.error(str(error))
    settings = results.get("settings")
    if not settings or settings.get("memory") not in TRACEABLE:
        parser.error(f"{args.run!r} is not a run of a memory model with its results.json; pass a stack, queue or deque run")
    model = keras.saving.load_model(path)
    print(f"{settings['memory']} on {settings['task']} ({settings['scale']} scale), {args.examples} strings per length")
    print("| source length | push (source) | pop before output | fraction |")
    print("|--:|--:|--:|--:|")
    for length in args.lengths:
        setup = data.task_setup(settings["task"], settings["scale"], train_lengths=(length, length))
        push, pop, frac = drift(model, settings["memory"], setup, args.examples)
        print(f"| {length} | {push:.3f} | {pop:.3f} | {frac:.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
