"""Training speed and peak training memory against sequence length.

For each model and each joint length T, a fresh process builds the model
(batch 10, hidden 256, memory width 256, 64-d embeddings, XLA), compiles one
training step (`train_on_batch`), then times `--steps` steps. Peak memory is
the process's peak resident set size, so each model's figure is its own. The
table gives each model's step time and peak memory, and both as ratios to
the parameter-matched baseline, the 2-layer `keras.layers.LSTM(256)`,
measured in the same run. Every run adds a row to the speed record,
`docs/results/speed_runs.json` (`--record`; see `speed_tables.py`).

Models: `lstm2`; `stack`, `queue`, `deque` (a `MemoryRNN` over an
`LSTMCell(256)`, fused scan); append `:generic` for the same model on Keras'
generic RNN loop (`MemoryRNN(..., fused=False)`).

Usage:
    KERAS_BACKEND=jax python benchmarks/memory_scan.py --lengths 131,1027
    python benchmarks/memory_scan.py --models lstm2,stack,stack:generic --lengths 131
"""

import argparse
import json
import os
import subprocess
import sys
import time

from speed_tables import RECORD, add_run

VOCAB = 132


def measure(name, length, batch, hidden, width, steps):
    """Runs in the child process: one model, one length."""
    import resource

    import keras
    import numpy as np

    from keras_neural_memory import DequeCell, MemoryRNN, QueueCell, StackCell

    kind, _, path = name.partition(":")
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 64)(inputs)
    if kind == "lstm2":
        for _ in range(2):
            x = keras.layers.LSTM(hidden, return_sequences=True)(x)
    else:
        cell = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}[kind]
        layer = MemoryRNN(cell(keras.layers.LSTMCell(hidden), memory_width=width), return_sequences=True, fused=path != "generic")
        x = layer(x)
    model = keras.Model(inputs, keras.layers.Dense(VOCAB)(x))
    model.compile(
        optimizer=keras.optimizers.RMSprop(1e-3, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=True,
    )
    rng = np.random.default_rng(0)
    batches = rng.integers(0, VOCAB, (steps + 1, batch, length)).astype("int32")
    model.train_on_batch(batches[0], batches[0])  # compile
    start = time.perf_counter()
    for b in batches[1:]:
        model.train_on_batch(b, b)
    seconds = (time.perf_counter() - start) / steps
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds_per_step": seconds, "peak_mib": peak_mib, "params": model.count_params()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="lstm2,stack,queue,deque")
    parser.add_argument("--lengths", default="131,259,515,1027,2051")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per model and length")
    parser.add_argument("--json", help="also write the results to this JSON file")
    parser.add_argument("--record", default=RECORD, help="the speed record to add this run's row to ('' for none)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        name, length = args.child.rsplit("@", 1)
        result = measure(name, int(length), args.batch, args.hidden, args.width, args.steps)
        print("RESULT " + json.dumps(result), flush=True)
        return

    import keras

    backend = keras.backend.backend()
    results = {}
    for length in [int(n) for n in args.lengths.split(",")]:
        for name in args.models.split(","):
            command = [
                sys.executable, __file__, "--child", f"{name}@{length}", "--batch", str(args.batch),
                "--hidden", str(args.hidden), "--width", str(args.width), "--steps", str(args.steps),
            ]  # fmt: skip
            run = subprocess.run(command, capture_output=True, text=True, env=os.environ)
            lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
            if run.returncode or not lines:
                tail = (run.stderr or "").strip().splitlines()[-1:] or ["no output"]
                results[f"{name}@{length}"] = {"error": tail[0]}
                print(f"{name:14s} T={length:5d}  failed: {tail[0]}", flush=True)
                continue
            result = json.loads(lines[0][len("RESULT ") :])
            results[f"{name}@{length}"] = result
            print(
                f"{name:14s} T={length:5d}  {result['seconds_per_step']:.3f} s/step  "
                f"{result['peak_mib']:,.0f} MiB peak",
                flush=True,
            )
    print(f"\nbackend={backend} batch={args.batch} hidden={args.hidden} width={args.width} steps={args.steps}")
    print("| model | T | s/step | peak MiB | speed vs 2-layer LSTM | memory vs 2-layer LSTM |")
    print("|---|---|---|---|---|---|")
    for key, result in results.items():
        name, length = key.rsplit("@", 1)
        base = results.get(f"lstm2@{length}", {})
        if "error" in result:
            print(f"| {name} | {length} | failed | | | |")
            continue
        speed = memory = "n/a"
        if "seconds_per_step" in base:
            speed = f"{base['seconds_per_step'] / result['seconds_per_step']:.2f}x"
            memory = f"{result['peak_mib'] / base['peak_mib']:.2f}x"
        print(f"| {name} | {length} | {result['seconds_per_step']:.3f} | {result['peak_mib']:,.0f} | {speed} | {memory} |")
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"backend": backend, "args": vars(args), "results": results}, f, indent=2)
        os.replace(tmp, args.json)
    add_run(args.record, "memory_scan", args, results)


if __name__ == "__main__":
    main()
