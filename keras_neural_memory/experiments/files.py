"""Files written whole or not at all, and locks: what every module that writes a run's files builds on.

A kill at any moment, or a full disk, leaves either the previous file or
the new one, never a truncated file, because every file is written under a
temporary name in the same folder and then renamed over the old one
(`os.replace` is atomic). A run's folder and its lifecycle are
`run_folder.RunFolder`'s; these are the primitives below it, which the
Chomsky-hierarchy curves and the epoch history use too.
"""

import contextlib
import errno
import os
import pathlib

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

from keras_neural_memory.experiments.common import UsageError


@contextlib.contextmanager
def atomic_path(path):
    """Yields a temporary path beside `path`; renames it to `path` when the block succeeds.

    The temporary name keeps `path`'s suffix, for writers (such as
    `keras.Model.save`) that choose the format from it, and names the
    process, so that two processes writing the same file (a record that
    several sweeps share) never write or rename each other's. A failed block
    leaves `path` untouched and removes the temporary file; an `OSError`
    of a full disk then names `path` (the writer's own error names no
    file, or the temporary one).

    Example:

    ```python
    with atomic_path("runs/a/model.keras") as temporary:
        model.save(temporary)
    ```
    """
    path = pathlib.Path(path)
    temporary = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as error:
        if is_full_disk(error):
            error.filename, error.filename2 = str(path), None
        raise
    finally:
        temporary.unlink(missing_ok=True)


def write_atomically(path, text):
    """Writes `text` to `path` atomically."""
    with atomic_path(path) as temporary:
        temporary.write_text(text)


def save_model_atomically(model, path):
    """`model.save(path)`, atomically."""
    with atomic_path(path) as temporary:
        model.save(temporary)


@contextlib.contextmanager
def locked(path, busy=None):
    """Holds an exclusive lock on `path` for the block, against other processes that lock it too.

    The lock is on a file beside `path` (".lock-NAME"), so `path` itself can
    be replaced while it is held. The system releases it when its process
    ends, however it ends. Where `fcntl` is missing (Windows) the block runs
    unlocked.

    Args:
        path: The file to lock.
        busy: None to wait while another process holds the lock; else the
            exception to raise at once in that case.
    """
    path = pathlib.Path(path)
    if fcntl is None:
        yield
        return
    with open(path.with_name(f".lock-{path.name}"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if busy is None else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise busy from None
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def writable_dir(path, flag="--output-dir"):
    """Creates the folder `path` if needed; a `UsageError` naming `flag` if it cannot be written."""
    path = pathlib.Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot create output directory {str(path)!r}: {error.strerror}; pass another {flag}") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"output directory {str(path)!r} is not writable; pass another {flag}")
    return path


def is_full_disk(error):
    """Whether the `OSError` `error` is a full disk's."""
    # h5py reports the system's error in its message only.
    return error.errno == errno.ENOSPC or os.strerror(errno.ENOSPC) in str(error)
