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
# # 02 · Stack, Queue, DeQue and LSTM on reversal, copying and bigram flipping
#
# The synthetic tasks of Grefenstette et al. (2015, §4.1):
#
# * `sequence_copy`: `x1 x2 ... xn → x1 x2 ... xn` (first in, first out: a queue);
# * `sequence_reversal`: `x1 x2 ... xn → xn ... x2 x1` (last in, first out: a stack);
# * `bigram_flip`: `x1 x2 x3 x4 ... → x2 x1 x4 x3 ...` (local reordering).
#
# Each task trains four models of about the same size
# (`models.build_transducer`): a Stack-, Queue- and DeQue-LSTM and the
# parameter-matched 2-layer LSTM. Every model is then measured at the
# training lengths and at longer test lengths, swept over lengths (the
# length-generalisation plot), and the memory traces show what the learned
# controllers do with their memory.
#
# Coarse accuracy is the fraction of targets that are entirely right; fine
# accuracy the mean fraction of each target that is right before the first
# error (paper §4.3).
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) trains four of
# the twelve models, tiny ones for a few batches, to check that everything
# runs; its numbers mean nothing. `default` (the stored outputs) is the data scale of
# `neural-memory train`'s default (training source lengths 8-16, test lengths
# 17-32, 32 symbols, hidden size 64, memory width 32) with 1,500 batches per
# model, the budget of `neural-memory reproduce --plan quick`
# (`docs/results.md`).

# %%
# Before Keras is imported: JAX when it is installed (many small models compile faster
# there on a CPU; set KERAS_BACKEND to choose another backend), and this notebook's
# sizes for the NEURAL_MEMORY_EXAMPLES setting (examples/notebook_settings.py).
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings(prefer_jax=True, settings={
    # `runs`: the models trained for each task ("lstm" is the 2-layer LSTM baseline). `fast` trains
    # four models (every task, every kind of model, the models the traces show), `default` all twelve;
    # its joint sequences (2 * length + 2 steps) all fit one 16-step bucket: one compilation per model.
    "fast": dict(
        scale="quick", train=(2, 4), test=(6, 7), runs={"sequence_reversal": ("stack", "deque"), "sequence_copy": ("queue",), "bigram_flip": ("lstm",)},
        hidden=16, width=8, epochs=2, steps=20, examples=50, sweep=(2, 6), sweep_examples=50, trace_length=4,
    ),
    "default": dict(
        scale="default", train=(8, 16), test=(17, 32), runs={task: ("stack", "queue", "deque", "lstm") for task in ("sequence_reversal", "sequence_copy", "bigram_flip")},
        hidden=64, width=32, epochs=10, steps=150, examples=500, sweep=tuple(range(8, 49, 4)), sweep_examples=100, trace_length=8,
    ),
})
TASKS = tuple(SETTINGS["runs"])
LABELS = {"stack": "Stack-LSTM", "queue": "Queue-LSTM", "deque": "DeQue-LSTM", "lstm": "LSTM (2 layers)"}

# %%
# %matplotlib inline
import time
import warnings

import keras
import numpy as np
from IPython.display import Markdown, display
from matplotlib.figure import Figure

import tfds_tasks
from keras_neural_memory import models, plot_convergence, plot_length_generalisation, plot_memory_trace
from keras_neural_memory.experiments import data, training

# Keras warns that `fit(shuffle=True)` is ignored for a tf.data stream; the stream is freshly sampled anyway.
warnings.filterwarnings("ignore", message=".*`shuffle=True` was passed.*")
print("Keras", keras.__version__, "backend:", keras.backend.backend())

# %% [markdown]
# ## Training
#
# Data, optimiser and metrics are those of `neural-memory train`:
# `data.examples` samples fresh examples from `tfds_tasks.stream` (the papers
# train on an unbounded stream) as joint sequences `<s> source ||| target
# </s>`, and `training.compile_model` compiles with RMSProp (learning rate 5e-3),
# gradient clipping at 1, XLA, and coarse / fine / per-symbol accuracy
# weighted by the loss mask. Every model starts from seed 0.

# %%
def setup_for(task, test_lengths=None):
    low, high = test_lengths or SETTINGS["test"]
    if task == "bigram_flip":  # flipping needs even lengths
        low, high = low + low % 2, high - high % 2
    return data.task_setup(task, SETTINGS["scale"], train_lengths=SETTINGS["train"], test_lengths=(low, high))


trained, histories, accuracy = {}, {}, {}
start_all = time.perf_counter()
for task, memories in SETTINGS["runs"].items():
    setup = setup_for(task)
    for memory in memories:
        keras.utils.set_random_seed(0)
        model = models.build_transducer(
            setup.id_layout, memory=memory,
            hidden_size=SETTINGS["hidden"], memory_width=SETTINGS["width"],
        )
        training.compile_model(model, 5e-3, jit_compile=True)
        start = time.perf_counter()
        history = model.fit(data.examples(setup, "train", None, 0, 10), epochs=SETTINGS["epochs"], steps_per_epoch=SETTINGS["steps"], verbose=0)
        seconds = time.perf_counter() - start
        trained[task, memory], histories[task, memory] = model, history
        accuracy[task, memory] = {split: training.measure(model, setup, split, SETTINGS["examples"], 1000, 50) for split in ("train", "test")}
        print(f"{task:18s} {LABELS[memory]:16s} {model.count_params():7,d} parameters, "
              f"{SETTINGS['epochs'] * SETTINGS['steps']} batches in {seconds:4.0f} s", flush=True)
print(f"all models: {(time.perf_counter() - start_all) / 60:.1f} min")

# %% [markdown]
# ## Accuracy at the training lengths and beyond
#
# On fresh examples (`training.measure`), at the training lengths and at the
# longer test lengths, which no model saw during training:

# %%
low, high = SETTINGS["train"]
test_low, test_high = SETTINGS["test"]
rows = [
    f"| task | model | parameters | train {low}-{high} coarse | fine | test {test_low}-{test_high} coarse | fine |",
    "|---|---|---|---|---|---|---|",
]
for (task, memory), acc in accuracy.items():
    rows.append(
        f"| {task} | {LABELS[memory]} | {trained[task, memory].count_params():,} | {acc['train']['coarse']:.2f} | "
        f"{acc['train']['fine']:.2f} | {acc['test']['coarse']:.2f} | {acc['test']['fine']:.2f} |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown]
# The paper's pattern (Grefenstette et al., Table 1; `docs/results.md` has
# it beside a run of `neural-memory reproduce`): the stack and the DeQue
# reverse, the queue and the DeQue copy, the queue partly flips bigrams, and
# the deep LSTM generalises on none of them. Read the table with it: a
# model that learned the task's algorithm keeps its training accuracy at the
# test lengths; one that did not has low coarse accuracy even at the
# training lengths. One seed per cell and a fixed budget of batches, where
# the paper trained to convergence and kept the best of a grid: a model at
# zero here may still be one that had not started to learn (the training
# curves below show which were still rising when training stopped).
#
# Training coarse accuracy against batches (the paper's Figure 2b), one
# panel per task; the LSTM is dashed:

# %%
figure = Figure(figsize=(5 * len(TASKS), 3.4), layout="constrained")
for axis, task in zip(figure.subplots(1, len(TASKS), squeeze=False)[0], TASKS):
    plot_convergence({LABELS[m]: histories[task, m] for m in SETTINGS['runs'][task]}, steps_per_epoch=SETTINGS["steps"], title=task, axis=axis)
figure

# %% [markdown]
# ## Length generalisation
#
# Each model at every length of a sweep (even lengths, so that bigram
# flipping is defined), measured like `neural-memory evaluate --sweep`: one
# fresh sample per length, the training lengths shaded.

# %%
sweeps = {}
start = time.perf_counter()
for (task, memory), model in trained.items():
    sweeps[task, memory] = [
        {"length": length, **training.measure(model, setup_for(task, (length, length)), "test", SETTINGS["sweep_examples"], 2000, 50)}
        for length in SETTINGS["sweep"]
    ]
print(f"sweeps over lengths {list(SETTINGS['sweep'])}: {time.perf_counter() - start:.0f} s")

figure = Figure(figsize=(5 * len(TASKS), 3.4), layout="constrained")
for axis, task in zip(figure.subplots(1, len(TASKS), squeeze=False)[0], TASKS):
    plot_length_generalisation({LABELS[m]: sweeps[task, m] for m in SETTINGS['runs'][task]}, train_range=SETTINGS["train"], metric="coarse", title=task, axis=axis)
figure

# %% [markdown]
# A model that implements the task's algorithm stays flat far past the
# shaded training lengths; one that memorised lengths falls off right after
# them. Fine accuracy over the same sweep (the fraction of each target
# right before the first error) shows how gradually each one degrades:

# %%
figure = Figure(figsize=(5 * len(TASKS), 3.4), layout="constrained")
for axis, task in zip(figure.subplots(1, len(TASKS), squeeze=False)[0], TASKS):
    plot_length_generalisation({LABELS[m]: sweeps[task, m] for m in SETTINGS['runs'][task]}, train_range=SETTINGS["train"], metric="fine", title=task, axis=axis)
figure

# %% [markdown]
# ## What the memory does: traces
#
# `plot_memory_trace` runs a trained model step by step on one example (the
# same step code as training) and shows, over time, the push and pop
# strengths, the strength of every memory slot and the weights of the read.
# The top rows are the input symbol of each step and the model's prediction
# there, the next symbol (only the predictions from `|||` on are trained and
# scored: the target symbols and `</s>`).
#
# First the Stack-LSTM on reversal: while it reads the source it should push
# each symbol, and after `|||` pop them, reading the top of the stack, which
# holds the symbols in reverse order.

# %%
def joint_example(task, length, seed=5):
    """One example's joint input ids, and the names of the input and output ids."""
    setup = setup_for(task)
    vocabularies = tfds_tasks.generators.make_task(task, setup.settings.train, setup.settings.vocab_size)
    rng = np.random.default_rng(seed)
    source = rng.integers(0, setup.source_vocab_size, length)
    target = {"sequence_reversal": source[::-1], "sequence_copy": source}.get(task)
    if target is None:  # bigram_flip: swap each pair
        target = source.reshape(-1, 2)[:, ::-1].reshape(-1)
    joint = tfds_tasks.make_joint_sequence(source, target, setup.source_vocab_size, setup.target_vocab_size)
    # Target symbols fed back as input are named "tgt:y5"; the trace's narrow columns read better as "y5".
    input_names = [name.removeprefix("tgt:") for name in tfds_tasks.joint.input_vocab(vocabularies.source_vocab, vocabularies.target_vocab)]
    output_names = tfds_tasks.joint.output_vocab(vocabularies.target_vocab)
    return joint["inputs"], input_names, output_names


ids, input_names, output_names = joint_example("sequence_reversal", SETTINGS["trace_length"])
plot_memory_trace(trained["sequence_reversal", "stack"], ids, input_labels=input_names, output_labels=output_names,
                  title="Stack-LSTM on sequence_reversal")

# %% [markdown]
# The Queue-LSTM on copying: it should enqueue the source symbols and, after
# `|||`, dequeue them from the other end, in the order they came:

# %%
ids, input_names, output_names = joint_example("sequence_copy", SETTINGS["trace_length"])
plot_memory_trace(trained["sequence_copy", "queue"], ids, input_labels=input_names, output_labels=output_names,
                  title="Queue-LSTM on sequence_copy")

# %% [markdown]
# And the DeQue-LSTM on reversal, which can push and pop at both ends
# (rows for the top and the bottom end; its slots grow from the middle).
# Compare which end it pushes to while reading the source and which end it
# pops from after `|||` with the Stack-LSTM's trace above:

# %%
ids, input_names, output_names = joint_example("sequence_reversal", SETTINGS["trace_length"])
plot_memory_trace(trained["sequence_reversal", "deque"], ids, input_labels=input_names, output_labels=output_names,
                  title="DeQue-LSTM on sequence_reversal")
