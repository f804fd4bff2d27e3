"""Where a trained run's wrong sequences go wrong.

Coarse accuracy counts a sequence as wrong if any target symbol is wrong
under teacher forcing. This script takes fresh examples of one split,
predicts them the same way (argmax at every target position, the true
prefix fed in) and prints markdown tables (pasted into ``docs/results.md``):

* how many symbols each wrong sequence gets wrong;
* the target position of its first wrong symbol;
* the word classes of its first wrong symbol, expected and predicted: the
  same class with another number is a word recalled wrongly, another class
  a wrong choice (e.g. of an article's gender);
* the word class of its first source word (the vocabulary word without its
  number, e.g. ``we`` for ``we11``), among the wrong sequences and among
  all of them, so a rare sentence start that the model has not learned
  stands out.

Usage::

    KERAS_BACKEND=jax python benchmarks/error_positions.py \\
        runs/paper-table/itg_gender_conjugation-queue/lr0.001-seed0 --examples 300 --seed 7
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BATCH_SIZE = 50


def word_class(word: str) -> str:
    """``we11`` -> ``we``: a lexical word's class; function words are their own class."""
    return re.sub(r"\d+$", "", word) or word


def share_table(title: str, wrong: Counter, total: Counter | None = None) -> str:
    header = f"| {title} | wrong sequences |" + (" all sequences |" if total else "")
    rows = [header, "|---|---:|" + ("---:|" if total else "")]
    keys = sorted(set(wrong) | set(total or ()), key=lambda k: (-wrong[k], str(k)))
    for key in keys:
        row = f"| {key} | {wrong[key]} |"
        if total:
            row += f" {total[key]} ({100 * total[key] / sum(total.values()):.1f}%) |"
        rows.append(row)
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a run folder written by `neural-memory train` (finished, or its last backed-up epoch), or its model.keras")
    parser.add_argument("--split", choices=("train", "test"), default="train", help="the regime to sample")
    parser.add_argument("--examples", type=int, default=300, help="fresh examples to predict (default 300)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the examples (default 7)")
    args = parser.parse_args()
    if args.examples < 1:
        parser.error(f"--examples must be at least 1, got {args.examples}")

    import numpy as np

    from keras_neural_memory.experiments import data, evaluation
    from keras_neural_memory.experiments.config import UsageError
    from keras_neural_memory.experiments.run_folder import load_run
    from tfds_tasks import generators, joint

    try:
        loaded = load_run(args.run)
    except UsageError as error:
        parser.error(str(error))
    model, recorded = loaded.model, loaded.record
    if "task" not in recorded:
        parser.error(f"{args.run} has no results.json or settings.json naming its task; pass a run folder written by `neural-memory train`")
    scale = recorded.get("scale", "default")
    setup = data.task_setup(recorded["task"], scale, **evaluation.run_grammar(recorded))
    evaluation.check_vocabulary(model, setup, scale)
    train_task, test_task = generators.tasks_for(setup.name, setup.settings)
    task = train_task if args.split == "train" else test_task
    source_vocab, output_vocab = task.source_vocab, joint.output_vocab(task.target_vocab, setup.layout)

    # The same seed gives the same examples in both streams: one for the
    # words, one for the model's joint sequences.
    examples = list(itertools.islice(generators.sample_stream(setup.name, args.seed, setup.settings, args.split),
                                     args.examples))
    sequences = itertools.islice(data.training_sequences(setup, args.split, args.seed), args.examples)
    wrong_counts, first_wrong, start_wrong = Counter(), Counter(), Counter()
    confusions, word_confusions = Counter(), Counter()
    start_all = Counter(word_class(source_vocab[example.source[0]]) for example in examples)
    index = 0
    for inputs, targets, mask in data.padded_batches(sequences, BATCH_SIZE):
        predictions = np.asarray(model.predict_on_batch(inputs)).argmax(-1)
        for row in range(len(inputs)):
            positions = np.flatnonzero(mask[row])
            wrong = [k for k, step in enumerate(positions) if predictions[row, step] != targets[row, step]]
            if wrong:
                wrong_counts[len(wrong)] += 1
                first_wrong[wrong[0]] += 1
                step = positions[wrong[0]]
                expected, predicted = (output_vocab[i] for i in (targets[row, step], predictions[row, step]))
                confusions[f"{word_class(expected)} -> {word_class(predicted)}"] += 1
                word_confusions[f"{expected} -> {predicted}"] += 1
                start_wrong[word_class(source_vocab[examples[index].source[0]])] += 1
            index += 1

    print(f"{recorded['task']}, {args.split} lengths, {args.examples} examples (seed {args.seed}), "
          f"model {loaded.source}: {sum(wrong_counts.values())} wrong under teacher forcing\n")
    print(share_table("wrong symbols", wrong_counts) + "\n")
    print(share_table("first wrong target position (0 = first)", first_wrong) + "\n")
    print(share_table("first wrong symbol's class, expected -> predicted", confusions) + "\n")
    print(share_table("first wrong symbol, expected -> predicted", word_confusions) + "\n")
    print(share_table("first source word's class", start_wrong, start_all))


if __name__ == "__main__":
    main()
