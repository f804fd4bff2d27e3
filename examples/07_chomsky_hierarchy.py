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
# # 07 · The Chomsky-hierarchy benchmark, end to end
#
# Delétang et al. (2023, "Neural Networks and the Chomsky Hierarchy")
# measure length generalisation with one protocol for 15 tasks: train on
# strings of length 1-40, test on every length up to 500, and score a model
# by its mean per-token accuracy over lengths 41-500 (chance is 0.5 on the
# binary tasks).
#
# This notebook runs that protocol on one task, `reverse_string`, for the
# package's Stack-LSTM and for an LSTM:
#
# * the task from TFDS (`tfds.load("chomsky_hierarchy/reverse_string")`)
#   and from the seeded streams the protocol trains and tests on;
# * the model of `neural-memory train --task chomsky_hierarchy/reverse_string`
#   (`models.build_chomsky_model`): it reads the input, then one blank per
#   output position, and answers at the blanks;
# * training as the authors' code trains: batches of 128 strings of one
#   length, drawn uniformly from 1-40 for every batch, their loss (the
#   cross-entropy averaged over the batch and every output position) and
#   their optimiser, optax's Adam after clipping at global norm 1
#   (`OptaxAdam`);
# * the accuracy at every length (the mean over sub-batches of 64 strings,
#   as theirs) and the score.
#
# The results page [`docs/results/chomsky.md`](../docs/results/chomsky.md)
# has the full protocol's numbers (10,000 steps, 512 sequences of every
# length 1-500, three seeds) and its cost.
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) uses tiny
# models and a few steps to check that everything runs; `default` (the
# stored outputs) trains the protocol's model sizes for 1,000 steps and
# measures lengths 1-100 over 64 sequences each, a tenth of the protocol's
# training and a fifth of its lengths, to fit a few minutes on a CPU.

# %%
# Before Keras is imported: JAX when it is installed (set KERAS_BACKEND to choose another
# backend), and this notebook's sizes for the NEURAL_MEMORY_EXAMPLES setting
# (examples/notebook_settings.py).
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings(prefer_jax=True, settings={
    "fast": dict(hidden=8, width=4, steps=20, eval_max_length=44, eval_sequences=8),
    "default": dict(hidden=256, width=8, steps=1000, eval_max_length=100, eval_sequences=64),
})

# %%
import tempfile
import time

import absl.logging
import keras
import numpy as np
import tensorflow_datasets as tfds
from IPython.display import Image, display

import tfds_tasks  # registers the TFDS builders
from keras_neural_memory import models
from keras_neural_memory.experiments import chomsky

tfds.disable_progress_bar()
absl.logging.set_verbosity(absl.logging.ERROR)
print("Keras", keras.__version__, "backend:", keras.backend.backend())

# %% [markdown]
# ## The task
#
# Every task is a config of the TFDS builder `chomsky_hierarchy`, with the
# authors' token ids. Its `train` split holds 10,000 strings of lengths
# 1-40 and its `test` split 32 strings of every length 1-500, for a look
# at the data; the protocol itself draws fresh strings from seeded streams
# (below), 512 per length for the evaluation, without writing them to disk.

# %%
info = tfds.builder("chomsky_hierarchy/reverse_string").info
print(info.description.splitlines()[0])
print(info.features)
for example in tfds.as_numpy(tfds.load("chomsky_hierarchy/reverse_string", split="train").take(3)):
    print("input", example["input"].tolist(), "-> output", example["output"].tolist())

# %% [markdown]
# ## The models
#
# `chomsky.task_setup` gives the task's vocabularies and lengths;
# `models.build_chomsky_model` the model, here the Stack-LSTM (an
# `LSTMCell` controller with the Neural Stack, run by `MemoryRNN`, whose
# memory grows with the tape) and a one-layer LSTM of the same width,
# both with the authors' `hk.LSTM` and Haiku's initialisation.
# `chomsky.compile_model` is the authors' optimiser and loss. The tape of a string of
# length 3: the input ids shifted by one (0 is padding), then the blank
# (id 3) at each of the 3 output positions.

# %%
setup = chomsky.task_setup("chomsky_hierarchy/reverse_string")
task = setup.task
print(f"input ids below {task.input_vocab_size}, output ids below {task.output_vocab_size}; "
      f"train lengths {setup.train_lengths}")
print("tape of 0 1 1:", models.chomsky_tape(np.array([[0, 1, 1]]), task.output_length(3), task.input_vocab_size).tolist())

trained = {}
for memory in ("stack", "lstm"):
    keras.utils.set_random_seed(0)
    model = models.build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory=memory,
                                       hidden_size=SETTINGS["hidden"], memory_width=SETTINGS["width"])
    chomsky.compile_model(model, learning_rate=5e-4)
    print(f"{memory}: {model.count_params():,} parameters")
    trained[memory] = model

# %% [markdown]
# ## Training
#
# `chomsky.training_batches` is the protocol's stream as `fit` reads it:
# `(tape, targets, weights)`, the weights 1 / (128 x output positions) at
# every output position and 0 elsewhere, so the loss is the authors' mean
# over the batch and the output positions. Each of the 40 lengths compiles its own step
# under XLA the first time it is drawn.

# %%
for memory, model in trained.items():
    start = time.perf_counter()
    batches = chomsky.training_batches(setup, seed=0, batch_size=128, first_epoch=0, steps=SETTINGS["steps"])
    history = model.fit(batches, epochs=1, steps_per_epoch=SETTINGS["steps"], shuffle=False, verbose=0)
    print(f"{memory}: {SETTINGS['steps']} steps in {time.perf_counter() - start:.0f} s, "
          f"training accuracy {history.history['accuracy'][-1]:.3f}, loss {history.history['loss'][-1]:.3f}")

# %% [markdown]
# ## Accuracy against length, and the score
#
# `chomsky.accuracy_by_length` streams the evaluation, one batch at a
# time: for every length, the mean over sub-batches of 64 sequences of each
# one's share of right output tokens. `chomsky.score` is the mean over the lengths beyond training
# (41 and up; here up to the setting's last length).

# %%
records = {}
for memory, model in trained.items():
    curve = chomsky.accuracy_by_length(model, setup, seed=1000, max_length=SETTINGS["eval_max_length"],
                                       sequences=SETTINGS["eval_sequences"], verbose=False)
    records[memory] = chomsky.curve_record(setup, memory, curve, 1000, SETTINGS["eval_sequences"])
    at = {point["length"]: point["accuracy"] for point in curve}
    print(f"{memory}: accuracy at length 10 {at[10]:.3f}, at 40 {at[40]:.3f}, "
          f"at {SETTINGS['eval_max_length']} {at[SETTINGS['eval_max_length']]:.3f}; score {records[memory]['score']:.3f}")

figure_path = f"{tempfile.mkdtemp()}/reverse_string.png"
chomsky.plot_curves(records, figure_path, title="reverse_string: per-token accuracy against length")
display(Image(figure_path))

# %% [markdown]
# ## The same with the command line
#
# One run of the full protocol (10,000 steps, every length 1-500 with 512
# sequences each) is one command; it is resumable, writes the curve and
# its plot into the run's folder, and `neural-memory evaluate` redraws
# them:
#
# ```bash
# neural-memory train --task chomsky_hierarchy/reverse_string --memory stack --seed 0
# neural-memory evaluate --model runs/chomsky_hierarchy-reverse_string-stack
# ```
#
# `--memory` takes `stack`, `queue`, `deque`, `superposition_stack` (the
# authors' Stack-RNN) or `lstm`; `--task` any of the 15 tasks
# (`tfds_tasks.generators.chomsky_hierarchy.CHOMSKY_TASKS`).
