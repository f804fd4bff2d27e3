"""A run's folder, from its first epoch to `evaluate`: `RunFolder`, and `load_run` to read one back.

`train` keeps everything of a run in one folder:

* `settings.json`: the run's `RunConfig.settings`, written when it starts;
* `history.csv`: one row per finished epoch (`callbacks.EpochHistory`);
* `backup/`: the last finished epoch (`keras.callbacks.BackupAndRestore`),
  until the run has finished;
* `segments.json`: where and when each process that trained it started;
* `model.keras` and `results.json`: the finished run.

Every file appears whole or not at all: it is written under a temporary
name in the same folder, then renamed over the old one (`os.replace` is
atomic), so a kill at any moment, or a full disk, leaves the previous file
or the new one. One process trains a folder at a time, under its lock.

Example:

```python
from keras_neural_memory.experiments.run_folder import RunFolder, load_run

run = RunFolder("runs/sequence_copy-stack-quick")
run.backed_up_epochs()  # epochs trained by a run under way (0 if none)
loaded = load_run(run.path)  # a finished run, or one under way from its backup
loaded.model, loaded.record["task"], loaded.epoch
```
"""

import contextlib
import csv
import dataclasses
import datetime
import json
import pathlib
import shutil
import tempfile
import time
import zipfile

from keras_neural_memory.experiments import chomsky
from keras_neural_memory.experiments.config import RunConfig, UsageError
from keras_neural_memory.experiments.files import (  # noqa: F401  (the helpers a run's folder is written with)
    atomic_path,
    is_full_disk,
    locked,
    save_model_atomically,
    writable_dir,
    write_atomically,
)

#: The files and folders of a run, in its folder.
SETTINGS_FILE = "settings.json"
HISTORY_FILE = "history.csv"
SEGMENTS_FILE = "segments.json"
MODEL_FILE = "model.keras"
RESULTS_FILE = "results.json"
BACKUP_DIR = "backup"
LOGS_DIR = "logs"
#: The settings a run under way may change when it resumes: how long it may train, when it stops,
#: and how many examples measure it at the end. None of them changes an epoch already trained.
BUDGET_SETTINGS = ("epochs", "stop_at_coarse", "eval_examples", "eval_max_length", "eval_sequences")
# A run under way rewrites its backup after every epoch; a read that meets a
# write is tried again this often, this many seconds apart.
BACKUP_READ_ATTEMPTS = 5
BACKUP_READ_PAUSE_SECONDS = 1.0
# `keras.callbacks.BackupAndRestore` writes these into the backup folder, and
# keeps the previous pair beside them (suffix ".bkp") in case the latest is cut short.
_BACKUP_WEIGHTS = "latest.weights.h5"
_BACKUP_METADATA = "training_metadata.json"
_PREVIOUS = ".bkp"


class RunError(Exception):
    """A run that cannot go on for want of disk space or memory, whatever its options.

    `neural-memory` prints it on one line and exits with status 1; the
    run's files are as they were before the failure.
    """


def read_history(path):
    """Every epoch's logs from a `history.csv`, the last row of each epoch winning.

    Returns:
        `{metric: [value per epoch]}`, without metrics some epoch did not log.
    """
    if not pathlib.Path(path).is_file():
        return {}
    with open(path, newline="") as f:
        rows = {int(row.pop("epoch")): row for row in csv.DictReader(f)}
    epochs = sorted(rows)
    # "NA" marks a metric an epoch did not log.
    keys = [key for key in (rows[epochs[0]] if epochs else ()) if all(rows[e][key] != "NA" for e in epochs)]
    return {key: [float(rows[epoch][key]) for epoch in epochs] for key in keys}


def _as_current(recorded):
    """Settings read from a run's files, as `RunConfig.settings` writes them now; None if they are not settings."""
    try:
        current = RunConfig.from_settings(recorded).settings()
    except (TypeError, KeyError, ValueError):
        return None
    # A protocol's version is the one the run trained with: reading its settings never upgrades it.
    current.pop("protocol_version", None)
    if "protocol_version" in recorded:
        current["protocol_version"] = recorded["protocol_version"]
    return current


def _without_budget(settings):
    return {key: value for key, value in settings.items() if key not in BUDGET_SETTINGS}


def _read_json(path):
    """The JSON in `path`; None if it is missing, or cut short (it was being written when the disk filled)."""
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None


class RunFolder:
    """The folder of one run of `train`, and everything it holds (see the module's docstring).

    `train` holds it (`held`), finds where its run stands (`resume`), starts
    or resumes it there (`begin`), and ends with `finish`; `load` reads the
    run back, finished or under way.

    Args:
        path: The folder.

    Example:

    ```python
    run = RunFolder.create("runs/demo")
    with run.held():
        finished, first_epoch = run.resume(settings)
        if finished is None:
            segments = run.begin(settings, first_epoch, "tensorflow, 1 x CPU")
            ...  # train, from `first_epoch`
            run.finish(model, results)
    ```
    """

    def __init__(self, path):
        self.path = pathlib.Path(path)

    @classmethod
    def create(cls, path, flag="--output-dir"):
        """The `RunFolder` at `path`, created if needed.

        Raises:
            UsageError: `path` cannot be created or written (naming `flag`).
        """
        return cls(writable_dir(path, flag))

    def __repr__(self):
        return f"RunFolder({str(self.path)!r})"

    @property
    def settings_path(self):
        return self.path / SETTINGS_FILE

    @property
    def history_path(self):
        return self.path / HISTORY_FILE

    @property
    def segments_path(self):
        return self.path / SEGMENTS_FILE

    @property
    def model_path(self):
        return self.path / MODEL_FILE

    @property
    def results_path(self):
        return self.path / RESULTS_FILE

    @property
    def backup_path(self):
        return self.path / BACKUP_DIR

    @property
    def logs_path(self):
        return self.path / LOGS_DIR

    @contextlib.contextmanager
    def held(self):
        """Holds the folder for one training process, and ends a run the disk cannot hold on one line.

        Two processes on one run would overwrite each other's backups and
        history, so a folder that another process holds is refused at
        once. Within the block, an `OSError` of a full disk becomes a
        `RunError` naming the file: every file the run has finished is
        whole (they are written atomically, the backup beside its previous
        one), so the same command resumes the run once there is space.

        Raises:
            UsageError: Another process holds the folder.
            RunError: The disk filled up within the block.
        """
        busy = UsageError(
            f"{str(self.path)!r} is being trained by another process; wait for it to finish, or pass another --output-dir"
        )
        with locked(self.settings_path, busy=busy):
            try:
                yield self
            except OSError as error:
                if not is_full_disk(error):
                    raise
                # shutil.copy names its source first, the file it could not write second.
                name = error.filename2 or error.filename or self.path
                raise RunError(f"no space left on the device for {str(name)!r}; nothing finished is lost, and the "
                               "same command resumes the run once space is freed") from None  # fmt: skip

    def forget(self):
        """Removes the run, finished or under way, so that it trains again from the start."""
        for path in (self.results_path, self.history_path, self.segments_path, self.settings_path,
                     self.path / chomsky.PROGRESS_FILE):  # fmt: skip
            path.unlink(missing_ok=True)
        shutil.rmtree(self.backup_path, ignore_errors=True)

    def resume(self, settings, overwrite=False):
        """Where the run of `settings` stands in the folder: `(finished results or None, epochs backed up)`.

        With `overwrite`, the folder's run is forgotten first (`forget`).
        A finished run's results are those of `finished`; a run under way
        resumes after its `backed_up_epochs`.

        Raises:
            UsageError: The folder holds a finished run of other settings.
        """
        if overwrite:
            self.forget()
        finished = self.finished(settings)
        return finished, (0 if finished is not None else self.backed_up_epochs())

    def begin(self, settings, first_epoch, device):
        """Claims the folder for `settings` (`claim`), says where the run resumes, and records this process's segment.

        Returns:
            Every segment of the run (`record_segment`).
        """
        self.claim(settings, first_epoch)
        if first_epoch:
            print(self.resume_message(first_epoch), flush=True)
        return self.record_segment(first_epoch, device)

    def finished(self, settings):
        """The results of the finished run of `settings` in the folder, as `train` wrote them; else None.

        Args:
            settings: `RunConfig.settings()` of a resolved config.

        Returns:
            The results dict with "output_dir" added, or None when the
            folder has no `results.json`.

        Raises:
            UsageError: The folder holds a finished run of other settings.
        """
        if not self.results_path.is_file():
            return None
        results = json.loads(self.results_path.read_text())
        if _as_current(results.get("settings")) != settings:
            raise UsageError(
                f"{str(self.path)!r} holds a finished run with other settings; pass another --output-dir, "
                "or --overwrite to replace it"
            )
        return {**results, "output_dir": str(self.path)}

    def backed_up_epochs(self):
        """Epochs the run under way has backed up, where it resumes (0 for a new run).

        Read from the metadata `keras.callbacks.BackupAndRestore` writes
        with its backup. A backup whose metadata was cut short (by a full
        disk) is replaced by the previous one, so that the run resumes from
        that, or from the start if there is none.
        """
        metadata = self.backup_path / _BACKUP_METADATA
        if not metadata.exists():
            return 0
        recorded = _read_json(metadata)
        if isinstance(recorded, dict) and "epoch" in recorded:
            return recorded["epoch"]
        previous = _read_json(f"{metadata}{_PREVIOUS}")
        weights = self.backup_path / _BACKUP_WEIGHTS
        if isinstance(previous, dict) and "epoch" in previous and pathlib.Path(f"{weights}{_PREVIOUS}").is_file():
            shutil.copyfile(f"{weights}{_PREVIOUS}", weights)
            shutil.copyfile(f"{metadata}{_PREVIOUS}", metadata)
            return previous["epoch"]
        shutil.rmtree(self.backup_path)
        return 0

    def resume_message(self, first_epoch):
        """What `train` says when it resumes after `first_epoch` epochs, numbered as `history.csv` numbers them, from 0."""
        if first_epoch == 1:
            return f"resuming after 1 finished epoch (epoch 0 in history.csv) from {self.backup_path}"
        return (f"resuming after {first_epoch} finished epochs (epochs 0-{first_epoch - 1} in history.csv) "
                f"from {self.backup_path}")  # fmt: skip

    def claim(self, settings, first_epoch):
        """Writes `settings` to `settings.json`, refusing a folder whose run under way has others.

        Resuming another run's backup would mix two runs in one history. Only
        the `BUDGET_SETTINGS` may differ, so that a run under way can be given
        more epochs (or fewer, down to those it has trained) without starting
        again. The file also lets `load` rebuild a run that has not
        finished. Folders of runs started before the file existed are
        claimed as they are.

        Args:
            settings: `RunConfig.settings()` of the run to train there.
            first_epoch: Epochs the run under way has backed up (`backed_up_epochs`).

        Raises:
            UsageError: The folder holds a run under way with other settings,
                or one that has trained more epochs than `settings` allow.
        """
        if self.settings_path.is_file():
            recorded = _as_current(json.loads(self.settings_path.read_text()))
            if recorded is None or _without_budget(recorded) != _without_budget(settings):
                raise UsageError(
                    f"{str(self.path)!r} holds a run under way with other settings ({SETTINGS_FILE}); pass another "
                    "--output-dir, or --overwrite to start it again"
                )
            if settings["epochs"] < first_epoch:
                raise UsageError(
                    f"{str(self.path)!r} holds a run under way that has trained {first_epoch} epochs; pass --epochs "
                    f"{first_epoch} or more to resume it, or --overwrite to start it again"
                )
            for key in BUDGET_SETTINGS:
                if recorded.get(key) != settings.get(key):
                    print(f"note: {key} of the run under way in {self.path} changes from {recorded.get(key)} to "
                          f"{settings.get(key)}", flush=True)  # fmt: skip
        write_atomically(self.settings_path, json.dumps(settings, indent=2))

    def record_segment(self, first_epoch, device):
        """Adds this process's start (epoch, `device`, time) to `segments.json`; returns all the segments.

        A run may be resumed on other machines; its results say which trained
        which epochs (a segment runs from its first epoch to the next's).
        Segments from `first_epoch` on, whose epochs are trained again, go.
        """
        segments = json.loads(self.segments_path.read_text()) if self.segments_path.is_file() else []
        segments = [segment for segment in segments if segment["first_epoch"] < first_epoch]
        segments.append({
            "first_epoch": first_epoch,
            "device": device,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        })
        write_atomically(self.segments_path, json.dumps(segments, indent=2))
        return segments

    def history(self):
        """The run's `history.csv`, as `read_history` reads it."""
        return read_history(self.history_path)

    def save_model(self, model):
        """Writes the trained `model` to `model.keras`, atomically."""
        save_model_atomically(model, self.model_path)

    def finish(self, model, results):
        """Writes `model.keras`, then `results.json` (each atomically), then removes the backup: the run is finished.

        Returns:
            `results` with "output_dir" added, as `train` returns them.
        """
        self.save_model(model)
        write_atomically(self.results_path, json.dumps(results, indent=2))
        shutil.rmtree(self.backup_path, ignore_errors=True)
        return {**results, "output_dir": str(self.path)}

    def load(self):
        """The run in the folder, finished or not, as a `LoadedRun`.

        A finished run is its `model.keras` and `results.json`. A folder
        without `model.keras` (a run under way, or stopped before it
        finished) gives its model rebuilt from `settings.json`, with the
        weights of its last backed-up epoch, so a long run can be inspected
        while it trains.

        Raises:
            UsageError: Nothing in the folder to load.
        """
        if not self.model_path.exists() and self.settings_path.is_file():
            return self._load_backup()
        return load_run(self.model_path)

    def record(self):
        """What the run recorded: its `results.json`; else `{"settings": ..., **settings}` from `settings.json`; else `{}`.

        Raises:
            UsageError: `results.json` is not valid JSON.
        """
        if self.results_path.is_file():
            try:
                return json.loads(self.results_path.read_text())
            except json.JSONDecodeError:
                raise UsageError(f"{str(self.results_path)!r} is not valid JSON; remove it, and pass --task and --scale") from None
        if self.settings_path.is_file():  # a run that has not finished
            return self._settings_record()
        return {}

    def _settings_record(self):
        settings = json.loads(self.settings_path.read_text())
        return {"settings": settings, **settings}

    def _load_backup(self):
        """`load` for a run that has `settings.json` and no `model.keras`."""

        backup = self.backup_path
        if not any(backup.glob(f"{_BACKUP_METADATA}*")):
            raise UsageError(f"{str(self.path)!r} holds a run without a backed-up epoch; evaluate it after its first epoch")
        record = self._settings_record()
        config = RunConfig.from_settings(record["settings"])
        model = config.protocol.build_model(config.protocol.task_setup(config), config)
        for attempt in range(BACKUP_READ_ATTEMPTS):
            if attempt:
                time.sleep(BACKUP_READ_PAUSE_SECONDS)
            for suffix in ("", _PREVIOUS):
                weights = backup / f"{_BACKUP_WEIGHTS}{suffix}"
                epoch = _load_backup_weights(model, weights, backup / f"{_BACKUP_METADATA}{suffix}")
                if epoch is not None:
                    return LoadedRun(model, record, self.path, weights, epoch)
        raise UsageError(f"could not read the backup in {str(backup)!r} (it is being written, or is damaged); try again")


@dataclasses.dataclass(frozen=True)
class LoadedRun:
    """A run read back by `load_run`.

    Attributes:
        model: The Keras model.
        record: What the run recorded (`RunFolder.record`): its
            `results.json`; `{"settings": ..., **settings}` for a run that
            has not written one; `{}` for a `model.keras` alone.
        folder: The run's folder (that of the `model.keras` loaded).
        path: The file loaded: `model.keras`, or the backed-up weights of
            a run that has not finished.
        epoch: For a run that has not finished, the epochs its backup
            holds; None for a `model.keras`.
    """

    model: object
    record: dict
    folder: pathlib.Path
    path: pathlib.Path
    epoch: int | None = None

    @property
    def source(self):
        """What was loaded, in words: the file, and for a backup the epoch it holds."""
        if self.epoch is None:
            return str(self.path)
        return f"{self.path} (after epoch {self.epoch}; the run has not finished)"


def load_run(path):
    """A saved run, or one that has not finished, as a `LoadedRun`.

    Args:
        path: A `model.keras` written by `train` (its record is the
            `results.json` or `settings.json` beside it), or its run folder
            (see `RunFolder.load`).

    Raises:
        UsageError: Nothing loadable at `path`.

    Example:

    ```python
    run = load_run("runs/paper-table/sequence_copy-deque/lr0.001-seed0")
    run.record["task"], run.epoch  # ("sequence_copy", None) once it has finished; 73 while under way, after 73 epochs
    ```
    """
    import keras

    import keras_neural_memory  # noqa: F401  (registers the layers)

    path = pathlib.Path(path)
    if path.is_dir():
        return RunFolder(path).load()
    if not path.is_file():
        raise UsageError(f"no saved model at {str(path)!r}; pass the model.keras that `train` wrote, or its run directory")
    if not zipfile.is_zipfile(path):
        raise UsageError(f"{str(path)!r} is not a complete .keras file (it is empty or truncated); train the model again")
    record = RunFolder(path.parent).record()
    return LoadedRun(keras.saving.load_model(path), record, path.parent, path)


def _load_backup_weights(model, weights, metadata):
    """Loads one backup of a run under way into `model`; its epoch, or None if it is not whole.

    The weights are read from a copy taken while neither they nor their
    metadata changed: the training process rewrites both after every epoch,
    and Keras only loads a file whose name ends in ".weights.h5", which the
    previous backup's does not.
    """
    try:
        before = (weights.stat().st_mtime_ns, weights.stat().st_size, metadata.read_text())
        with tempfile.TemporaryDirectory() as folder:
            snapshot = pathlib.Path(folder) / "backup.weights.h5"
            shutil.copyfile(weights, snapshot)
            if (weights.stat().st_mtime_ns, weights.stat().st_size, metadata.read_text()) != before:
                return None
            model.load_weights(snapshot)
        return json.loads(before[2])["epoch"]
    except (OSError, ValueError, KeyError):
        return None
