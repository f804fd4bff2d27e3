"""What a run is: its scales, the paper's model names, and `RunConfig`.

Plain data and checks: the command line parses and rejects arguments with
these before it loads any data or builds a model.
"""

import dataclasses

from keras_neural_memory.models import (
    CHOMSKY_HIDDEN_SIZE,
    CHOMSKY_MEMORY_WIDTH,
    CHOMSKY_MODELS,
    CHOMSKY_STACK_SIZE,
    CONTROLLERS,
    DEFAULT_LSTM_LAYERS,
)
from keras_neural_memory.validation import (
    check_choice,
    check_gate_activation,
    check_int,
    check_quiet_end,
    check_strength_noise_ends,
    check_lstm_layers,
    check_positive_int,
    check_real,
    check_strength_noise,
)

# Grefenstette et al. tasks: source lengths, vocabulary and model size at
# each scale. "quick" is for smoke tests; "default" shows the effect in
# minutes on a 2-core CPU; "paper" is §4 (training runs far longer there).
# Hao et al. tasks keep their own lengths at every scale.
SCALES = {
    "quick": dict(train=(4, 8), test=(9, 16), vocab=8, hidden=32, width=16, epochs=4, steps=100),
    "default": dict(train=(8, 16), test=(17, 32), vocab=32, hidden=64, width=32, epochs=10, steps=300),
    "paper": dict(train=(8, 64), test=(65, 128), vocab=128, hidden=256, width=256, epochs=100, steps=1000),
}

# Hao et al. 2018 §5: hidden size 10, stack vectors of 2.
HAO_HIDDEN_SIZE, HAO_MEMORY_WIDTH = 10, 2
# The defaults of Grefenstette et al. and Hao et al. runs: the paper's
# RMSProp learning rate (from its grid) and batch.
DEFAULT_LEARNING_RATE, DEFAULT_BATCH_SIZE = 5e-3, 10

#: Tasks "chomsky_hierarchy/NAME" are the 15 tasks of Delétang et al. (2023).
CHOMSKY_PREFIX = "chomsky_hierarchy/"
# Their protocol: batches of 128 of one length uniform on 1-40,
# Adam with learning rates {1e-4, 3e-4, 5e-4}, 1,000,000 steps; 512
# sequences of every length 1-500; the score is the mean accuracy over the
# lengths beyond training. Here the default budget is 10 epochs of 1,000
# steps (the authors' example script trains 10,000), and the learning rate
# the grid's largest, for that shorter budget.
CHOMSKY_PROTOCOL = dict(
    hidden=CHOMSKY_HIDDEN_SIZE, width=CHOMSKY_MEMORY_WIDTH, stack_size=CHOMSKY_STACK_SIZE, epochs=10, steps=1000, learning_rate=5e-4,
    batch_size=128, train_lengths=(1, 40), eval_max_length=500, eval_sequences=512,
)  # fmt: skip
CHOMSKY_LEARNING_RATES = (1e-4, 3e-4, 5e-4)
# What Chomsky-hierarchy runs leave at their defaults: `RunConfig` field, its default, its flag.
_NOT_CHOMSKY = (
    ("scale", "default", "--scale"),
    ("controller", "lstm", "--controller"),
    ("lstm_layers", None, "--lstm-layers"),
    ("stop_at_coarse", None, "--stop-at-coarse"),
    ("validation_examples", None, "--validation-examples"),
    ("eval_examples", 500, "--eval-examples"),
    ("curriculum_epochs", None, "--curriculum-epochs"),
    ("vocab_size", None, "--vocab-size"),
    ("rule_probabilities", None, "--rule-probabilities"),
)

# The grid of Grefenstette et al. §4.4 and Appendix D: the memory LSTMs and
# n-layer LSTMs, hidden sizes and RMSProp learning rates.
PAPER_MODELS = ("stack", "queue", "deque", "lstm1", "lstm2", "lstm4", "lstm8")
PAPER_HIDDEN_SIZES = (256, 512)
PAPER_LEARNING_RATES = (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)


# What `neural-memory train --memory deque` adds on the tasks of Grefenstette
# et al. unless given `--paper-deque`: the settings with which the DeQue-LSTM
# learns copy and reversal at the default scale (docs/results/deque.md, the
# condition `hard_sigmoid_quiet_end_noise_after5_lr2e-3`), where with the
# paper's it learns no copy. Its strength noise starts after the first
# `DEQUE_RECIPE_QUIET_BATCHES` batches, rounded up to whole epochs.
DEQUE_RECIPE = dict(gate_activation="hard_sigmoid", quiet_end="random", strength_noise=0.5, learning_rate=2e-3)
DEQUE_RECIPE_QUIET_BATCHES = 500


class UsageError(ValueError):
    """A user's mistake: the command line prints it as one line and exits with status 2."""


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
    >>> config.gate_activation, config.quiet_end, config.strength_noise, config.strength_noise_delay
    ('hard_sigmoid', 'random', 0.5, 2)
    """
    check_positive_int("steps_per_epoch", steps_per_epoch)
    return dict(DEQUE_RECIPE, strength_noise_delay=-(-DEQUE_RECIPE_QUIET_BATCHES // steps_per_epoch))


def is_chomsky_task(task):
    """Whether `task` names a Chomsky-hierarchy task ("chomsky_hierarchy/NAME"), known or not."""
    return isinstance(task, str) and task.startswith(CHOMSKY_PREFIX)


def chomsky_task(task):
    """The `ChomskyTask` of "chomsky_hierarchy/NAME".

    Raises:
        UsageError: NAME is not one of the 15 tasks; the message lists them.

    Example:

    >>> chomsky_task("chomsky_hierarchy/reverse_string").output_length(5)
    5
    """
    from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASK_NAMES, CHOMSKY_TASKS

    name = task[len(CHOMSKY_PREFIX) :] if is_chomsky_task(task) else None
    if name not in CHOMSKY_TASKS:
        raise UsageError(f"unknown task {task!r}; choose one of: {', '.join(CHOMSKY_PREFIX + n for n in CHOMSKY_TASK_NAMES)}")
    return CHOMSKY_TASKS[name]


def _has_lstm_depth(task, memory):
    """Whether the model of `memory` on `task` takes `lstm_layers`: only the LSTM baseline of Grefenstette et al. tasks."""
    return memory == "lstm" and task_layout(task) == "joint"


def task_layout(task):
    """The layout of `task`: "joint" (Grefenstette et al.), "aligned" (Hao et al.) or "chomsky".

    "chomsky" is the non-autoregressive layout of Delétang et al. (2023):
    the input, then one blank per output (`models.chomsky_tape`).

    Raises:
        UsageError: `task` is not a task of `tfds_tasks` nor "chomsky_hierarchy/NAME".

    Example:

    >>> task_layout("bigram_flip"), task_layout("delayed_xor")
    ('joint', 'aligned')
    """
    if is_chomsky_task(task):
        chomsky_task(task)
        return "chomsky"
    from tfds_tasks import TASK_NAMES, layout_for

    if task not in TASK_NAMES:
        raise UsageError(f"unknown task {task!r}; choose one of: {', '.join(TASK_NAMES)}")
    return layout_for(task)


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """One training run of `neural-memory train` (and of each run of `reproduce`).

    Sizes left as None come from `scale` (Grefenstette et al. tasks), from
    Hao et al. (hidden size 10, memory width 2), or from the protocol of
    Delétang et al. (`CHOMSKY_PROTOCOL`, tasks "chomsky_hierarchy/NAME");
    `resolved` fills them in. Chomsky-hierarchy runs leave `scale`,
    `controller`, `lstm_layers`, `stop_at_coarse`, `validation_examples`
    and `eval_examples` at their defaults, and only they take
    `eval_max_length` and `eval_sequences`.

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
        strength_noise: The memory cell's `strength_noise` (Gaussian noise
            on the push and pop logits while training); memory models only.
        strength_noise_epochs: Train with `strength_noise` for the first
            this many epochs only, then without (a
            `keras_neural_memory.StrengthNoiseScheduler`); None: every
            epoch. Counted from the first epoch, so with
            `strength_noise_delay` the noisy epochs are those from the
            delay up to this. Needs `strength_noise`.
        strength_noise_delay: Train without noise for the first this many
            epochs, then with `strength_noise` (up to `strength_noise_epochs`
            when that is set); None: from the first epoch. Needs
            `strength_noise`.
        gate_activation: The memory cell's `gate_activation`: "sigmoid"
            (the paper) or "hard_sigmoid"; memory models only.
        quiet_end: The `DequeCell`'s `quiet_end` (the DeQue only): None
            (both ends alike, the paper), "random", "top", "bottom" or "both".
        strength_noise_ends: The `DequeCell`'s `strength_noise_ends` (the
            DeQue only): "all", or "quiet" for `strength_noise` on the quiet
            end only. "quiet" needs `strength_noise` and `quiet_end`.
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
    strength_noise: float = 0.0
    strength_noise_epochs: int | None = None
    strength_noise_delay: int | None = None
    gate_activation: str = "sigmoid"
    quiet_end: str | None = None
    strength_noise_ends: str = "all"
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
        if self.rule_probabilities is not None:
            from tfds_tasks.generators.itg import rule_probability_pairs

            object.__setattr__(self, "rule_probabilities", rule_probability_pairs(self.rule_probabilities))
        for name in ("batch_size", "hidden_size", "memory_width", "stack_size", "vocab_size", "epochs", "steps_per_epoch",
                     "validation_examples", "eval_max_length", "eval_sequences", "curriculum_epochs",
                     "strength_noise_epochs", "strength_noise_delay"):  # fmt: skip
            check_positive_int(name, getattr(self, name), allow_none=True)
        if self.learning_rate is not None:
            check_real("learning_rate", self.learning_rate, above=0)
        if self.memory == "superposition_stack":
            # The Stack-RNN has no memory cell of this package: nothing to add noise to or gate.
            if self.strength_noise or self.gate_activation != "sigmoid":
                raise UsageError("--strength-noise and --gate-activation apply to the memory cells (stack, queue, "
                                 "deque), not to superposition_stack; leave them out")  # fmt: skip
        else:
            if self.stack_size is not None:
                raise UsageError(f"--stack-size sizes the stack of --memory superposition_stack, not of "
                                 f"{self.memory}, whose memory grows with the input; leave it out")  # fmt: skip
            check_lstm_layers(self.lstm_layers, self.memory)
            check_strength_noise(self.strength_noise, self.memory)
            check_gate_activation(self.gate_activation, self.memory)
        if self.strength_noise_epochs is not None and not self.strength_noise:
            raise UsageError("--strength-noise-epochs N sets how long --strength-noise lasts; "
                             "add --strength-noise STDDEV, or leave it out")  # fmt: skip
        if self.strength_noise_delay is not None:
            if not self.strength_noise:
                raise UsageError("--strength-noise-delay N sets when --strength-noise starts; "
                                 "add --strength-noise STDDEV, or leave it out")  # fmt: skip
            if self.strength_noise_epochs is not None and self.strength_noise_delay >= self.strength_noise_epochs:
                raise UsageError(f"--strength-noise-delay {self.strength_noise_delay} leaves no noisy epoch before "
                                 f"--strength-noise-epochs {self.strength_noise_epochs}; make the delay smaller")  # fmt: skip
        check_quiet_end(self.quiet_end, self.memory)
        check_strength_noise_ends(self.strength_noise_ends, self.quiet_end, self.memory)
        if self.strength_noise_ends != "all" and not self.strength_noise:
            raise UsageError(f"--strength-noise-ends {self.strength_noise_ends} sets where --strength-noise goes; "
                             "add --strength-noise STDDEV, or leave it out")  # fmt: skip
        self._check_task_options()
        if self.stop_at_coarse is not None:
            check_real("stop_at_coarse", self.stop_at_coarse, above=0, maximum=1)
            if self.curriculum_epochs and self.validation_examples is None:
                raise UsageError("--stop-at-coarse with --curriculum-epochs needs --validation-examples N: the "
                                 "curriculum's training batches are shorter than the training lengths")  # fmt: skip
        check_int("seed", self.seed)

    def _check_task_options(self):
        """Options that only Chomsky-hierarchy runs take, or that they do not take: a `UsageError`."""
        if is_chomsky_task(self.task):
            for name, default, flag in _NOT_CHOMSKY:
                if getattr(self, name) != default:
                    raise UsageError(f"{flag} does not apply to {self.task} (Delétang et al. protocol); leave it out")
            return
        if self.memory == "superposition_stack":
            raise UsageError(f"--memory superposition_stack is the Stack-RNN of the chomsky_hierarchy/ tasks, "
                             f"not of {self.task}; choose stack, queue, deque or lstm")  # fmt: skip
        for name in ("eval_max_length", "eval_sequences"):
            if getattr(self, name) is not None:
                raise UsageError(f"--{name.replace('_', '-')} applies to chomsky_hierarchy/ tasks only, "
                                 f"not {self.task}; leave it out")  # fmt: skip

    def resolved(self):
        """A copy with every size that was None taken from the scale (or Hao et al.).

        Grefenstette et al. tasks take their sizes from `scale`, Hao et al.
        tasks (the "aligned" layout of `tfds_tasks.layout_for`) theirs.

        Raises:
            UsageError: `task` is not a task of `tfds_tasks`, or
                `lstm_layers` is more than 1 on a Hao et al. task, whose
                models have one controller layer.
        """
        if task_layout(self.task) == "chomsky":
            protocol = CHOMSKY_PROTOCOL
            return dataclasses.replace(
                self,
                hidden_size=self.hidden_size or protocol["hidden"],
                memory_width=self.memory_width or protocol["width"],
                stack_size=self.stack_size or (protocol["stack_size"] if self.memory == "superposition_stack" else None),
                learning_rate=self.learning_rate or protocol["learning_rate"],
                batch_size=self.batch_size or protocol["batch_size"],
                epochs=self.epochs or protocol["epochs"],
                steps_per_epoch=self.steps_per_epoch or protocol["steps"],
                eval_max_length=self.eval_max_length or protocol["eval_max_length"],
                eval_sequences=self.eval_sequences or protocol["eval_sequences"],
            )
        scale = SCALES[self.scale]
        joint = task_layout(self.task) == "joint"
        deep = _has_lstm_depth(self.task, self.memory)
        # Memory models were refused another depth in __init__; this is the LSTM of a Hao et al. task.
        if not deep and self.lstm_layers not in (None, 1):
            raise UsageError(f"task {self.task} (Hao et al.) has models of one controller layer; leave out "
                             f"--lstm-layers {self.lstm_layers}")  # fmt: skip
        return dataclasses.replace(
            self,
            lstm_layers=self.lstm_layers or (DEFAULT_LSTM_LAYERS if deep else 1),
            learning_rate=self.learning_rate or DEFAULT_LEARNING_RATE,
            batch_size=self.batch_size or DEFAULT_BATCH_SIZE,
            hidden_size=self.hidden_size or (scale["hidden"] if joint else HAO_HIDDEN_SIZE),
            memory_width=self.memory_width or (scale["width"] if joint else HAO_MEMORY_WIDTH),
            epochs=self.epochs or scale["epochs"],
            steps_per_epoch=self.steps_per_epoch or scale["steps"],
        )

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
        settings = dict(settings)
        if not _has_lstm_depth(settings["task"], settings.get("memory", cls.memory)):
            settings["lstm_layers"] = None
        return cls(**settings).resolved()

    def output_path(self):
        """The run's folder: `output_dir`, or "runs/TASK-MEMORY-SCALE" ("runs/chomsky_hierarchy-NAME-MEMORY")."""
        if self.output_dir:
            return self.output_dir
        if is_chomsky_task(self.task):
            return f"runs/{self.task.replace('/', '-')}-{self.memory}"
        return f"runs/{self.task}-{self.memory}-{self.scale}"

    def settings(self):
        """What makes two runs the same run, as recorded in `results.json`.

        Where the run is written and how it prints are not part of it.
        """
        record = dataclasses.asdict(self)
        for key in ("output_dir", "overwrite", "jit_compile", "verbose"):
            del record[key]
        # Options left off are recorded as before they existed, so those runs still match.
        if not record["strength_noise"]:
            del record["strength_noise"]
        for key in ("strength_noise_epochs", "strength_noise_delay"):
            if record[key] is None:
                del record[key]
        if record["gate_activation"] == "sigmoid":
            del record["gate_activation"]
        if record["quiet_end"] is None:
            del record["quiet_end"]
        if record["strength_noise_ends"] == "all":
            del record["strength_noise_ends"]
        if record["stack_size"] in (None, CHOMSKY_STACK_SIZE):
            del record["stack_size"]
        if record["validation_examples"] is None:
            del record["validation_examples"]
        if record["curriculum_epochs"] is None:
            del record["curriculum_epochs"]
        if record["vocab_size"] is None:
            del record["vocab_size"]
        if record["rule_probabilities"] is None:
            del record["rule_probabilities"]
        else:  # JSON-shaped, as results.json reads back
            record["rule_probabilities"] = {name: list(values) for name, values in record["rule_probabilities"]}
        if is_chomsky_task(self.task):  # what these runs cannot change
            for name, _, _ in _NOT_CHOMSKY:
                record.pop(name, None)
        else:
            del record["eval_max_length"], record["eval_sequences"]
        return record
