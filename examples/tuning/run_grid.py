"""Runs the paper's hyperparameter grid on one task with `kt.GridSearch`.

The grid (Grefenstette et al. 2015 §4.4): model in {1, 2, 4, 8-layer LSTM,
Stack-, Queue-, DeQue-LSTM} x hidden size {256, 512} x learning rate
{5e-3, 1e-3, 5e-4, 1e-4, 5e-5}, 70 trials; RMSProp, batch 10, clipping at 1.
The objective is validation coarse accuracy (direction "max"), measured on
fresh examples at the training lengths.

    python examples/tuning/run_grid.py --task sequence_reversal --scale paper
    python examples/tuning/run_grid.py --task sequence_reversal --quick   # ~1 minute

An existing `--directory/--project` is resumed (keras-tuner's default) and
this script says so; pass `--overwrite` to start again.

Distributed tuning uses keras-tuner's own chief/worker protocol: start the
same command once with `KERASTUNER_TUNER_ID=chief`, and on every worker with
`KERASTUNER_TUNER_ID=tuner0`, `tuner1`, ..., all with
`KERASTUNER_ORACLE_IP=<chief's address>` and `KERASTUNER_ORACLE_PORT=8000`,
and a `--directory` the chief and workers share.
"""

import argparse
import pathlib

import keras_tuner as kt

from keras_neural_memory.experiments import data
from keras_neural_memory.experiments.cli import positive_int
from keras_neural_memory.experiments.config import (
    PAPER_HIDDEN_SIZES,
    PAPER_LEARNING_RATES,
    PAPER_MODELS,
    SCALES,
    UsageError,
)
from keras_neural_memory.experiments.hypermodel import TransducerHyperModel


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="sequence_reversal")
    parser.add_argument("--scale", choices=tuple(SCALES), default="default", help="data lengths and vocabulary")
    parser.add_argument("--quick", action="store_true", help="a 2-trial grid of tiny models for a smoke run")
    parser.add_argument("--epochs", type=positive_int, default=10)
    parser.add_argument("--steps-per-epoch", type=positive_int, default=1000)
    parser.add_argument("--validation-examples", type=positive_int, default=500)
    parser.add_argument("--directory", default="tuning")
    parser.add_argument("--project", help="default: grid-TASK-SCALE")
    parser.add_argument("--overwrite", action="store_true", help="start the project again instead of resuming it")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    if args.quick:
        args.scale = "quick"
        grid = dict(models=("lstm1", "stack"), hidden_sizes=(16,), learning_rates=(5e-3,), memory_width=8)
        args.epochs, args.steps_per_epoch, args.validation_examples = 1, 5, 20
    else:
        grid = dict(models=PAPER_MODELS, hidden_sizes=PAPER_HIDDEN_SIZES, learning_rates=PAPER_LEARNING_RATES)
    try:
        setup = data.task_setup(args.task, args.scale)
    except UsageError as error:
        parser.error(str(error))
    if setup.layout != "joint":
        parser.error(f"the paper's grid is for the Grefenstette et al. tasks; {args.task} is a Hao et al. task")

    project = args.project or f"grid-{args.task}-{args.scale}"
    if (pathlib.Path(args.directory) / project).exists() and not args.overwrite:
        print(f"resuming the existing tuning project {args.directory}/{project} (pass --overwrite to restart)")
    tuner = kt.GridSearch(
        TransducerHyperModel(setup.source_vocab_size, setup.target_vocab_size, **grid),
        # keras-tuner cannot tell the direction of a metric it does not know.
        objective=kt.Objective("val_coarse_accuracy", direction="max"),
        directory=args.directory,
        project_name=project,
        overwrite=args.overwrite,
        seed=args.seed,
    )
    train = data.examples(setup, "train", None, args.seed, 10)  # endless, as in the paper
    validation = data.examples(setup, "validation", args.validation_examples, args.seed + 1000, 50)
    tuner.search(
        train,
        validation_data=validation,
        epochs=args.epochs,
        steps_per_epoch=args.steps_per_epoch,
        validation_steps=-(-args.validation_examples // 50),
        shuffle=False,  # a stream of fresh examples; Keras warns that it ignores shuffle on a tf.data.Dataset
        verbose=1,
    )
    tuner.results_summary(num_trials=5)
    best = tuner.get_best_hyperparameters(1)[0].values
    print(f"best: {best}")
    return best


if __name__ == "__main__":
    main()
