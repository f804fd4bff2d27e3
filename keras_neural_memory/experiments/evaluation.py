"""Evaluating a saved run: at its lengths, at other lengths, and length by length.

Example:

```python
from keras_neural_memory.experiments import evaluation

report = evaluation.evaluate("runs/sequence_reversal-stack-default", lengths=(17, 64), sweep_step=8)
report["coarse"], [point["coarse"] for point in report["sweep"]]
```
"""

from keras_neural_memory.experiments import chomsky, data, training
from keras_neural_memory.experiments.config import UsageError
from keras_neural_memory.experiments.protocols import CHOMSKY, protocol_for
from keras_neural_memory.experiments.run_folder import load_run

EVAL_BATCH_SIZE = 50


def recorded_choice(flag, given, recorded, default=None):
    """`given` if it agrees with the run's record, else the record; a `UsageError` on a mismatch."""
    if given is not None and recorded is not None and given != recorded:
        raise UsageError(f"the model was trained with {flag} {recorded}, not {given}; leave {flag} out or pass {flag} {recorded}")
    chosen = given if given is not None else recorded if recorded is not None else default
    if chosen is None:
        raise UsageError(f"pass {flag}: the model has no results.json beside it that records it")
    return chosen


def check_vocabulary(model, setup, scale):
    """The saved model must read the ids of `setup`: the same task and scale."""
    import keras

    embeddings = [layer for layer in model.layers if isinstance(layer, keras.layers.Embedding)]
    expected = setup.id_layout.input_vocab_size
    if embeddings and embeddings[0].input_dim != expected:
        raise UsageError(
            f"the model reads {embeddings[0].input_dim} input ids, but task {setup.name} at --scale {scale} "
            f"has {expected}; pass the --task and --scale the model was trained with"
        )


def run_grammar(recorded):
    """The `data.task_setup` options that give a run its own task: `vocab_size` and `rule_probabilities`.

    Both are None unless the run was trained with a vocabulary or grammar
    other than its scale's (`neural-memory train --vocab-size` or
    `--rule-probabilities`), so that evaluating or tracing a run samples
    the strings it was trained on.

    Args:
        recorded: A run's record (`run_folder.LoadedRun.record`).

    Example:

    >>> run_grammar({"settings": {"task": "itg_svo_sov", "vocab_size": 3}})
    {'vocab_size': 3, 'rule_probabilities': None}
    """
    trained = recorded.get("settings") or {}
    return dict(vocab_size=trained.get("vocab_size"), rule_probabilities=trained.get("rule_probabilities"))


def evaluate(model, task=None, scale=None, split="test", lengths=None, examples=500, seed=1,
             sweep_step=None, sweep_examples=100, plot=None, jit_compile=True, eval_max_length=None,
             eval_sequences=None):  # fmt: skip
    """Coarse, fine and masked accuracy of a saved run on fresh examples.

    A run of a Chomsky-hierarchy task is measured as its training ended
    instead: see `evaluate_chomsky`.

    Args:
        model: A `model.keras` written by `train`, or its run folder; the
            folder of a run that has not finished gives the weights of its
            last backed-up epoch (see `run_folder.load_run`).
        task: The task; default (and checked against) the run's record.
        scale: The data scale; default (and checked against) the run's record.
        split: "train" or "test": the regime to sample.
        lengths: `(min, max)` source lengths instead of `split`'s.
        examples: Examples of the whole range.
        seed: Seed of the examples.
        sweep_step: Also measure every `sweep_step`-th length of the range.
        sweep_examples: Examples per length of the sweep.
        plot: A PNG path for the sweep's plot.
        jit_compile: Evaluate with XLA.
        eval_max_length: Chomsky-hierarchy runs only (`evaluate_chomsky`).
        eval_sequences: Chomsky-hierarchy runs only (`evaluate_chomsky`).

    Returns:
        `{"task", "scale", "model", "lengths", "coarse", "fine", "masked"}`
        ("model" says what was loaded: `run_folder.LoadedRun.source`),
        and "sweep" (one dict per length) when `sweep_step` is given.
    """
    run = load_run(model)
    loaded, recorded = run.model, run.record
    task = recorded_choice("--task", task, recorded.get("task"))
    if protocol_for(task) is CHOMSKY:
        given = [flag for flag, value, default in (
            ("--scale", scale, None), ("--split", split, "test"), ("--lengths", lengths, None),
            ("--examples", examples, 500), ("--seed", seed, 1), ("--sweep", sweep_step, None),
        ) if value != default]  # fmt: skip
        if given:
            raise UsageError(f"{given[0]} does not apply to {task} (Delétang et al. protocol); use --eval-max-length "
                             "and --eval-sequences")  # fmt: skip
        return evaluate_chomsky(run, task, eval_max_length, eval_sequences, plot, jit_compile)
    for flag, value in (("--eval-max-length", eval_max_length), ("--eval-sequences", eval_sequences)):
        if value is not None:
            raise UsageError(f"{flag} applies to chomsky_hierarchy/ runs only, not {task}; leave it out")
    scale = recorded_choice("--scale", scale, recorded.get("scale"), default="default")
    grammar = run_grammar(recorded)
    setup = data.task_setup(task, scale, test_lengths=lengths, **grammar)
    check_vocabulary(loaded, setup, scale)
    training.compile_model(loaded, 1e-3, jit_compile)
    split = "test" if lengths else split
    regime = setup.settings.regime(split)
    summary = training.measure(loaded, setup, split, examples, seed, EVAL_BATCH_SIZE)
    print(f"{task} lengths {regime.min_length}-{regime.max_length}: coarse {summary['coarse']:.3f} fine {summary['fine']:.3f}")
    report = {"task": task, "scale": scale, "model": run.source,
              "lengths": [regime.min_length, regime.max_length], **summary}  # fmt: skip
    if sweep_step:
        sweep = []
        for length in range(regime.min_length, regime.max_length + 1, sweep_step):
            at = data.task_setup(task, scale, test_lengths=(length, length), **grammar)
            sweep.append({"length": length, **training.measure(loaded, at, "test", sweep_examples, seed, EVAL_BATCH_SIZE)})
            print(f"  length {length:4d}: coarse {sweep[-1]['coarse']:.3f} fine {sweep[-1]['fine']:.3f}", flush=True)
        report["sweep"] = sweep
        if plot:
            plot_sweep(sweep, setup, plot, loaded.name)
            print(f"plot: {plot}")
    return report


def evaluate_chomsky(run, task, eval_max_length=None, eval_sequences=None, plot=None, jit_compile=True):
    """Accuracy at every length of a Chomsky-hierarchy run, measured again and redrawn.

    The lengths, sequences and seed default to those of the run's own final
    measurement, so the curve is the one `train` wrote. It is written, with
    its plot, into the run's folder (`chomsky.CURVE_FILE`,
    `chomsky.PLOT_FILE`; `plot` writes the plot elsewhere instead).

    Args:
        run: The run, as `run_folder.load_run` gives it.
        task: "chomsky_hierarchy/NAME".
        eval_max_length: The last length; default the run's.
        eval_sequences: Sequences per length; default the run's.
        plot: A PNG path for the plot instead of the run folder's.
        jit_compile: Evaluate with XLA.

    Returns:
        The curve file's record (`chomsky.curve_record`) with "model" set to
        `run.source`.
    """
    loaded, recorded, folder = run.model, run.record, run.folder
    setup = chomsky.task_setup(task)
    settings = recorded.get("settings") or {}
    import keras

    expected = setup.task.input_vocab_size + 2  # the tape's ids: padding, the tokens, the blank
    one_hot = next((layer for layer in loaded.layers if isinstance(layer, keras.layers.Embedding)), None)
    if one_hot is None or one_hot.input_dim != expected:
        raise UsageError(f"the model does not read the tapes of {task} ({expected} ids); pass the --task it was trained on")
    max_length = eval_max_length or settings.get("eval_max_length") or chomsky.CHOMSKY_PROTOCOL["eval_max_length"]
    sequences = eval_sequences or settings.get("eval_sequences") or chomsky.CHOMSKY_PROTOCOL["eval_sequences"]
    seed = recorded.get("seed", settings.get("seed", 0)) + training.EVALUATION_SEED_OFFSET
    chomsky.compile_model(loaded, 1e-3, jit_compile)
    curve = chomsky.accuracy_by_length(loaded, setup, seed, max_length, sequences)
    record = chomsky.write_curve(folder, setup, loaded.name, curve, seed, sequences)
    if plot:
        chomsky.plot_curves({loaded.name: record}, plot)
    print(chomsky.score_text(record["score"]))
    print(f"accuracy by length: {folder / chomsky.CURVE_FILE}, {plot or folder / chomsky.PLOT_FILE}")
    return {**record, "model": run.source}


def plot_sweep(sweep, setup, path, label):
    """Coarse and fine accuracy against length, the training range shaded."""
    from keras_neural_memory import viz

    train = setup.settings.train
    viz.plot_length_generalisation(
        {label: sweep},
        train_range=(train.min_length, train.max_length),
        metric=("coarse", "fine"),
        save_to=path,
        title=setup.name,
    )
