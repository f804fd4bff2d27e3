"""The strength update's cumulative sum: `memory._cumsum` against `ops.cumsum`.

Times one pop and one read-weight computation (`memory.pop`,
`memory.read_weights`, from the top), forward and backward, 100 steps in a
`jax.lax.scan` under XLA, batch 10, for each way of taking the cumulative
sum over the slots. Best of 5.

Usage:
    KERAS_BACKEND=jax python benchmarks/cumsum.py --slots 262,1027
"""

import argparse
import os
import time

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

from keras_neural_memory import memory  # noqa: E402


def time_per_step(function, slots, steps=100, repeats=5):
    x = jax.numpy.asarray(np.random.default_rng(0).random((10, slots), dtype="float32"))

    def body(strengths, _):
        return 0.5 * function(strengths) + 0.5 * strengths, None

    gradient = jax.jit(jax.grad(lambda x: jax.lax.scan(body, x, None, length=steps)[0].sum()))
    gradient(x).block_until_ready()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        gradient(x).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return best / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", default="262,1027")
    args = parser.parse_args()
    package_cumsum = memory._cumsum
    ways = {"memory._cumsum": package_cumsum, "ops.cumsum": lambda x: ops.cumsum(x, axis=-1)}
    operations = {
        "pop": lambda s: memory.pop(s, s[:, :1], "top"),
        "read_weights": lambda s: memory.read_weights(s, "top"),
    }
    print("| slots | operation | " + " | ".join(f"{way} (us/step)" for way in ways) + " |")
    print("|---|---|" + "---|" * len(ways))
    for slots in [int(n) for n in args.slots.split(",")]:
        for name, operation in operations.items():
            cells = []
            for way in ways.values():
                memory._cumsum = way
                cells.append(f"{time_per_step(operation, slots) * 1e6:.0f}")
            memory._cumsum = package_cumsum
            print(f"| {slots} | {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
