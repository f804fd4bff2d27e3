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
# # 06 · XLA, GPUs and training throughput
#
# This notebook checks which accelerators the backends can see, shows what
# `jit_compile=True` does for a memory model, and runs the project's
# throughput benchmark (`benchmarks/throughput.py`): training batches per
# second of the Stack-, Queue- and DeQue-LSTM next to the parameter-matched
# baseline, a 2-layer LSTM (Grefenstette et al., Appendix D).
#
# **No GPU was available when the stored outputs below were produced**: they
# were run on a 2-core CPU machine (the device check below printed what it
# found), shared with a training job. The rates are those of a busy CPU;
# compare the ratios, which the benchmark measures in interleaved rounds so
# that a slow spell of the machine falls on every model. On a machine with a
# GPU the same cells run unchanged.
#
# **Settings.** `NEURAL_MEMORY_EXAMPLES=fast` (what CI runs) benchmarks two
# tiny models for a few steps; `default` (the stored outputs) benchmarks
# the paper's workload (batch 10, source length 64 so joint length 131,
# hidden size 256, memory width 256), as in the README's speed table.

# %%
# Before Keras is imported: this notebook's sizes for the NEURAL_MEMORY_EXAMPLES
# setting (examples/notebook_settings.py). Keras' default backend.
from notebook_settings import choose_settings

MODE, SETTINGS = choose_settings({
    "fast": dict(
        demo=dict(hidden=16, width=16, length=20, steps=5),
        benchmark=["--models", "lstm2,stack", "--hidden", "16", "--width", "16", "--length", "20", "--steps", "3", "--warmup", "1", "--repeats", "1"],
    ),
    "default": dict(
        demo=dict(hidden=64, width=64, length=67, steps=20),
        # The README's speed-table run: the paper's workload, three interleaved rounds of 20 steps per model.
        benchmark=["--models", "lstm1:nojit,lstm2:nojit,lstm2:jit,stack:jit,stack:nojit,queue:jit,deque:jit"],
    ),
})

# %%
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import keras
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

# benchmarks/throughput.py, from the repository that holds this notebook.
ROOT = next(p for p in (pathlib.Path.cwd(), *pathlib.Path.cwd().parents) if (p / "benchmarks" / "throughput.py").exists())
sys.path.insert(0, str(ROOT / "benchmarks"))
import throughput  # noqa: E402

keras.utils.set_random_seed(0)
print("Keras", keras.__version__, "backend:", keras.backend.backend())

# %% [markdown]
# ## Is there a GPU?
#
# Ask each framework, not just the driver: TensorFlow and JAX each need a
# build with GPU support (for example `pip install tensorflow[and-cuda]` or
# `jax[cuda12]`) besides the NVIDIA driver.

# %%
import tensorflow as tf

print("nvidia-smi on PATH:", shutil.which("nvidia-smi") is not None)
print("TensorFlow GPUs:   ", tf.config.list_physical_devices("GPU"))
try:
    import jax

    print("JAX devices:       ", jax.devices())
except ImportError:
    print("JAX is not installed")
devices = keras.distribution.list_devices() if keras.backend.backend() == "jax" else [d.name for d in tf.config.list_logical_devices()]
print(f"devices of the {keras.backend.backend()} backend:", devices)
HAS_GPU = bool(tf.config.list_physical_devices("GPU")) or any("gpu" in str(d).lower() or "cuda" in str(d).lower() for d in devices)
print("GPU available:", HAS_GPU)

# %% [markdown]
# ## `jit_compile`
#
# Keras compiles the training step with XLA when `compile(jit_compile=True)`.
# The default, `jit_compile="auto"`, means: XLA on JAX always, and on
# TensorFlow only when a GPU is present. So on a CPU-only machine with
# TensorFlow, pass `jit_compile=True` to get XLA (what `neural-memory train`
# does). What `"auto"` resolves to here:

# %%
auto = throughput.build("stack", 16, 16, jit_compile="auto")
print(f"backend {keras.backend.backend()}, GPU {HAS_GPU}: jit_compile='auto' resolves to {auto.jit_compile}")

# %% [markdown]
# The same Stack-LSTM (the benchmark's `throughput.build`) compiled with and
# without XLA, with the same weights: the first training step includes the
# compilation; the rate is measured afterwards by the benchmark's
# `throughput.batches_per_second`. The predictions agree to float rounding.

# %%
demo = SETTINGS["demo"]
rng = np.random.default_rng(0)
batch = rng.integers(0, throughput.VOCAB, (10, demo["length"])).astype("int32")
models = {}
for jit in (True, False):
    keras.utils.set_random_seed(0)
    model = throughput.build("stack", demo["hidden"], demo["width"], jit_compile=jit)
    start = time.perf_counter()
    model.train_on_batch(batch, batch)
    first = time.perf_counter() - start
    rate = throughput.batches_per_second(model, 10, demo["length"], demo["steps"], rng)
    models[jit] = model
    print(f"jit_compile={jit!s:5s}: first step (with compilation) {first:5.1f} s, then {rate:6.2f} batches/s")
models[False].set_weights(models[True].get_weights())
difference = np.abs(models[True].predict(batch, verbose=0) - models[False].predict(batch, verbose=0)).max()
print(f"same weights: max |XLA - no XLA| over the logits = {difference:.2e}")

# %% [markdown]
# ## The throughput benchmark
#
# `benchmarks/throughput.py` builds every model, compiles it, then times
# them in interleaved rounds of `train_on_batch` steps and reports each
# model's median rate and its ratio to the fastest 2-layer LSTM variant
# measured. It runs here as a separate process, exactly as from the command
# line, and writes its results as JSON (`--record ""`: not into the
# repository's speed record, `docs/results/speed_runs.json`):

# %%
results_path = pathlib.Path(tempfile.mkdtemp()) / "throughput.json"
command = [sys.executable, str(ROOT / "benchmarks" / "throughput.py"), *SETTINGS["benchmark"], "--json", str(results_path), "--record", ""]
print("$", " ".join(["python", "benchmarks/throughput.py", *SETTINGS["benchmark"]]))
start = time.perf_counter()
run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
if run.returncode:
    print(run.stderr[-3000:])
    raise RuntimeError(f"throughput.py failed with exit status {run.returncode}")
print(run.stdout)
print(f"({time.perf_counter() - start:.0f} s)")

# %% [markdown]
# The same results from the JSON file, as a table and a plot of the ratios
# (a ratio below 1 is slower than the 2-layer LSTM):

# %%
report = json.loads(results_path.read_text())
results = report["results"]
base = max(r["batches_per_s"] for label, r in results.items() if label.startswith("lstm2 "))
rows = ["| model | batches/s | ratio to 2-layer LSTM | parameters |", "|---|---|---|---|"]
for label, r in results.items():
    rows.append(f"| {label} | {r['batches_per_s']:.2f} | {r['batches_per_s'] / base:.2f}x | {r['params']:,} |")
args = report["args"]
display(Markdown(
    f"backend `{report['backend']}`, batch {args['batch']}, joint length {args['length']}, hidden {args['hidden']}, "
    f"memory width {args['width']}, GPU available: {HAS_GPU}\n\n" + "\n".join(rows)
))

figure, axis = plt.subplots(figsize=(6.5, 3.2))
labels = list(results)
ratios = [results[label]["batches_per_s"] / base for label in labels]
axis.barh(labels, ratios, color=["0.6" if label.startswith("lstm") else "tab:blue" for label in labels])
axis.axvline(1.0, color="black", linewidth=0.8)
axis.invert_yaxis()
axis.set(xlabel="training throughput relative to the fastest 2-layer LSTM", title=f"{report['backend']} backend, {'GPU' if HAS_GPU else 'CPU only'}")
figure.tight_layout()
plt.show()

# %% [markdown]
# The README's speed table was made with the same command on the same
# machine at another time; set the two side by side to see how much a busy
# machine moves the rates and the ratios. On this CPU, XLA helps the memory
# models most: compare `stack (XLA)` with `stack (no XLA)` above.
#
# ## On a GPU
#
# Nothing in the package is CPU-specific. On a machine where the check above
# finds a GPU:
#
# * `jit_compile="auto"` (Keras' default) already turns XLA on, and
#   `neural-memory train` passes `jit_compile=True` anyway (`--no-jit-compile`
#   turns it off);
# * with several GPUs, `neural-memory train` runs data-parallel
#   (`tf.distribute.MirroredStrategy` on TensorFlow);
# * `MemoryRNN` compiles once per input length: keep batches padded to a few
#   lengths (`neural-memory train` pads to multiples of 16), as on a CPU;
# * run `python benchmarks/throughput.py` (or this notebook) there to get the
#   GPU's ratios; `KERAS_BACKEND=jax python benchmarks/throughput.py` for JAX.
