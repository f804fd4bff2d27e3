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
# # 01 · Quickstart: a Neural Stack inside your own Keras model
#
# `StackCell`, `QueueCell` and `DequeCell` are ordinary Keras RNN cells that
# wrap any controller cell (here an `LSTMCell`) and give it a differentiable
# Neural Stack, Queue or DeQue (Grefenstette et al. 2015). This notebook
#
# 1. puts `StackCell(LSTMCell(...))` into a model with the plain
#    `keras.layers.RNN` layer, and shows what its fixed `capacity` means;
# 2. swaps in `MemoryRNN`, which sizes the memory from each input, so a model
#    trained on short strings runs on longer ones;
# 3. trains a small Stack-LSTM on sequence reversal and measures it at the
#    training lengths and at longer ones;
# 4. checks masking (padding changes nothing), saves to `.keras`, loads it
#    back and gets identical predictions, and decodes a long string greedily.
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) uses tiny sizes
# and a few hundred batches to check that everything runs; `default` (used
# for the stored outputs) trains long enough to show a real result.

# %%
# Before Keras is imported: this notebook's sizes for the NEURAL_MEMORY_EXAMPLES
# setting (examples/notebook_settings.py). Keras' default backend.
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings({
    # Source lengths for training and two longer test ranges; model sizes; batches.
    "fast": dict(scale="quick", train=(2, 4), test=(5, 7), long=(8, 12), hidden=16, width=8, epochs=2, steps=100, examples=50),
    "default": dict(scale="default", train=(8, 16), test=(17, 32), long=(33, 64), hidden=64, width=32, epochs=10, steps=300, examples=500),
})

# %%
import pathlib
import tempfile
import time
import warnings

import keras
import numpy as np

import tfds_tasks
from keras_neural_memory import CoarseAccuracy, FineAccuracy, MaskedAccuracy, MemoryRNN, StackCell, models
from keras_neural_memory.experiments import data, training

# Keras warns that `fit(shuffle=True)` is ignored for a tf.data stream; the stream is freshly sampled anyway.
warnings.filterwarnings("ignore", message=".*`shuffle=True` was passed.*")
# `models.transduce` calls the cells on embedded, masked inputs; Keras warns that a cell drops the mask (harmless here).
warnings.filterwarnings("ignore", message=".*does not support masking.*")
keras.utils.set_random_seed(0)
print("Keras", keras.__version__, "backend:", keras.backend.backend())

# %% [markdown]
# ## 1. `StackCell` in `keras.layers.RNN`
#
# The cell goes wherever an `LSTMCell` would. The model reads token ids,
# embeds them (`mask_zero=True`: id 0 is padding) and predicts a token at
# every step.

# %%
inputs = keras.Input((None,), dtype="int32")
x = keras.layers.Embedding(130, 64, mask_zero=True)(inputs)
x = keras.layers.RNN(StackCell(keras.layers.LSTMCell(256)), return_sequences=True)(x)
outputs = keras.layers.Dense(130)(x)
model = keras.Model(inputs, outputs)
model.summary()

# %%
ids = np.random.default_rng(0).integers(1, 130, (2, 12)).astype("int32")
print("logits:", model(ids).shape)

# %% [markdown]
# `keras.layers.RNN` needs a fixed state size, so the cell's memory holds
# `capacity` steps (default 256). Past capacity the memory cannot grow: from
# the first step beyond it, reads (and so outputs and the loss) are NaN. With
# a deliberately small capacity of 16:

# %%
small = keras.layers.RNN(StackCell(keras.layers.LSTMCell(32), capacity=16), return_sequences=True)
features = np.random.default_rng(1).normal(size=(1, 24, 8)).astype("float32")
out = keras.ops.convert_to_numpy(small(features))
nan_steps = np.flatnonzero(np.isnan(out[0]).any(axis=-1))
print("steps with NaN outputs (0-based):", nan_steps)

# %% [markdown]
# ## 2. `MemoryRNN`: memory sized from each input
#
# `MemoryRNN` is a `keras.layers.RNN` that allocates exactly as many memory
# steps as the input has, at every call, so there is no capacity to choose:
# train on short sequences and run on long ones with the same weights.

# %%
unbounded = MemoryRNN(StackCell(keras.layers.LSTMCell(32), capacity=16), return_sequences=True)
for length in (24, 200):
    seq = np.random.default_rng(2).normal(size=(1, length, 8)).astype("float32")
    out = keras.ops.convert_to_numpy(unbounded(seq))
    print(f"length {length}: output {out.shape}, any NaN: {bool(np.isnan(out).any())}")

# %% [markdown]
# ## 3. Train a Stack-LSTM on sequence reversal
#
# The data come from `tfds_tasks` through the helpers that `neural-memory
# train` uses: `data.task_setup` picks lengths and vocabulary, `data.examples`
# samples fresh examples from `tfds_tasks.stream` and lays each out as the
# paper's joint sequence `<s> source ||| target </s>`, with a loss mask that
# is 1 on the target symbols and `</s>` only.

# %%
setup = data.task_setup("sequence_reversal", SETTINGS["scale"], train_lengths=SETTINGS["train"], test_lengths=SETTINGS["test"])
S, T = setup.source_vocab_size, setup.target_vocab_size
example = next(iter(tfds_tasks.stream("sequence_reversal", seed=0, config=setup.settings)))
print("source:", example["source"].numpy().tolist())
print("target:", example["target"].numpy().tolist())
joint = tfds_tasks.make_joint_sequence(example["source"].numpy(), example["target"].numpy(), S, T)
for key, value in joint.items():
    print(f"{key:>9}: {value.tolist()}")

# %% [markdown]
# Now the model: your own, written with Keras layers, with `MemoryRNN`
# around a `StackCell`. It is compiled the way `neural-memory train` compiles
# (RMSProp, gradient clipping at 1, XLA) with the paper's coarse accuracy
# (whole target right) and fine accuracy (fraction right before the first
# error), and per-symbol accuracy, all weighted by the loss mask.

# %%
def build_reversal_model(hidden, width):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(tfds_tasks.joint.input_vocab_size(S, T), 64, mask_zero=True)(inputs)
    x = MemoryRNN(StackCell(keras.layers.LSTMCell(hidden), memory_width=width), return_sequences=True)(x)
    outputs = keras.layers.Dense(tfds_tasks.joint.output_vocab_size(T))(x)
    model = keras.Model(inputs, outputs, name="my_stack_lstm")
    model.compile(
        optimizer=keras.optimizers.RMSprop(5e-3, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[CoarseAccuracy(), FineAccuracy(), MaskedAccuracy()],
        jit_compile=True,
    )
    return model


keras.utils.set_random_seed(0)
model = build_reversal_model(SETTINGS["hidden"], SETTINGS["width"])
print(f"{model.count_params():,} parameters")
train = data.examples(setup, "train", None, seed=0, batch_size=10)  # endless (inputs, targets, loss_mask) batches
start = time.perf_counter()
history = model.fit(train, epochs=SETTINGS["epochs"], steps_per_epoch=SETTINGS["steps"], verbose=2)
print(f"{SETTINGS['epochs'] * SETTINGS['steps']} batches in {time.perf_counter() - start:.0f} s")

# %% [markdown]
# Accuracy on fresh examples at the training lengths, at the test lengths
# (longer than any training string) and at a still longer range.
# `training.measure` is `model.evaluate` on a fresh sample.

# %%
long_setup = data.task_setup("sequence_reversal", SETTINGS["scale"], train_lengths=SETTINGS["train"], test_lengths=SETTINGS["long"])
rows = [
    ("train", SETTINGS["train"], training.measure(model, setup, "train", SETTINGS["examples"], 1000, 50)),
    ("test", SETTINGS["test"], training.measure(model, setup, "test", SETTINGS["examples"], 1000, 50)),
    ("longer", SETTINGS["long"], training.measure(model, long_setup, "test", SETTINGS["examples"], 1000, 50)),
]
print(f"{'split':8s}{'lengths':>9s}{'coarse':>8s}{'fine':>8s}{'per-symbol':>12s}")
for name, (low, high), acc in rows:
    print(f"{name:8s}{f'{low}-{high}':>9s}{acc['coarse']:8.3f}{acc['fine']:8.3f}{acc['masked']:12.3f}")

# %% [markdown]
# The rows above are the paper's two measures at three ranges of lengths.
# Compare the "test" and "longer" rows with the "train" row: how much of
# the reversal the Stack-LSTM keeps on strings longer than any it was
# trained on, as whole strings (coarse) and as correct prefixes (fine).
#
# ## 4. Masking, saving and loading, greedy decoding
#
# **Masking.** With `Embedding(mask_zero=True)` a padded step leaves the
# memory untouched. The predictions for one sequence are the same whether it
# is run alone or padded with zeros inside a batch of longer ones, up to
# float rounding (the two shapes are two different compiled programs):

# %%
batch_inputs, batch_targets, batch_weights = next(iter(data.examples(setup, "test", 4, seed=7, batch_size=4)))
batch_inputs = np.asarray(batch_inputs)
length = int((batch_inputs[0] > 0).sum())
alone = model.predict(batch_inputs[:1, :length], verbose=0)
padded = model.predict(batch_inputs, verbose=0)[:1, :length]
print(f"sequence of {length} steps, batch padded to {batch_inputs.shape[1]} steps")
print("max |difference| on the real steps:", float(np.abs(alone - padded).max()))

# %% [markdown]
# **Saving.** Every layer of the package is registered as a Keras
# serializable, so `model.save` / `keras.saving.load_model` round-trips with
# identical predictions:

# %%
path = pathlib.Path(tempfile.mkdtemp()) / "reversal_stack.keras"
model.save(path)
loaded = keras.saving.load_model(path)
print("saved:", path.name, f"({path.stat().st_size / 1024:.0f} KiB)")
print("identical predictions:", np.array_equal(model.predict(batch_inputs, verbose=0), loaded.predict(batch_inputs, verbose=0)))

# %% [markdown]
# **Greedy decoding.** `models.transduce` feeds each predicted symbol back
# in, one step at a time, with the memory sized for the whole sequence. The
# model's layers (`Embedding`, `MemoryRNN`, `Dense`) are what it expects, so it
# works on this hand-written model too. A string of the longest length in the
# "longer" range above:

# %%
rng = np.random.default_rng(3)
source = rng.integers(0, S, SETTINGS["long"][1]).tolist()
[predicted] = models.transduce(loaded, [source], tfds_tasks.Layout("joint", S, T))
print("source:        ", source)
print("reversed:      ", source[::-1])
print("model's output:", predicted)
expected = source[::-1]
prefix = next((i for i, (a, b) in enumerate(zip(predicted, expected)) if a != b), min(len(predicted), len(expected)))
print(f"exact match: {predicted == expected}; the first {prefix} of {len(expected)} symbols are right")

# %% [markdown]
# This is one string at the top of the "longer" range, four times the
# longest training string; the "longer" row of the table in section 3
# measures the same thing on many strings, as whole strings (coarse) and as
# correct prefixes (fine).
