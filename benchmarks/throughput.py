"""Training throughput of the memory-augmented LSTMs against plain LSTMs.

Measures training batches per second, all models in one run on one backend,
on the paper's workload: batch 10, joint sequence length 131 (source length
64), hidden size 256, memory width 256, 64-d embeddings. Prints each model's
rate and its ratio to the parameter-matched baseline, a 2-layer
`keras.layers.LSTM(256)` (the paper's Appendix D). A model name may end in
`:jit` or `:nojit` to override `--jit-compile` for it; the ratio is taken
against the fastest 2-layer LSTM variant measured, so that a memory model
under XLA is never compared with a baseline slowed down by XLA.

Every run adds a row to the speed record, `docs/results/speed_runs.json`
(`--record`; `speed_tables.py` describes it and writes the speed page from
it): the machine, the versions, and each model's rate in every round.

Usage:
    python benchmarks/throughput.py                       # TensorFlow, XLA
    KERAS_BACKEND=jax python benchmarks/throughput.py
    python benchmarks/throughput.py --models lstm2,lstm2:nojit,stack,stack:nojit
"""

import argparse
import json
import time

import keras
import numpy as np

from keras_neural_memory import DequeCell, MemoryRNN, QueueCell, StackCell
from speed_tables import RECORD, add_run

VOCAB = 132


def build(kind, hidden, width, jit_compile):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 64)(inputs)
    if kind.startswith("lstm"):
        for _ in range(int(kind[-1])):
            x = keras.layers.LSTM(hidden, return_sequences=True)(x)
    else:
        cell = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}[kind]
        x = MemoryRNN(cell(keras.layers.LSTMCell(hidden), memory_width=width), return_sequences=True)(x)
    model = keras.Model(inputs, keras.layers.Dense(VOCAB)(x))
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    return model


def batches_per_second(model, batch, length, steps, rng):
    """Rate of `steps` training steps (`train_on_batch`), after compilation.

    `train_on_batch` on prepared arrays times the training step alone. On
    a 2-core CPU `fit`'s `tf.data` threads compete with XLA's, which
    made rates jump between runs of the same model.
    """
    batches = rng.integers(0, VOCAB, (steps, batch, length)).astype("int32")
    start = time.perf_counter()
    for x in batches:
        model.train_on_batch(x, x)
    return steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="lstm1,lstm2,stack,queue,deque")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--length", type=int, default=131)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument(
        "--repeats", type=int, default=3, help="rounds over all models; the median rate is reported"
    )
    parser.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--record", default=RECORD, help="the speed record to add this run's row to ('' for none)")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    models, rates = {}, {}
    for name in args.models.split(","):
        kind, _, mode = name.partition(":")
        jit_compile = {"jit": True, "nojit": False, "": args.jit_compile}[mode]
        label = f"{kind} ({'XLA' if jit_compile else 'no XLA'})"
        models[label] = build(kind, args.hidden, args.width, jit_compile)
        batches_per_second(models[label], args.batch, args.length, args.warmup, rng)  # compile
        rates[label] = []
    # Rounds interleave the models, so that a slow spell of the machine
    # does not fall on one model only.
    for _ in range(args.repeats):
        for label, model in models.items():
            rates[label].append(batches_per_second(model, args.batch, args.length, args.steps, rng))
    results = {}
    for label, model in models.items():
        rate = float(np.median(rates[label]))
        results[label] = {"batches_per_s": rate, "all_rates": rates[label], "params": model.count_params()}
        spread = ", ".join(f"{r:.2f}" for r in rates[label])
        print(f"{label:20s} {rate:7.2f} batches/s (rounds: {spread})  params={model.count_params():,}", flush=True)
    baselines = [r["batches_per_s"] for label, r in results.items() if label.startswith("lstm2 ")]
    base = max(baselines) if baselines else None
    print(
        f"\nbackend={keras.backend.backend()} batch={args.batch} length={args.length} "
        f"steps={args.steps} repeats={args.repeats} (median)"
    )
    print("| model | batches/s | ratio to 2-layer LSTM | parameters |\n|---|---|---|---|")
    for kind, r in results.items():
        ratio = f"{r['batches_per_s'] / base:.2f}x" if base else "n/a"
        print(f"| {kind} | {r['batches_per_s']:.2f} | {ratio} | {r['params']:,} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": keras.backend.backend(), "args": vars(args), "results": results}, f, indent=2)
    add_run(args.record, "throughput", args, results)


if __name__ == "__main__":
    main()
