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
# # 03 · Transduction grammars (ITGs) from TFDS
#
# Grefenstette et al. (2015, §4.2) test their memories on two synchronous
# grammars (inversion transduction grammars):
#
# * `itg_svo_sov`: an SVO language to an SOV one: the verb moves past its
#   object, over nested relative clauses;
# * `itg_gender_conjugation`: an English-like language without gender to a
#   German-like one whose articles and conjunctions agree with the noun.
#
# Both are TFDS datasets once `tfds_tasks` is imported: generated locally and
# deterministically, nothing is downloaded. This notebook loads them with
# `tfds.load`, trains a Queue-LSTM (`models.build_transducer`) on each,
# measures coarse and fine accuracy at the training lengths and at longer
# test lengths, and decodes a few test sentences greedily with
# `models.transduce`, next to their references.
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) uses tiny data
# and models to check that everything runs; `default` (the stored outputs)
# trains each model for 3,000 batches at the data scale of
# `neural-memory train`'s default (source lengths 8-16 for training, 17-32
# for testing, 32 content words).

# %%
# Before Keras is imported: JAX when it is installed (many small models compile faster
# there on a CPU; set KERAS_BACKEND to choose another backend), and this notebook's
# sizes for the NEURAL_MEMORY_EXAMPLES setting (examples/notebook_settings.py).
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings(prefer_jax=True, settings={
    "fast": dict(train=(4, 8), test=(9, 12), vocab=8, sizes=(500, 100, 100), memory="queue", hidden=16, width=8, epochs=1, steps=100, decode=2),
    "default": dict(train=(8, 16), test=(17, 32), vocab=32, sizes=(10_000, 1_000, 1_000), memory="queue", hidden=64, width=32, epochs=10, steps=300, decode=5),
})

# %%
import time
import warnings

import absl.logging
import keras
import tensorflow as tf
import tensorflow_datasets as tfds

import tfds_tasks  # registers the TFDS builders
from keras_neural_memory import models
from keras_neural_memory.experiments import training
from keras_neural_memory.experiments.data import as_batches, padded_batches

tfds.disable_progress_bar()
absl.logging.set_verbosity(absl.logging.ERROR)  # TFDS logs each custom config it builds
# `models.transduce` calls the cells on embedded, masked inputs; Keras warns that a cell drops the mask (harmless here).
warnings.filterwarnings("ignore", message=".*does not support masking.*")
# Keras warns that `fit(shuffle=True)` is ignored for a tf.data dataset; the dataset shuffles itself.
warnings.filterwarnings("ignore", message=".*`shuffle=True` was passed.*")
print("Keras", keras.__version__, "backend:", keras.backend.backend())

# %% [markdown]
# ## The datasets
#
# `tfds.load("itg_svo_sov")` gives the paper's regime (`default` config:
# training sentences of 8-64 words, test sentences of 65-128). Each example
# has the token ids (`source`, `target`) and their text. A few test
# sentences and the length range of the split (the `fast` setting loads the
# `tiny` config instead):

# %%
name = "itg_svo_sov" if MODE == "default" else "itg_svo_sov/tiny"
paper_test = tfds.load(name, split="test")
lengths = [int(tf.size(e["source"])) for e in paper_test]
print(f"{name} test: {len(lengths)} sentences, source lengths {min(lengths)}-{max(lengths)}")
for example in paper_test.take(2):
    print("source:", example["source_text"].numpy().decode())
    print("target:", example["target_text"].numpy().decode(), "\n")

# %% [markdown]
# Training at the paper's lengths takes hours on a CPU (see
# `docs/results.md`), so the models below use a custom config of the same
# builders with shorter sentences and fewer words. `make_config` derives it
# from `default`; `tfds.load` builds it the same way (once; later loads
# read it from the TFDS data directory).

# %%
def load_task(task):
    """`(splits, info)` of a custom config of the task's builder."""
    builder_class = tfds.builder_cls(task)
    low, high = SETTINGS["train"]
    test_low, test_high = SETTINGS["test"]
    config = builder_class.make_config(
        f"notebook_{low}-{high}_{test_low}-{test_high}_v{SETTINGS['vocab']}_n{SETTINGS['sizes'][0]}",
        train_lengths=SETTINGS["train"],
        test_lengths=SETTINGS["test"],
        vocab_size=SETTINGS["vocab"],
        train_size=SETTINGS["sizes"][0],
        validation_size=SETTINGS["sizes"][1],
        test_size=SETTINGS["sizes"][2],
    )
    splits, info = tfds.load(task, split=["train", "validation", "test"], builder_kwargs={"config": config}, with_info=True)
    return dict(zip(("train", "validation", "test"), splits)), info


data = {task: load_task(task) for task in ("itg_svo_sov", "itg_gender_conjugation")}
for task, (splits, info) in data.items():
    S, T = tfds_tasks.vocab_sizes(info)
    print(f"{task}: {S} source words, {T} target words;", {k: int(v.num_examples) for k, v in info.splits.items()})
    example = next(iter(splits["train"]))
    print("  source:", example["source_text"].numpy().decode())
    print("  target:", example["target_text"].numpy().decode())

# %% [markdown]
# ## Training
#
# The model reads the paper's joint sequence `<s> source ||| target </s>`
# (`tfds_tasks.training_map_fn` maps a TFDS example to it) and is trained
# on the target symbols and `</s>` only. Batches are padded to a multiple of
# 16 steps by `padded_batches`, as `neural-memory train` does, so that
# the compiled step sees only a few shapes. Optimiser and metrics are those
# of `neural-memory train` (`training.compile_model`: RMSProp 5e-3, clipping at
# 1, coarse / fine / per-symbol accuracy).

# %%
def batches(split, S, T, batch_size, shuffle_seed=None):
    ds = split
    if shuffle_seed is not None:
        ds = ds.shuffle(10_000, seed=shuffle_seed).repeat()
    sequences = ds.map(tfds_tasks.training_map_fn(S, T, "joint"))
    num_batches = None if shuffle_seed is not None else -(-len(split) // batch_size)
    return as_batches(lambda: padded_batches(tfds.as_numpy(sequences), batch_size), num_batches)


def train_task(task):
    splits, info = data[task]
    S, T = tfds_tasks.vocab_sizes(info)
    keras.utils.set_random_seed(0)
    model = models.build_transducer(tfds_tasks.Layout("joint", S, T), memory=SETTINGS["memory"], hidden_size=SETTINGS["hidden"], memory_width=SETTINGS["width"])
    training.compile_model(model, 5e-3, jit_compile=True)
    start = time.perf_counter()
    history = model.fit(batches(splits["train"], S, T, 10, shuffle_seed=0), epochs=SETTINGS["epochs"], steps_per_epoch=SETTINGS["steps"], verbose=0)
    seconds = time.perf_counter() - start
    last = {k: round(v[-1], 3) for k, v in history.history.items()}
    print(f"{task}: {model.name}, {model.count_params():,} parameters, "
          f"{SETTINGS['epochs'] * SETTINGS['steps']} batches in {seconds:.0f} s; last epoch: {last}")
    return model


trained = {task: train_task(task) for task in data}

# %% [markdown]
# ## Evaluation
#
# Coarse accuracy is the fraction of sentences translated entirely right;
# fine accuracy the mean fraction of each target right before the first
# error (paper §4.3; both from one teacher-forced pass). The validation split
# has the training lengths; the test split is longer than any training
# sentence.

# %%
print(f"{'task':24s}{'split':12s}{'lengths':>9s}{'coarse':>8s}{'fine':>8s}{'per-symbol':>12s}")
for task, model in trained.items():
    splits, info = data[task]
    S, T = tfds_tasks.vocab_sizes(info)
    for split, (low, high) in (("validation", SETTINGS["train"]), ("test", SETTINGS["test"])):
        values = model.evaluate(batches(splits[split], S, T, 50), verbose=0, return_dict=True)
        print(f"{task:24s}{split:12s}{f'{low}-{high}':>9s}{values['coarse_accuracy']:8.3f}{values['fine_accuracy']:8.3f}{values['masked_accuracy']:12.3f}")

# %% [markdown]
# Read the table against the paper (Grefenstette et al., Table 2 at its own,
# longer lengths; `docs/results.md` for this data scale): the validation rows
# say how well each model fits the grammar at the training lengths, the test
# rows how much of that survives on sentences up to twice as long.
#
# ## Greedy decoding
#
# `models.transduce` reads `<s> source |||` and then feeds each predicted
# word back in until the model emits `</s>`: no reference is seen. The first
# few test sentences of each task (longer than any training sentence), with
# the reference and whether the output matches it exactly:

# %%
for task, model in trained.items():
    splits, info = data[task]
    S, T = tfds_tasks.vocab_sizes(info)
    target_words = info.features["target"].feature.names
    print(f"== {task}")
    for example in splits["test"].take(SETTINGS["decode"]):
        source = example["source"].numpy().tolist()
        reference = example["target"].numpy().tolist()
        [output] = models.transduce(model, [source], tfds_tasks.Layout("joint", S, T))
        print("source:   ", example["source_text"].numpy().decode())
        print("reference:", example["target_text"].numpy().decode())
        print("model:    ", " ".join(target_words[i] for i in output), "  [exact match]" if output == reference else "  [differs]")
        print()
