"""What a run is: `RunConfig`, checked and resolved by its task's protocol; the paper's grid; the DeQue recipe.

Plain data and checks: the command line parses and rejects arguments with
these before it loads any data or builds a model. The scales and the
protocols' numbers are those of `common`.
"""

import dataclasses
import functools

# The numbers and the error every module shares, given here to the rest of the application too.
from keras_neural_memory.experiments.common import (  # noqa: F401
    CHOMSKY_LEARNING_RATES,
    CHOMSKY_PREFIX,
    CHOMSKY_PROTOCOL,
    DEFAULT_BATCH_SIZE,
    DEFAULT_LEARNING_RATE,
    HAO_HIDDEN_SIZE,
    HAO_MEMORY_WIDTH,
    SCALES,
    UsageError,
    chomsky_task,
)
from keras_neural_memory.experiments.protocols import protocol_for
from keras_neural_memory.memory_options import MemoryOptions
from keras_neural_memory.models import CHOMSKY_MODELS, CHOMSKY_STACK_SIZE, CONTROLLERS
from keras_neural_memory.validation import (
    check_choice,
    check_int,
    check_lstm_layers,
    check_positive_int,
    check_real,
)

# The grid of Grefenstette et al. §4.4 and Appendix D: the memory LSTMs and
# n-layer LSTMs, hidden sizes and RMSProp learning rates.
PAPER_MODELS = ("stack", "queue", "deque", "lstm1", "lstm2", "lstm4", "lstm8")
PAPER_HIDDEN_SIZES = (256, 512)
PAPER_LEARNING_RATES = (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)


# What `neural-memory train --memory deque` adds on the tasks of Grefenstette
# et al. unless given `--paper-deque`, as `RunConfig` keyword arguments: the
# settings with which the DeQue-LSTM learns copy and reversal at the default
# scale (docs/results/deque.md, the condition
# `hard_sigmoid_quiet_end_noise_after5_lr2e-3`), where with the paper's it
# learns no copy. Its strength noise starts after the first
# `DEQUE_RECIPE_QUIET_BATCHES` batches, rounded up to whole epochs.
DEQUE_RECIPE = dict(
    memory_options=MemoryOptions(gate_activation="hard_sigmoid", quiet_end="random", strength_noise=0.5),
    learning_rate=2e-3,
)
DEQUE_RECIPE_QUIET_BATCHES = 500


def model_kind(name):
    """`(memory, lstm_layers)` of a model name of the paper's grid.

    "lstmN" is the N-layer LSTM baseline; "stack", "queue" and "deque" are
    memory LSTMs (one controller layer).

    Example:

    >>> model_kind("lstm4"), model_kind("deque")
    (('lstm', 4), ('deque', 1))
    """
    if isinstance(name, str) and name.startswith("lstm") and name[4:].isdigit() and int(name[4:]) > 0:
        return "lstm", int(name[4:])
    if name in ("stack", "queue", "deque"):
        return name, 1
    raise UsageError(f"unknown model {name!r}; use 'lstmN' (N layers), 'stack', 'queue' or 'deque'")


def deque_recipe(steps_per_epoch):
    """`DEQUE_RECIPE` for epochs of `steps_per_epoch` batches, as `RunConfig` keyword arguments.

    The noise starts after the first `DEQUE_RECIPE_QUIET_BATCHES` batches,
    rounded up to whole epochs (`strength_noise_delay`).

    Example:

    >>> config = RunConfig("sequence_copy", memory="deque", steps_per_epoch=300, **deque_recipe(300))
    >>> config.memory_options.changed(), config.strength_noise_delay
    ({'gate_activation': 'hard_sigmoid', 'strength_noise': 0.5, 'quiet_end': 'random'}, 2)
    """
    check_positive_int("steps_per_epoch", steps_per_epoch)
    return dict(DEQUE_RECIPE, strength_noise_delay=-(-DEQUE_RECIPE_QUIET_BATCHES // steps_per_epoch))


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """One training run of `neural-memory train` (and of each run of `reproduce`).

    Sizes left as None come from the task's protocol
    (`protocols.protocol_for`): from `scale` on Grefenstette et al. tasks,
    from Hao et al. (hidden size 10, memory width 2), or from the protocol
    of Delétang et al. (`CHOMSKY_PROTOCOL`, tasks "chomsky_hierarchy/NAME").
    `resolved` fills them in and returns a `ResolvedRunConfig`.
    Chomsky-hierarchy runs leave `scale`, `controller`, `lstm_layers`,
    `stop_at_coarse`, `validation_examples` and `eval_examples` at their
    defaults, and only they take `eval_max_length` and `eval_sequences`.

    Args:
        task: A `tfds_tasks` task name, e.g. "sequence_reversal", or
            "chomsky_hierarchy/NAME" (`models.build_chomsky_model`).
        memory: "stack", "queue", "deque", or "lstm" for the deep-LSTM
            baseline; on Chomsky-hierarchy tasks also
            "superposition_stack" (the authors' Stack-RNN).
        lstm_layers: Layers of the "lstm" baseline of Grefenstette et al.
            tasks (1, 2, 4, 8 in the paper); None: 2 there, and 1 for every
            other model, whose controller is one layer.
        controller: "lstm", or "linear" for Hao et al. tasks.
        scale: A key of `SCALES`: lengths, vocabulary and default sizes.
        hidden_size: Controller units.
        memory_width: Memory vector size.
        learning_rate: RMSProp learning rate (Adam on Chomsky-hierarchy
            tasks); None: 5e-3, or 5e-4 on Chomsky-hierarchy tasks.
        memory_options: The memory cell's `MemoryOptions` (gate
            activation, strength noise and its ends, the DeQue's quiet end,
            the pop bias); every option but the defaults needs a model that
            takes it.
        strength_noise_epochs: Train with the options' `strength_noise`
            for the first this many epochs only, then without (a
            `keras_neural_memory.StrengthNoiseScheduler`); None: every
            epoch. Counted from the first epoch, so with
            `strength_noise_delay` the noisy epochs are those from the
            delay up to this. Needs `strength_noise`.
        strength_noise_delay: Train without noise for the first this many
            epochs, then with `strength_noise` (up to `strength_noise_epochs`
            when that is set); None: from the first epoch. Needs
            `strength_noise`.
        vocab_size: Content symbols of the task (for the ITG tasks, class
            words, e.g. 3 for one word per class, the TFDS configs
            `default_scale_one_word`); None: the scale's. Grefenstette et
            al. tasks only.
        rule_probabilities: The ITG tasks' rule probabilities,
            `{nonterminal: (p1, p2, ...)}` in the order of the grammar's
            rules (`tfds_tasks.generators.itg.with_rule_probabilities`);
            None: the shipped ones. Kept as sorted `(nonterminal,
            probabilities)` pairs.
        stack_size: Vectors the Stack-RNN's stack holds
            ("superposition_stack" only); None: the authors' 30. Its
            weights do not depend on it; a stack shallower than the tape
            loses what falls off its bottom.
        batch_size: Examples per batch; None: the paper's 10, or 128 on
            Chomsky-hierarchy tasks.
        epochs: Most epochs to train.
        steps_per_epoch: Batches per epoch.
        stop_at_coarse: Stop once training coarse accuracy reaches this at
            two consecutive epochs; None trains every epoch.
        curriculum_epochs: Train the first this many epochs on shorter
            sources, from the task's shortest up, the longest growing
            towards the training maximum (`data.curriculum_regimes`); None:
            the training lengths from the first epoch, as the papers.
            With `stop_at_coarse`, needs `validation_examples`, so that
            the stop reads strings of the training lengths.
        validation_examples: After every epoch, also measure accuracy on
            this many held-out strings of training lengths (the same ones
            each epoch), in inference mode, so without strength noise;
            `stop_at_coarse` then reads their coarse accuracy instead of
            the average over the epoch's training batches. None: no such
            measurement.
        eval_examples: Examples per accuracy measurement.
        eval_max_length: Chomsky-hierarchy tasks: measure every length up
            to this (None: the protocol's 500).
        eval_sequences: Chomsky-hierarchy tasks: sequences per length
            (None: the protocol's 512).
        seed: Seed of the weights and of the example stream.
        output_dir: The run's folder; None gives "runs/TASK-MEMORY-SCALE"
            ("runs/chomsky_hierarchy-NAME-MEMORY" for Chomsky-hierarchy tasks).
        overwrite: Train from the start, replacing the run in `output_dir`,
            finished or under way.
        jit_compile: Compile with XLA.
        verbose: Keras `fit` verbosity (0, 1 or 2).

    Raises:
        UsageError: The options do not make a run: an unknown task, or an
            option the task's protocol or the model does not take.

    Example:

    >>> config = RunConfig("sequence_reversal", scale="quick").resolved()
    >>> config.hidden_size, config.epochs, config.output_path()
    (32, 4, 'runs/sequence_reversal-stack-quick')
    """

    task: str
    memory: str = "stack"
    lstm_layers: int | None = None
    controller: str = "lstm"
    scale: str = "default"
    hidden_size: int | None = None
    memory_width: int | None = None
    learning_rate: float | None = None
    memory_options: MemoryOptions = MemoryOptions()
    strength_noise_epochs: int | None = None
    strength_noise_delay: int | None = None
    vocab_size: int | None = None
    rule_probabilities: tuple | None = None
    stack_size: int | None = None
    batch_size: int | None = None
    epochs: int | None = None
    steps_per_epoch: int | None = None
    stop_at_coarse: float | None = None
    curriculum_epochs: int | None = None
    validation_examples: int | None = None
    eval_examples: int = 500
    eval_max_length: int | None = None
    eval_sequences: int | None = None
    seed: int = 0
    output_dir: str | None = None
    overwrite: bool = False
    jit_compile: bool = True
    verbose: int = 1

    def __post_init__(self):
        check_choice("memory", self.memory, CHOMSKY_MODELS)
        check_choice("controller", self.controller, CONTROLLERS)
        check_choice("scale", self.scale, tuple(SCALES))
        check_choice("verbose", self.verbose, (0, 1, 2))
        check_positive_int("eval_examples", self.eval_examples)
        if not isinstance(self.memory_options, MemoryOptions):
            raise UsageError(f"memory_options must be a MemoryOptions; received {type(self.memory_options).__name__}")
        if self.rule_probabilities is not None:
            from tfds_tasks.generators.itg import rule_probability_pairs

            object.__setattr__(self, "rule_probabilities", rule_probability_pairs(self.rule_probabilities))
        for name in ("batch_size", "hidden_size", "memory_width", "stack_size", "vocab_size", "epochs", "steps_per_epoch",
                     "validation_examples", "eval_max_length", "eval_sequences", "curriculum_epochs",
                     "strength_noise_epochs", "strength_noise_delay"):  # fmt: skip
            check_positive_int(name, getattr(self, name), allow_none=True)
        if self.learning_rate is not None:
            check_real("learning_rate", self.learning_rate, above=0)
        if self.memory != "superposition_stack":
            if self.stack_size is not None:
                raise UsageError(f"--stack-size sizes the stack of --memory superposition_stack, not of "
                                 f"{self.memory}, whose memory grows with the input; leave it out")  # fmt: skip
            check_lstm_layers(self.lstm_layers, self.memory)
        self.memory_options.check_for(self.memory)
        noise = self.memory_options.strength_noise
        if self.strength_noise_epochs is not None and not noise:
            raise UsageError("--strength-noise-epochs N sets how long --strength-noise lasts; "
                             "add --strength-noise STDDEV, or leave it out")  # fmt: skip
        if self.strength_noise_delay is not None:
            if not noise:
                raise UsageError("--strength-noise-delay N sets when --strength-noise starts; "
                                 "add --strength-noise STDDEV, or leave it out")  # fmt: skip
            if self.strength_noise_epochs is not None and self.strength_noise_delay >= self.strength_noise_epochs:
                raise UsageError(f"--strength-noise-delay {self.strength_noise_delay} leaves no noisy epoch before "
                                 f"--strength-noise-epochs {self.strength_noise_epochs}; make the delay smaller")  # fmt: skip
        self.protocol.check(self)
        if self.stop_at_coarse is not None:
            check_real("stop_at_coarse", self.stop_at_coarse, above=0, maximum=1)
            if self.curriculum_epochs and self.validation_examples is None:
                raise UsageError("--stop-at-coarse with --curriculum-epochs needs --validation-examples N: the "
                                 "curriculum's training batches are shorter than the training lengths")  # fmt: skip
        check_int("seed", self.seed)

    @property
    def protocol(self):
        """The `protocols.Protocol` of the run's task family, picked from `task`."""
        return protocol_for(self.task)

    def resolved(self):
        """A `ResolvedRunConfig`: this config with every size that was None taken from its protocol.

        Grefenstette et al. tasks take their sizes from `scale`, Hao et al.
        tasks theirs, Chomsky-hierarchy tasks the protocol of Delétang et
        al.

        Raises:
            UsageError: `lstm_layers` is more than 1 on a Hao et al. task,
                whose models have one controller layer.
        """
        return ResolvedRunConfig(**{**self.fields(), **self.protocol.defaults(self)})

    def fields(self):
        """`{name: value}` of every field, as given (not copied)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    @classmethod
    def from_settings(cls, settings):
        """The resolved config of a run's recorded `settings` (as `settings` returns them).

        Settings written before `lstm_layers` was resolved name the LSTM
        baseline's default depth, 2, for models whose controller has one
        layer: they are read as 1, which those models had.

        Example:

        >>> old = RunConfig("sequence_copy", memory="queue", lstm_layers=1).resolved().settings()
        >>> RunConfig.from_settings({**old, "lstm_layers": 2}).lstm_layers
        1
        """
        options = MemoryOptions.from_record(settings)
        # The Chomsky protocol's version is the protocol's, not a field of the config.
        unrecorded = (*MemoryOptions.option_names(), "protocol_version")
        settings = {name: value for name, value in settings.items() if name not in unrecorded}
        if not protocol_for(settings["task"]).takes_lstm_depth(settings.get("memory", cls.memory)):
            settings["lstm_layers"] = None
        return cls(**settings, memory_options=options).resolved()

    def output_path(self):
        """The run's folder: `output_dir`, or the protocol's default ("runs/TASK-MEMORY-SCALE")."""
        return self.output_dir or self.protocol.default_output_path(self)

    def settings(self):
        """What makes two runs the same run, as recorded in `results.json`.

        Where the run is written and how it prints are not part of it. The
        memory options are recorded flat, those at their defaults left out.
        """
        record = self.fields()
        for key in ("output_dir", "overwrite", "jit_compile", "verbose", "memory_options"):
            del record[key]
        record.update(self.memory_options.changed())
        # Options left off are recorded as before they existed, so those runs still match.
        for key in ("strength_noise_epochs", "strength_noise_delay", "validation_examples", "curriculum_epochs",
                    "vocab_size", "rule_probabilities"):  # fmt: skip
            if record[key] is None:
                del record[key]
        if record["stack_size"] in (None, CHOMSKY_STACK_SIZE):
            del record["stack_size"]
        if "rule_probabilities" in record:  # JSON-shaped, as results.json reads back
            record["rule_probabilities"] = {name: list(values) for name, values in record["rule_probabilities"]}
        return self.protocol.recorded(record)


@dataclasses.dataclass(frozen=True)
class ResolvedRunConfig(RunConfig):
    """A `RunConfig` with every size filled in by its protocol, as `RunConfig.resolved` returns it.

    Its type says that it is resolved: `resolved` returns it as it is, so
    a run's configuration is resolved once, wherever it is passed.
    """

    def resolved(self):
        """This config: it is resolved already."""
        return self

    @functools.cached_property
    def protocol(self):
        """The `protocols.Protocol` of the run's task family, picked from `task` once."""
        return protocol_for(self.task)
