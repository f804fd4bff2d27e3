"""`StrengthNoiseScheduler`: the memory cells' `strength_noise`, epoch by epoch."""

import math
import numbers

import keras

from keras_neural_memory.validation import InvalidArgumentError


class StrengthNoiseScheduler(keras.callbacks.Callback):
    """Sets the standard deviation of the memory cells' strength noise at each epoch.

    The noise that `strength_noise` adds to every push and pop logit while
    training drives the strengths towards 0 and 1. Like
    `keras.callbacks.LearningRateScheduler` for the learning rate, this
    callback lets it change during training: for instance noise for the
    first epochs, to settle the strengths, then none, so that the
    controller learns on the memory it will have at inference.

    At the start of every epoch it calls `schedule(epoch, noise)` with the
    noise in force for each layer of the model that was built with
    `strength_noise > 0`, and sets the result on it (a `MemoryCell` inside a `MemoryRNN`,
    or a `BufferedStackRNN` and its stack). The noise is read when Keras
    traces the training step, so a change rebuilds that step
    (`model.make_train_function(force=True)`): one more compilation per
    change, none for an epoch that keeps the noise. A run resumed at a
    later epoch (`keras.callbacks.BackupAndRestore`) gets that epoch's
    noise. Inference never adds noise, whatever the schedule.

    Only layers built with noise can have it: a cell built with
    `strength_noise=0` has no random seed state to draw it from. A model
    saves as training left it, so one saved after the schedule turned the
    noise off loads with `strength_noise=0`.

    Args:
        schedule: A function `(epoch, noise) -> noise`, where `epoch`
            counts from 0 and `noise` is the standard deviation in force
            (the layers' own `strength_noise` at the first epoch). It must
            return a finite number >= 0.
        verbose: 0 (quiet) or 1 (print each change).

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import DequeCell, MemoryRNN, StrengthNoiseScheduler

    model = keras.Sequential([
        keras.Input((None, 4)),
        MemoryRNN(DequeCell(keras.layers.LSTMCell(8), memory_width=4, strength_noise=0.5)),
        keras.layers.Dense(1),
    ])
    model.compile("rmsprop", "mse")
    # Noise 0.5 for the first 2 epochs, then none.
    noise_off = StrengthNoiseScheduler(lambda epoch, noise: 0.5 if epoch < 2 else 0.0)
    x, y = np.zeros((8, 5, 4), "float32"), np.zeros((8, 1), "float32")
    model.fit(x, y, epochs=3, callbacks=[noise_off], verbose=0)
    assert model.layers[0].cell.strength_noise == 0.0
    ```
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        if not callable(schedule):
            raise InvalidArgumentError(
                f"`schedule` must be a function (epoch, noise) -> noise; received {schedule!r}. "
                "Pass e.g. lambda epoch, noise: 0.5 if epoch < 10 else 0.0"
            )
        if verbose not in (0, 1):
            raise InvalidArgumentError(f"`verbose` must be 0 or 1; received {verbose!r}")
        self.schedule = schedule
        self.verbose = verbose

    def _noisy_layers(self):
        """The layers of the model that were built with strength noise."""
        return [layer for layer in self.model._flatten_layers(include_self=False) if getattr(layer, "strength_noise", 0)
                or getattr(layer, "_built_with_strength_noise", False)]  # fmt: skip

    def on_train_begin(self, logs=None):
        self._layers = self._noisy_layers()
        if not self._layers:
            raise InvalidArgumentError(
                "StrengthNoiseScheduler: the model has no memory layer built with strength_noise > 0; "
                "build its memory cell with strength_noise=STDDEV, or leave the callback out"
            )
        for layer in self._layers:
            # Remembered, so that a schedule that turned the noise off can turn it on again.
            layer._built_with_strength_noise = True

    def on_epoch_begin(self, epoch, logs=None):
        changed = False
        for layer in self._layers:
            current = layer.strength_noise
            noise = self.schedule(epoch, current)
            if isinstance(noise, bool) or not isinstance(noise, numbers.Real) or not math.isfinite(noise) or noise < 0:
                raise InvalidArgumentError(
                    f"StrengthNoiseScheduler: schedule({epoch}, {current}) returned {noise!r}; "
                    "it must return a finite number >= 0"
                )
            changed |= float(noise) != current
            layer.strength_noise = float(noise)
        if changed:
            self.model.make_train_function(force=True)
            if self.verbose:
                noises = ", ".join(sorted({f"{layer.strength_noise:g}" for layer in self._layers}))
                print(f"\nEpoch {epoch + 1}: StrengthNoiseScheduler setting strength noise to {noises}.")
