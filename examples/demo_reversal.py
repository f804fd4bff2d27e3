"""Demo: a Stack-LSTM learns to reverse strings, and generalises to longer ones.

Each example is `w # # ... #` (one `#` per symbol of `w`); the model must
output `reverse(w)` at the `#` positions (the delayed-output form of Hao et
al. 2018, §4.1). Trains on lengths 2-8, tests on lengths 9-16, and prints
per-symbol and whole-string accuracy for a Stack-LSTM and for a plain LSTM.

Run: python examples/demo_reversal.py [--epochs 15] [--seed 0]
"""

import argparse

import keras
import numpy as np

from keras_neural_memory import MemoryRNN, StackCell

ALPHABET = 4  # symbols 1..4; 0 pads, 5 is the "#" delay marker
MARK = ALPHABET + 1
VOCAB = ALPHABET + 2


def reversal_data(n, min_len, max_len, seed):
    """`(inputs, targets, weights)`; weights are 1 at the scored `#` positions."""
    rng = np.random.default_rng(seed)
    total = 2 * max_len
    inputs = np.zeros((n, total), "int32")
    targets = np.zeros((n, total), "int32")
    weights = np.zeros((n, total), "float32")
    for i in range(n):
        length = int(rng.integers(min_len, max_len + 1))
        word = rng.integers(1, ALPHABET + 1, length)
        inputs[i, :length] = word
        inputs[i, length : 2 * length] = MARK
        targets[i, length : 2 * length] = word[::-1]
        weights[i, length : 2 * length] = 1.0
    return inputs, targets, weights


def build_model(memory=True, units=32, seed=0):
    keras.utils.set_random_seed(seed)
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 16, mask_zero=True)(inputs)
    if memory:
        x = MemoryRNN(StackCell(keras.layers.LSTMCell(units), memory_width=8), return_sequences=True)(x)
    else:
        x = keras.layers.LSTM(units, return_sequences=True)(x)
    model = keras.Model(inputs, keras.layers.Dense(VOCAB)(x))
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=["accuracy"],
    )
    return model


def evaluate(model, inputs, targets, weights):
    """Per-symbol accuracy and whole-string accuracy on the scored positions."""
    predicted = np.argmax(model.predict(inputs, verbose=0, batch_size=64), axis=-1)
    right = (predicted == targets) | (weights == 0)
    symbol = float(((predicted == targets) * weights).sum() / weights.sum())
    return symbol, float(right.all(axis=1).mean())


def train_and_evaluate(memory=True, epochs=15, seed=0, verbose=0):
    """Trains on lengths 2-8; returns accuracies at lengths 2-8 and 9-16."""
    model = build_model(memory=memory, seed=seed)
    x, y, w = reversal_data(2000, 2, 8, seed)
    model.fit(x, y, sample_weight=w, batch_size=32, epochs=epochs, verbose=verbose)
    return {
        "train_lengths": evaluate(model, *reversal_data(500, 2, 8, seed + 1)),
        "test_lengths": evaluate(model, *reversal_data(500, 9, 16, seed + 2)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, memory in (("Stack-LSTM", True), ("LSTM", False)):
        results = train_and_evaluate(memory=memory, epochs=args.epochs, seed=args.seed, verbose=2)
        for split, (symbol, string) in results.items():
            print(f"{name:10s} {split:13s} symbol accuracy {symbol:.3f}  string accuracy {string:.3f}")


if __name__ == "__main__":
    main()
