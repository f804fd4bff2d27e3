"""The task families of the experiments, each a `Protocol`: how its runs are configured, built, compiled, fed and measured.

* `GREFENSTETTE`: the five tasks of Grefenstette et al. 2015 (the "joint"
  layout of `tfds_tasks.joint`), at a data scale of `config.SCALES`;
* `HAO`: the tasks of Hao et al. 2018 (the "aligned" layout), at their
  own lengths and sizes;
* `CHOMSKY`: the 15 tasks "chomsky_hierarchy/NAME" of Delétang et al.
  2023, with their protocol (`config.CHOMSKY_PROTOCOL`, `chomsky`).

`protocol_for` picks one from a task's name, once; `RunConfig`, `train`
and `evaluate` ask it for everything that differs between the families.
The protocols build on `common`, `data` and `chomsky`, below `config`.

Example:

>>> protocol_for("sequence_copy").layout, protocol_for("delayed_xor").layout
('joint', 'aligned')
>>> protocol_for("chomsky_hierarchy/reverse_string").name
'chomsky_hierarchy'
"""

from keras_neural_memory.experiments import chomsky, data
from keras_neural_memory.experiments.common import (
    CHOMSKY_PREFIX,
    CHOMSKY_PROTOCOL,
    CHOMSKY_PROTOCOL_VERSION,
    DEFAULT_BATCH_SIZE,
    DEFAULT_LEARNING_RATE,
    HAO_HIDDEN_SIZE,
    HAO_MEMORY_WIDTH,
    SCALES,
    UsageError,
    chomsky_task,
)
from keras_neural_memory.models import DEFAULT_LSTM_LAYERS


def compile_model(model, learning_rate, jit_compile=True):
    """Compiles `model` with the papers' recipe (Grefenstette et al. and Hao et al.).

    RMSProp with gradient-norm clipping at 1, sparse cross-entropy on
    logits weighted by the loss mask, and the paper's coarse and fine
    accuracy with per-symbol (masked) accuracy as weighted metrics.
    """
    import keras

    from keras_neural_memory import CoarseAccuracy, FineAccuracy, MaskedAccuracy

    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[CoarseAccuracy(), FineAccuracy(), MaskedAccuracy()],
        jit_compile=jit_compile,
    )


def measure(model, setup, split, count, seed, batch_size):
    """Coarse, fine and masked accuracy on `count` fresh examples of `split`, in whole batches."""
    batches, steps = data.whole_batches(setup, split, count, seed, batch_size)
    values = model.evaluate(batches, steps=steps, verbose=0, return_dict=True)
    return {key: float(values[f"{key}_accuracy"]) for key in ("coarse", "fine", "masked")}


def evaluation_batch_size(config):
    """The batch of held-out measurements: a multiple of the batch size, so it splits over the replicas."""
    return config.batch_size * max(1, 50 // config.batch_size)


class Protocol:
    """How the runs of one family of tasks are configured, built, compiled, fed and measured.

    `RunConfig` asks its protocol to check, resolve and record it; `train`
    runs every task through the same steps, and the protocol supplies what
    differs between the families.

    Attributes:
        name: The family's name.
        layout: The layout of its examples: "joint", "aligned" or "chomsky".
        takes_deque_recipe: Whether `neural-memory train --memory deque`
            adds `config.DEQUE_RECIPE` on its tasks.
    """

    name = layout = None
    takes_deque_recipe = False

    def __repr__(self):
        return f"<Protocol {self.name}>"

    def takes_lstm_depth(self, memory):
        """Whether the model of `memory` takes `lstm_layers` (the deep-LSTM baseline of Grefenstette et al.)."""
        return False

    def check(self, config):
        """Raises a `UsageError` for an option of `config` that this family's runs do not take."""

    def defaults(self, config):
        """`{field: value}` that fill in the sizes of `config` left as None (`RunConfig.resolved`)."""
        raise NotImplementedError

    def recorded(self, record):
        """The settings `record` (`RunConfig.settings`) without the fields this family's runs cannot change."""
        return record

    def default_output_path(self, config):
        """The run's folder when `config.output_dir` is None."""
        return f"runs/{config.task}-{config.memory}-{config.scale}"

    def task_setup(self, config):
        """The task of `config`: a `data.TaskSetup` or a `chomsky.ChomskySetup`."""
        raise NotImplementedError

    def build_model(self, setup, config):
        """The model the resolved `config` describes, for the task of `setup`."""
        raise NotImplementedError

    def compile_model(self, model, learning_rate, jit_compile=True):
        """Compiles `model` with the family's optimiser, loss and metrics."""
        raise NotImplementedError

    def training_batches(self, setup, seed, batch_size, first_epoch, steps, curriculum_epochs=None):
        """The endless training batches from epoch `first_epoch` on."""
        raise NotImplementedError

    def describe(self, setup, config):
        """The results' "scale", "train_lengths" and "test_lengths"."""
        raise NotImplementedError

    def measure(self, model, setup, config, output, seed):
        """The results' entries of the final measurement of a trained `model`."""
        raise NotImplementedError

    def summary(self, results, output):
        """What `neural-memory train` prints of a finished run's `results`, whose folder is `output`."""
        raise NotImplementedError


class _PapersProtocol(Protocol):
    """What the tasks of Grefenstette et al. and Hao et al. share: RMSProp, coarse and fine accuracy."""

    def check(self, config):
        if config.memory == "superposition_stack":
            raise UsageError(f"--memory superposition_stack is the Stack-RNN of the chomsky_hierarchy/ tasks, "
                             f"not of {config.task}; choose stack, queue, deque or lstm")  # fmt: skip
        for name in ("eval_max_length", "eval_sequences"):
            if getattr(config, name) is not None:
                raise UsageError(f"--{name.replace('_', '-')} applies to chomsky_hierarchy/ tasks only, "
                                 f"not {config.task}; leave it out")  # fmt: skip

    def recorded(self, record):
        del record["eval_max_length"], record["eval_sequences"]
        return record

    def task_setup(self, config):
        return data.task_setup(config.task, config.scale, vocab_size=config.vocab_size,
                               rule_probabilities=config.rule_probabilities)  # fmt: skip

    def compile_model(self, model, learning_rate, jit_compile=True):
        compile_model(model, learning_rate, jit_compile)

    def training_batches(self, setup, seed, batch_size, first_epoch, steps, curriculum_epochs=None):
        return data.training_batches(setup, seed, batch_size, first_epoch, steps, curriculum_epochs=curriculum_epochs)

    def describe(self, setup, config):
        train, test = setup.settings.train, setup.settings.test
        return {
            "scale": config.scale,
            "train_lengths": [train.min_length, train.max_length],
            "test_lengths": [test.min_length, test.max_length],
        }

    def measure(self, model, setup, config, output, seed):
        batch_size = evaluation_batch_size(config)
        return {f"{split}_accuracy": measure(model, setup, split, config.eval_examples, seed, batch_size)
                for split in ("train", "test")}  # fmt: skip

    def summary(self, results, output):
        lines = [f"{'lengths':14s}{'coarse':>8s}{'fine':>8s}{'masked':>8s}"]
        for split in ("train", "test"):
            accuracy, (low, high) = results[f"{split}_accuracy"], results[f"{split}_lengths"]
            lines.append(f"{split:5s} {low:>3d}-{high:<4d}" + "".join(f"{accuracy[key]:8.3f}" for key in ("coarse", "fine", "masked")))
        return "\n".join([*lines, f"model: {output / 'model.keras'}", f"results: {output / 'results.json'}"])

    def _defaults(self, config, hidden_size, memory_width, lstm_layers):
        scale = SCALES[config.scale]
        return dict(
            lstm_layers=config.lstm_layers or lstm_layers,
            learning_rate=config.learning_rate or DEFAULT_LEARNING_RATE,
            batch_size=config.batch_size or DEFAULT_BATCH_SIZE,
            hidden_size=config.hidden_size or hidden_size,
            memory_width=config.memory_width or memory_width,
            epochs=config.epochs or scale["epochs"],
            steps_per_epoch=config.steps_per_epoch or scale["steps"],
        )


class _GrefenstetteProtocol(_PapersProtocol):
    """The tasks of Grefenstette et al. 2015: the joint layout, sized by the data scale."""

    name, layout = "grefenstette", "joint"
    takes_deque_recipe = True

    def takes_lstm_depth(self, memory):
        return memory == "lstm"

    def defaults(self, config):
        scale = SCALES[config.scale]
        depth = DEFAULT_LSTM_LAYERS if self.takes_lstm_depth(config.memory) else 1
        return self._defaults(config, scale["hidden"], scale["width"], depth)

    def build_model(self, setup, config):
        from keras_neural_memory import models

        return models.build_transducer(
            setup.id_layout,
            memory=config.memory,
            hidden_size=config.hidden_size,
            memory_width=config.memory_width,
            lstm_layers=config.lstm_layers,
            memory_options=config.memory_options,
        )


class _HaoProtocol(_PapersProtocol):
    """The tasks of Hao et al. 2018: the aligned layout, their hidden size 10 and stack vectors of 2."""

    name, layout = "hao", "aligned"
    #: The `MemoryOptions` its stack networks take other than their defaults.
    memory_options_taken = ("strength_noise", "pop_bias_init")

    def check(self, config):
        super().check(config)
        # Memory models were refused another depth by RunConfig; this is the LSTM.
        if config.lstm_layers not in (None, 1):
            raise UsageError(f"task {config.task} (Hao et al.) has models of one controller layer; leave out "
                             f"--lstm-layers {config.lstm_layers}")  # fmt: skip
        if config.memory not in ("stack", "lstm"):
            raise UsageError(f"task {config.task} takes --memory stack or lstm (Hao et al.), not {config.memory!r}")
        for name, value in config.memory_options.changed().items():
            if name not in self.memory_options_taken:
                raise UsageError(f"task {config.task} (Hao et al.) takes --{name.replace('_', '-')} at its default, "
                                 f"not {value}; leave it out")  # fmt: skip

    def defaults(self, config):
        return self._defaults(config, HAO_HIDDEN_SIZE, HAO_MEMORY_WIDTH, 1)

    def build_model(self, setup, config):
        from keras_neural_memory import models

        return models.build_hao_model(
            setup.id_layout,
            controller=config.controller,
            stack=config.memory == "stack",
            hidden_size=config.hidden_size,
            memory_width=config.memory_width,
            memory_options=config.memory_options,
        )


class _ChomskyProtocol(Protocol):
    """The Chomsky-hierarchy benchmark of Delétang et al. 2023 (`chomsky`)."""

    name, layout = "chomsky_hierarchy", "chomsky"
    #: What its runs leave at their defaults: `RunConfig` field, its default, its flag.
    fixed_options = (
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

    def check(self, config):
        for name, default, flag in self.fixed_options:
            if getattr(config, name) != default:
                raise UsageError(f"{flag} does not apply to {config.task} (Delétang et al. protocol); leave it out")

    def defaults(self, config):
        protocol = CHOMSKY_PROTOCOL
        return dict(
            hidden_size=config.hidden_size or protocol["hidden"],
            memory_width=config.memory_width or protocol["width"],
            stack_size=config.stack_size or (protocol["stack_size"] if config.memory == "superposition_stack" else None),
            learning_rate=config.learning_rate or protocol["learning_rate"],
            batch_size=config.batch_size or protocol["batch_size"],
            epochs=config.epochs or protocol["epochs"],
            steps_per_epoch=config.steps_per_epoch or protocol["steps"],
            eval_max_length=config.eval_max_length or protocol["eval_max_length"],
            eval_sequences=config.eval_sequences or protocol["eval_sequences"],
        )

    def recorded(self, record):
        for name, _, _ in self.fixed_options:
            record.pop(name, None)
        record["protocol_version"] = CHOMSKY_PROTOCOL_VERSION
        return record

    def default_output_path(self, config):
        return f"runs/{config.task.replace('/', '-')}-{config.memory}"

    def task_setup(self, config):
        return chomsky.task_setup(config.task)

    def build_model(self, setup, config):
        return chomsky.build_model(setup, config)

    def compile_model(self, model, learning_rate, jit_compile=True):
        chomsky.compile_model(model, learning_rate, jit_compile)

    def training_batches(self, setup, seed, batch_size, first_epoch, steps, curriculum_epochs=None):
        # RunConfig refuses a curriculum on these tasks.
        return chomsky.training_batches(setup, seed, batch_size, first_epoch, steps)

    def describe(self, setup, config):
        return chomsky.describe(setup, config)

    def measure(self, model, setup, config, output, seed):
        return chomsky.measure_run(model, setup, config, output, seed)

    def summary(self, results, output):
        return (f"{chomsky.score_text(results['score'], results.get('whole_tape_stack'))}\nmodel: {output / 'model.keras'}\n"
                f"results: {output / 'results.json'}\n"
                f"accuracy by length: {output / chomsky.CURVE_FILE}, {output / chomsky.PLOT_FILE}")


GREFENSTETTE = _GrefenstetteProtocol()
HAO = _HaoProtocol()
CHOMSKY = _ChomskyProtocol()


def protocol_for(task):
    """The `Protocol` of `task`: a `tfds_tasks` task name or "chomsky_hierarchy/NAME".

    Raises:
        UsageError: `task` is not a task of `tfds_tasks` nor one of the 15
            Chomsky-hierarchy tasks; the message lists the tasks.
    """
    if isinstance(task, str) and task.startswith(CHOMSKY_PREFIX):
        chomsky_task(task)
        return CHOMSKY
    from tfds_tasks import TASK_NAMES, layout_for

    if task not in TASK_NAMES:
        raise UsageError(f"unknown task {task!r}; choose one of: {', '.join(TASK_NAMES)}")
    return GREFENSTETTE if layout_for(task) == "joint" else HAO
