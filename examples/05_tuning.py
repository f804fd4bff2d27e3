# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · Hyperparameter search with keras-tuner
#
# Grefenstette et al. (2015, §4.4) pick each model from a grid: the model
# (1-, 2-, 4- or 8-layer LSTM, Stack-, Queue- or DeQue-LSTM) × hidden size
# {256, 512} × learning rate {5e-3, 1e-3, 5e-4, 1e-4, 5e-5}, 70 trials.
# `keras_neural_memory.experiments.hypermodel` has that grid as a
# `kt.HyperModel` (`TransducerHyperModel`), and `examples/tuning/run_grid.py` runs it with
# `kt.GridSearch` from the command line (its docstring also shows
# keras-tuner's chief/worker variables for distributed tuning).
#
# This notebook imports the same HyperModel, runs a small slice of the grid
# and shows how to read the results: `tuner.results_summary()`, the best
# hyperparameters and model, and a table and a plot of every trial.
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) is
# `run_grid.py --quick`'s grid: two tiny models for 5 batches each.
# `default` (the stored outputs) searches 2-layer LSTM, Stack- and
# Queue-LSTM × two learning rates on sequence reversal at
# `neural-memory train`'s default data scale, 900 batches per trial.

# %%
# Before Keras is imported: JAX when it is installed (many small models compile faster
# there on a CPU; set KERAS_BACKEND to choose another backend), and this notebook's
# sizes for the NEURAL_MEMORY_EXAMPLES setting (examples/notebook_settings.py).
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings(prefer_jax=True, settings={
    # The grid of `run_grid.py --quick`.
    "fast": dict(scale="quick", models=("lstm1", "stack"), hidden_sizes=(16,), learning_rates=(5e-3,), memory_width=8, epochs=1, steps=5, validation=20),
    "default": dict(scale="default", models=("lstm2", "stack", "queue"), hidden_sizes=(64,), learning_rates=(5e-3, 1e-3), memory_width=32, epochs=3, steps=300, validation=500),
})

# %%
import tempfile
import time
import warnings

import keras
import keras_tuner as kt
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from keras_neural_memory.experiments import data
from keras_neural_memory.experiments.config import PAPER_HIDDEN_SIZES, PAPER_LEARNING_RATES, PAPER_MODELS
from keras_neural_memory.experiments.hypermodel import TransducerHyperModel

# Keras warns that `fit(shuffle=True)` is ignored for a tf.data stream; the stream is freshly sampled anyway.
warnings.filterwarnings("ignore", message=".*`shuffle=True` was passed.*")
# `get_best_models` rebuilds a model for inference; it does not need the saved optimizer state.
warnings.filterwarnings("ignore", message=".*Skipping variable loading for optimizer.*")
print("Keras", keras.__version__, "backend:", keras.backend.backend(), "| keras-tuner", kt.__version__)
print("the paper's grid:", PAPER_MODELS, PAPER_HIDDEN_SIZES, PAPER_LEARNING_RATES)

# %% [markdown]
# ## The search
#
# The tuner is set up as in `run_grid.py`: a `kt.GridSearch` over the
# HyperModel, with validation coarse accuracy as the objective. keras-tuner
# cannot tell the direction of a metric it does not know, so the objective
# says `direction="max"`. Training reads the endless stream of fresh
# examples that `neural-memory train` uses (`data.examples`); validation is a
# fixed sample at the training lengths. The project goes to a temporary
# directory with `overwrite=True` (keras-tuner would otherwise resume an old
# project silently).

# %%
setup = data.task_setup("sequence_reversal", SETTINGS["scale"])
hypermodel = TransducerHyperModel(
    setup.source_vocab_size,
    setup.target_vocab_size,
    models=SETTINGS["models"],
    hidden_sizes=SETTINGS["hidden_sizes"],
    learning_rates=SETTINGS["learning_rates"],
    memory_width=SETTINGS["memory_width"],
)
directory = tempfile.mkdtemp(prefix="tuning-")
tuner = kt.GridSearch(
    hypermodel,
    objective=kt.Objective("val_coarse_accuracy", direction="max"),
    directory=directory,
    project_name="grid-sequence_reversal",
    overwrite=True,
    seed=0,
)
tuner.search_space_summary()

# %%
keras.utils.set_random_seed(0)
train = data.examples(setup, "train", None, seed=0, batch_size=10)
validation = data.examples(setup, "validation", SETTINGS["validation"], seed=1000, batch_size=50)
start = time.perf_counter()
tuner.search(
    train,
    validation_data=validation,
    epochs=SETTINGS["epochs"],
    steps_per_epoch=SETTINGS["steps"],
    validation_steps=-(-SETTINGS["validation"] // 50),
    verbose=0,
)
print(f"{len(tuner.oracle.trials)} trials in {time.perf_counter() - start:.0f} s")

# %% [markdown]
# ## Reading the results
#
# `results_summary` lists the trials best first, with their hyperparameters
# and objective:

# %%
tuner.results_summary(num_trials=10)

# %% [markdown]
# Trials with the same score keep keras-tuner's order. With a budget this
# small, the learning rate can matter as much as the model: compare each
# model's two trials in the table below. That is why the paper searches a
# grid of learning rates for every model.
#
# The best hyperparameters, and the best model rebuilt with its trained
# weights (keras-tuner saves each trial's best checkpoint):

# %%
best_hp = tuner.get_best_hyperparameters(1)[0]
print("best hyperparameters:", best_hp.values)
best_model = tuner.get_best_models(1)[0]
print(f"best model: {best_model.name}, {best_model.count_params():,} parameters")

# %% [markdown]
# Every trial is in `tuner.oracle.trials`: its hyperparameters, its status,
# its score and its metrics. keras-tuner keeps the metrics of each trial's
# best epoch (by the objective), not the whole training history. As a table:

# %%
trials = sorted(tuner.oracle.trials.values(), key=lambda t: t.trial_id)


def value(trial, metric):
    return trial.metrics.get_last_value(metric) if trial.metrics.exists(metric) else float("nan")


rows = [
    "| trial | model | hidden | learning rate | val coarse | val fine | train coarse (same epoch) | status |",
    "|---|---|---|---|---|---|---|---|",
]
for trial in trials:
    hp = trial.hyperparameters.values
    rows.append(
        f"| {trial.trial_id} | {hp['model']} | {hp['hidden_size']} | {hp['learning_rate']:g} | "
        f"{value(trial, 'val_coarse_accuracy'):.3f} | {value(trial, 'val_fine_accuracy'):.3f} | "
        f"{value(trial, 'coarse_accuracy'):.3f} | {trial.status} |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown]
# And as a plot: validation coarse and fine accuracy of every trial.

# %%
names = [f"{t.hyperparameters.values['model']}\nlr {t.hyperparameters.values['learning_rate']:g}" for t in trials]
positions = np.arange(len(trials))
figure, axis = plt.subplots(figsize=(6.5, 3.5))
axis.bar(positions - 0.2, [value(t, "val_coarse_accuracy") for t in trials], width=0.4, label="validation coarse")
axis.bar(positions + 0.2, [value(t, "val_fine_accuracy") for t in trials], width=0.4, label="validation fine")
axis.set_xticks(positions, names, fontsize="small")
axis.set(ylabel="accuracy", ylim=(0, 1.05), title=f"sequence_reversal: {len(trials)} grid trials")
axis.legend(fontsize="small")
figure.tight_layout()
plt.show()

# %% [markdown]
# ## The whole grid
#
# The paper's 70-point grid is one command (one trial per line of the grid;
# `--quick` is the `fast` grid above):
#
# ```bash
# python examples/tuning/run_grid.py --task sequence_reversal --scale paper
# ```
#
# Each trial there trains a hidden-256 or -512 model for `--epochs` ×
# `--steps-per-epoch` batches at the paper's lengths; at the rates in the
# README's speed table the whole grid takes days on a CPU, so it wants GPUs,
# and keras-tuner's distributed mode (chief and workers sharing a
# `--directory`; see the script's docstring).
