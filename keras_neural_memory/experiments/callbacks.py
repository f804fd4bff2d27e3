"""Keras callbacks of a training run that must survive being killed."""

import csv
import io
import math
import pathlib
import time

import keras

from keras_neural_memory.experiments.files import write_atomically


class EpochHistory(keras.callbacks.Callback):
    """Keeps one row of logs per epoch in a CSV file, atomically.

    Unlike `keras.callbacks.CSVLogger(append=True)`, a resumed run does not
    duplicate epochs: rows from `first_epoch` on (epochs the run is about to
    train again) are dropped when training begins, and the whole file is
    rewritten atomically after each epoch, so it is never half-written.
    Each row also holds the epoch's wall-clock time in seconds
    ("epoch_seconds"), so a run resumed over several processes knows its
    whole training time. It is counted from the epoch's start to the end of
    its validation pass, if any, so it includes any time the process was
    paused (e.g. by SIGSTOP) and leaves out building the model, the
    backups written after each epoch and the final evaluation.

    Args:
        path: The CSV file.
        first_epoch: The epoch training starts from (0 for a new run).
    """

    def __init__(self, path, first_epoch=0):
        super().__init__()
        self.path = pathlib.Path(path)
        self.first_epoch = first_epoch
        self.rows = []
        self.epoch_start = None

    def on_train_begin(self, logs=None):
        self.rows = []
        if self.path.is_file():
            with open(self.path, newline="") as f:
                self.rows = [row for row in csv.DictReader(f) if int(row["epoch"]) < self.first_epoch]

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch_start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.rows = [row for row in self.rows if int(row["epoch"]) < epoch]
        row = {"epoch": epoch, **{key: float(value) for key, value in (logs or {}).items()}}
        if self.epoch_start is not None:
            row["epoch_seconds"] = round(time.perf_counter() - self.epoch_start, 3)
        self.rows.append(row)
        keys = list(dict.fromkeys(key for row in self.rows for key in row))
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=keys, restval="NA", lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        write_atomically(self.path, text.getvalue())


class StopWhenLearned(keras.callbacks.Callback):
    """Stops training once a metric reaches a threshold at consecutive epochs.

    The convergence rule of the reproduction: training coarse accuracy at
    least `threshold` at `patience` consecutive epochs. Earlier epochs of a
    resumed run count, read from the `EpochHistory` file.

    Args:
        history_path: The `EpochHistory` CSV file of the run.
        threshold: The value to reach.
        monitor: The logged metric (default `"coarse_accuracy"`).
        patience: Consecutive epochs at or above `threshold` (default 2).
    """

    def __init__(self, history_path, threshold, monitor="coarse_accuracy", patience=2):
        super().__init__()
        self.history_path = pathlib.Path(history_path)
        self.threshold = threshold
        self.monitor = monitor
        self.patience = patience
        self.streak = 0

    def on_train_begin(self, logs=None):
        self.streak = 0
        if self.history_path.is_file():
            with open(self.history_path, newline="") as f:
                for row in csv.DictReader(f):
                    self._count(float(row.get(self.monitor, "nan")))

    def _count(self, value):
        self.streak = self.streak + 1 if math.isfinite(value) and value >= self.threshold else 0

    def on_epoch_end(self, epoch, logs=None):
        self._count(float((logs or {}).get(self.monitor, math.nan)))
        if self.streak >= self.patience:
            self.model.stop_training = True
