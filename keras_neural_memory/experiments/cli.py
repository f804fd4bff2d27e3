"""`neural-memory`: train and evaluate memory-augmented transducers.

    neural-memory train --task sequence_reversal --memory stack
    neural-memory evaluate --model runs/sequence_reversal-stack-default --lengths 17 64 --sweep
    neural-memory reproduce --plan quick
    neural-memory train --task chomsky_hierarchy/reverse_string --memory superposition_stack

`train` trains on freshly sampled examples (the papers' unbounded stream)
with the paper's optimiser (RMSProp, batch 10, gradient clipping at 1),
shows a Keras progress bar, writes TensorBoard logs, backs up every epoch
(the same command continues an interrupted run from its
last epoch; a finished one is recognised and not retrained), and ends by
printing coarse and fine accuracy at training and at test lengths, which it
also writes to `results.json`. A run whose loss becomes NaN exits with
status 1 and is recorded as diverged.

`--memory deque` on the tasks of Grefenstette et al. trains with
`config.DEQUE_RECIPE` (hard-sigmoid gates, a random quiet end, strength
noise 0.5 after the first 500 batches, learning rate 2e-3), with which the
DeQue-LSTM learns copy and reversal at the default scale; each of its
options given on the command line replaces the recipe's, and
`--paper-deque` trains the paper's DeQue instead.

Tasks "chomsky_hierarchy/NAME" follow the protocol of Delétang et al.
(2023) instead (Adam, batch 128, lengths 1-40) and end by measuring
accuracy at every length 1-500, written to the run folder as a JSON curve
and a plot, with its score (the mean over lengths 41-500) in `results.json`.
"""

import argparse
import dataclasses
import json
import pathlib
import sys

from keras_neural_memory.experiments.config import (
    CHOMSKY_LEARNING_RATES,
    CHOMSKY_PROTOCOL,
    DEFAULT_LEARNING_RATE,
    DEQUE_RECIPE,
    DEQUE_RECIPE_QUIET_BATCHES,
    PAPER_LEARNING_RATES,
    PAPER_MODELS,
    SCALES,
    RunConfig,
    UsageError,
    deque_recipe,
)
from keras_neural_memory.experiments.protocols import protocol_for
from keras_neural_memory.memory_options import MemoryOptions
from keras_neural_memory.models import CHOMSKY_MODELS, CONTROLLERS
from keras_neural_memory.validation import InvalidArgumentError, check_positive_int, check_real


def _argument_type(parse, check, noun, **bounds):
    """An argparse type: `parse` the text, then apply the library's own `check`."""

    def convert(text):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        try:
            check("value", value, **bounds)
        except InvalidArgumentError as error:
            raise argparse.ArgumentTypeError(f"must be {error.expected}, not {text}") from None
        return value

    return convert


positive_int = _argument_type(int, check_positive_int, "an integer")
positive_float = _argument_type(float, check_real, "a number", above=0)
unit_float = _argument_type(float, check_real, "a number", above=0, maximum=1)
non_negative_float = _argument_type(float, check_real, "a number", minimum=0)


_NOUNS = {int: "an integer", float: "a number"}


def rule_probabilities(text):
    """An argparse type: "NONTERMINAL=P1,P2,..." as `(nonterminal, [p1, p2, ...])`; the grammar checks the values."""
    name, equals, values = text.partition("=")
    if not (equals and name and values):
        raise argparse.ArgumentTypeError(f"{text!r} is not NONTERMINAL=P1,P2,... (e.g. S=0.5,0,0.5)")
    return name, list_of(float)(values)


def list_of(item_type):
    """An argparse type: a comma-separated list of `item_type` (itself an argparse type, such as `positive_int`)."""

    def parse(text):
        items = []
        for item in text.split(","):
            try:
                items.append(item_type(item))
            except ValueError:
                raise argparse.ArgumentTypeError(f"{item!r} in {text!r} is not {_NOUNS.get(item_type, 'valid')}") from None
        return items

    return parse


class _RenamedFlag(argparse.Action):
    """A flag's old name: still accepted, with a note of the new one."""

    def __init__(self, *args, new_name, **kwargs):
        super().__init__(*args, **kwargs)
        self.new_name = new_name

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: note: {option_string} is now {self.new_name}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def _run_flags():
    """The flags `train` and `reproduce` share: sizes, length of training, and the run's folder."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--hidden-size", type=positive_int, help="default: from the scale (10 for Hao et al. tasks)")
    flags.add_argument("--memory-width", type=positive_int, help="default: from the scale (2 for Hao et al. tasks)")
    flags.add_argument("--epochs", type=positive_int,
                       help="most epochs per run (a run under way may resume with another); default: from the scale or plan")
    flags.add_argument("--steps-per-epoch", type=positive_int, help="batches per epoch; default: from the scale or plan")
    flags.add_argument("--stop-at-coarse", type=unit_float, metavar="ACCURACY",
                       help="stop once training coarse accuracy reaches ACCURACY at two consecutive epochs")
    flags.add_argument("--validation-examples", type=positive_int, metavar="N",
                       help="after every epoch, measure accuracy on N held-out strings of training lengths without "
                       "strength noise; --stop-at-coarse then reads it instead of the training batches' average")
    flags.add_argument("--eval-examples", type=positive_int, default=500, help="examples per accuracy measurement")
    flags.add_argument("--overwrite", action="store_true", help="train from the start, replacing the folder's run (finished or under way) instead of reusing or resuming it")
    flags.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True, help="XLA (default on)")
    return flags


def _chomsky_evaluation_flags(command, default_note="the protocol's"):
    """The size of the length-by-length evaluation of chomsky_hierarchy/ runs."""
    command.add_argument("--eval-max-length", type=positive_int, metavar="LENGTH",
                         help=f"chomsky_hierarchy/ tasks: measure every length 1-LENGTH; default {default_note} "
                         f"{CHOMSKY_PROTOCOL['eval_max_length']}")  # fmt: skip
    command.add_argument("--eval-sequences", type=positive_int, metavar="N",
                         help=f"chomsky_hierarchy/ tasks: sequences per length; default {default_note} "
                         f"{CHOMSKY_PROTOCOL['eval_sequences']}")  # fmt: skip


def _memory_option_flags(command):
    """One flag per `MemoryOptions` field, named after it (dashes for underscores).

    A flag left out is None: the option's default, or on `--memory deque`
    the DeQue recipe's (`train_config`).
    """
    recipe = DEQUE_RECIPE["memory_options"].changed()
    for field in dataclasses.fields(MemoryOptions):
        meta = field.metadata
        choices = [choice for choice in meta["choices"] if choice is not None] if meta["choices"] else None
        default = "none" if field.default is None else f"{field.default:g}" if choices is None else field.default
        if field.name in recipe:
            value = recipe[field.name]
            default += f"; {value:g}" if choices is None else f"; {value}"
            default += " for --memory deque (the DeQue recipe)"
        number = non_negative_float if meta["minimum"] == 0 else _argument_type(float, check_real, "a number")
        takes = "the DeQue only" if meta["memories"] == ("deque",) else "memory models only"
        command.add_argument(f"--{field.name.replace('_', '-')}", choices=choices, type=None if choices else number,
                             metavar=None if choices else "VALUE", help=f"{meta['help']} ({takes}); default {default}")


def parser():
    top = argparse.ArgumentParser(prog="neural-memory", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)
    run_flags = _run_flags()

    train = sub.add_parser("train", parents=[run_flags], help="train a model on a task and report coarse/fine accuracy")
    train.add_argument("--task", required=True,
                       help="a tfds_tasks name, e.g. sequence_reversal, or chomsky_hierarchy/NAME, e.g. "
                       "chomsky_hierarchy/reverse_string")  # fmt: skip
    train.add_argument("--memory", choices=CHOMSKY_MODELS, default="stack",
                       help="memory kind, or lstm for the deep-LSTM baseline; superposition_stack (the Stack-RNN "
                       "of Delétang et al.) on chomsky_hierarchy/ tasks only")  # fmt: skip
    train.add_argument("--lstm-layers", type=positive_int,
                       help="layers of the lstm baseline (1, 2, 4, 8 in the paper; default 2); memory models have one")
    train.add_argument("--controller", choices=CONTROLLERS, default="lstm", help="controller of Hao et al. tasks")
    train.add_argument("--scale", choices=tuple(SCALES), default="default", help="lengths, vocabulary and sizes")
    train.add_argument("--learning-rate", type=positive_float,
                       help=f"default {DEFAULT_LEARNING_RATE:g}, from the paper's grid ({DEQUE_RECIPE['learning_rate']:g} for "
                       "--memory deque); on chomsky_hierarchy/ tasks "
                       f"{CHOMSKY_PROTOCOL['learning_rate']:g} from {{{','.join(f'{r:g}' for r in CHOMSKY_LEARNING_RATES)}}}")  # fmt: skip
    _memory_option_flags(train)
    train.add_argument("--strength-noise-epochs", type=positive_int, metavar="EPOCHS",
                       help="train with --strength-noise for the first EPOCHS epochs only, then without; "
                       "default: every epoch")  # fmt: skip
    train.add_argument("--strength-noise-delay", type=positive_int, metavar="EPOCHS",
                       help="train without noise for the first EPOCHS epochs, then with --strength-noise; "
                       "default: noise from the first epoch")  # fmt: skip
    train.add_argument("--paper-deque", action="store_true",
                       help="--memory deque: train the paper's DeQue (sigmoid gates, both ends alike, no noise, "
                       f"learning rate {DEFAULT_LEARNING_RATE:g}) instead of adding the recipe with which it learns "
                       f"copy and reversal, whose strength noise starts after the first {DEQUE_RECIPE_QUIET_BATCHES} "
                       "batches (rounded up to whole epochs)")  # fmt: skip
    train.add_argument("--vocab-size", type=positive_int, metavar="SYMBOLS",
                       help="content symbols of the task (ITG tasks: class words, 3 for one per class); "
                       "default: the scale's")  # fmt: skip
    train.add_argument("--rule-probabilities", type=rule_probabilities, nargs="+", metavar="NONTERMINAL=P1,P2,...",
                       help="ITG tasks: replace a nonterminal's rule probabilities, in the order of the grammar's "
                       "rules, e.g. S=0.5,0,0.5 O=0.55,0,0.45; default: the shipped ones")  # fmt: skip
    train.add_argument("--curriculum-epochs", type=positive_int, metavar="EPOCHS",
                       help="train the first EPOCHS epochs on shorter sources, from the task's shortest, the longest "
                       "growing towards the training maximum; default none, as the papers")  # fmt: skip
    train.add_argument("--stack-size", type=positive_int, metavar="VECTORS",
                       help="vectors the stack of --memory superposition_stack holds; default the authors' "
                       f"{CHOMSKY_PROTOCOL['stack_size']} (a stack shallower than the tape drops what falls off its bottom)")  # fmt: skip
    train.add_argument("--batch-size", type=positive_int, help="default 10; 128 on chomsky_hierarchy/ tasks")
    _chomsky_evaluation_flags(train)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--output-dir", help="the run's folder; default: runs/TASK-MEMORY-SCALE")
    train.add_argument("--verbose", type=int, default=1, choices=(0, 1, 2), help="Keras fit verbosity")
    train.set_defaults(run=cmd_train)

    evaluate = sub.add_parser("evaluate", help="evaluate a saved model on a task, split or length range")
    evaluate.add_argument("--model", required=True, help="a model.keras written by train, or its run directory")
    evaluate.add_argument("--task", help="default: the task recorded in the run's results.json")
    evaluate.add_argument("--scale", choices=tuple(SCALES), help="default: the scale recorded in the run's results.json")
    evaluate.add_argument("--split", choices=("train", "test"), default="test", help="regime to sample")
    evaluate.add_argument("--lengths", type=int, nargs=2, metavar=("MIN", "MAX"), help="source length range instead of --split")
    evaluate.add_argument("--examples", type=positive_int, default=500)
    evaluate.add_argument("--sweep", action="store_true", help="also measure every length of the range")
    evaluate.add_argument("--sweep-step", type=positive_int, default=1)
    evaluate.add_argument("--sweep-examples", type=positive_int, default=100)
    evaluate.add_argument("--plot", help="PNG path for the length sweep")
    evaluate.add_argument("--output", help="JSON path for the results")
    evaluate.add_argument("--seed", type=int, default=1)
    evaluate.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True)
    _chomsky_evaluation_flags(evaluate, default_note="the run's")
    evaluate.set_defaults(run=cmd_evaluate)

    from keras_neural_memory.experiments.reproduce import PLANS, TASKS

    reproduce = sub.add_parser("reproduce", parents=[run_flags], help="run the paper's results table and its convergence plot",
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               description="plans:\n" + "\n".join(f"  {name}: {plan.description}" for name, plan in PLANS.items()))  # fmt: skip
    reproduce.add_argument("--plan", choices=tuple(PLANS), default="quick", help="what to train (described above)")
    reproduce.add_argument("--scale", dest="plan", choices=tuple(PLANS), action=_RenamedFlag, new_name="--plan",
                           default=argparse.SUPPRESS, help=argparse.SUPPRESS)  # fmt: skip
    reproduce.add_argument("--tasks", type=list_of(str), default=list(TASKS), help=f"comma-separated subset of {','.join(TASKS)}")
    reproduce.add_argument("--models", type=list_of(str), help=f"comma-separated subset of {','.join(PAPER_MODELS)}")
    reproduce.add_argument("--learning-rates", "--learning-rate", dest="learning_rates", type=list_of(positive_float),
                           default=[5e-3], help="comma-separated grid, from the paper's "
                           f"{{{','.join(f'{rate:g}' for rate in PAPER_LEARNING_RATES)}}}")  # fmt: skip
    reproduce.add_argument("--seeds", "--seed", dest="seeds", type=list_of(int), default=[0], help="comma-separated seeds")
    reproduce.add_argument("--output-dir", help="default: runs/reproduce-PLAN")
    reproduce.add_argument("--results-file", metavar="JSON",
                           help="where finished runs accumulate, and which runs count as done even without "
                           "their run folder; default: OUTPUT_DIR/results.json")  # fmt: skip
    reproduce.add_argument("--redraw", action="store_true", help="only redraw the table and plot from the finished runs")
    reproduce.set_defaults(run=cmd_reproduce)
    return top


def cmd_train(args):
    from keras_neural_memory.experiments import training

    config = train_config(args)
    results = training.train(config)
    output = pathlib.Path(results["output_dir"])
    if results["diverged"]:
        print(f"neural-memory train: error: the loss became NaN after {results['batches']:,} batches; "
              f"the run is recorded as diverged in {output / 'results.json'} (try a lower --learning-rate)",
              file=sys.stderr)  # fmt: skip
        return 1
    print("\n" + config.protocol.summary(results, output))
    return 0


def train_config(args):
    """The resolved `RunConfig` of parsed `train` arguments, with `DEQUE_RECIPE` where it applies.

    Every field of `RunConfig` and of its `MemoryOptions` is an option of
    `train`, under the same name.
    `--memory deque` on a task of Grefenstette et al. takes the recipe's
    value of each option it leaves out (and the recipe's noise delay only
    with the recipe's noise), unless `--paper-deque`; every other run
    takes `RunConfig`'s defaults.

    Raises:
        UsageError: `--paper-deque` without `--memory deque`, or the
            options make no valid `RunConfig`.
    """
    options = {field.name: getattr(args, field.name) for field in dataclasses.fields(RunConfig) if field.name != "memory_options"}
    memory_options = {name: getattr(args, name) for name in MemoryOptions.option_names()}
    if args.paper_deque and args.memory != "deque":
        raise UsageError(f"--paper-deque chooses the DeQue's settings, not those of --memory {args.memory}; leave it out")
    if args.memory == "deque" and not args.paper_deque and protocol_for(args.task).takes_deque_recipe:
        # The recipe's delay is counted in the run's epochs, which its protocol sizes.
        steps = RunConfig(args.task, scale=args.scale, steps_per_epoch=args.steps_per_epoch).resolved().steps_per_epoch
        recipe = deque_recipe(steps)
        if args.strength_noise is not None:  # the user's noise, on the user's schedule
            del recipe["strength_noise_delay"]
        recipe_options = recipe.pop("memory_options").changed()
        memory_options.update({name: value for name, value in recipe_options.items() if memory_options[name] is None})
        options.update({name: value for name, value in recipe.items() if options[name] is None})
        print(f"note: --memory deque trains with the DeQue recipe, {_recipe_text(memory_options, options)}; "
              "--paper-deque for the paper's DeQue", flush=True)  # fmt: skip
    defaults = {field.name: field.default for field in dataclasses.fields(RunConfig)}
    options = {name: defaults[name] if value is None else value for name, value in options.items()}
    chosen = MemoryOptions(**{name: value for name, value in memory_options.items() if value is not None})
    return RunConfig(**options, memory_options=chosen).resolved()


def _recipe_text(memory_options, options):
    """The DeQue recipe's options as `train_config` filled them in (the user's where given), as flags."""
    shown = {name: memory_options[name] for name in DEQUE_RECIPE["memory_options"].changed()}
    shown["learning_rate"] = options["learning_rate"]
    if memory_options["strength_noise"] and options["strength_noise_delay"]:
        shown["strength_noise_delay"] = options["strength_noise_delay"]
    return " ".join(f"--{name.replace('_', '-')} {value:g}" if isinstance(value, (int, float)) else f"--{name.replace('_', '-')} {value}"
                    for name, value in shown.items())  # fmt: skip


def cmd_evaluate(args):
    from keras_neural_memory.experiments import evaluation, files

    report = evaluation.evaluate(
        args.model, task=args.task, scale=args.scale, split=args.split, lengths=args.lengths, examples=args.examples,
        seed=args.seed, sweep_step=args.sweep_step if args.sweep else None, sweep_examples=args.sweep_examples,
        plot=args.plot, jit_compile=args.jit_compile, eval_max_length=args.eval_max_length,
        eval_sequences=args.eval_sequences,
    )  # fmt: skip
    if args.output:
        files.write_atomically(args.output, json.dumps(report, indent=2))
    return 0


def cmd_reproduce(args):
    from keras_neural_memory.experiments import reproduce

    reproduce.reproduce(
        args.plan, tasks=args.tasks, models=args.models, learning_rates=args.learning_rates, seeds=args.seeds,
        output_dir=args.output_dir, hidden_size=args.hidden_size, memory_width=args.memory_width, epochs=args.epochs,
        steps_per_epoch=args.steps_per_epoch, stop_at_coarse=args.stop_at_coarse,
        validation_examples=args.validation_examples, eval_examples=args.eval_examples,
        results_file=args.results_file, redraw=args.redraw, overwrite=args.overwrite, jit_compile=args.jit_compile,
    )  # fmt: skip
    return 0


def main(argv=None):
    """Runs `neural-memory` with `argv` (default `sys.argv[1:]`); returns the exit status."""
    from keras_neural_memory.experiments.run_folder import RunError

    args = parser().parse_args(argv)
    try:
        return args.run(args)
    # An argument check of `RunConfig` that argparse cannot make alone
    # (e.g. --strength-noise with --memory lstm) is a usage error too.
    except (UsageError, InvalidArgumentError) as error:
        print(f"neural-memory {args.command}: error: {error}", file=sys.stderr)
        return 2
    # Out of disk space or memory: not a usage error, and the run's files are as they were.
    except RunError as error:
        print(f"neural-memory {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
