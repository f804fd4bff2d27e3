"""End to end: ``import tfds_tasks; tfds.load(name)`` in a fresh, offline process."""

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import json, socket

def _offline(*args, **kwargs):
    raise OSError("network access attempted in an offline test")

# Any attempt to reach the network fails loudly.
socket.socket.connect = _offline
socket.socket.connect_ex = _offline
socket.create_connection = _offline
socket.getaddrinfo = _offline

import tensorflow_datasets as tfds
import tfds_tasks

test = tfds.load("itg_svo_sov", split="test")
lengths = [int(ex["source"].shape[0]) for ex in test]
tiny = tfds.load("parenthesis_prediction/tiny", split="train")
first = next(iter(tfds.as_numpy(tiny)))
print(json.dumps({"n": len(lengths), "min": min(lengths), "max": max(lengths),
                  "keys": sorted(first)}))
"""


@pytest.mark.slow
def test_load_in_fresh_offline_process(tmp_path):
    env = dict(
        os.environ,
        PYTHONPATH=REPO,
        TFDS_DATA_DIR=str(tmp_path / "tfds"),  # so the call is just tfds.load(name)
        HOME=str(tmp_path),
        TF_CPP_MIN_LOG_LEVEL="2",
        NO_GCE_CHECK="true",
    )
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=str(tmp_path), env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["n"] == 1000 and result["min"] >= 65 and result["max"] <= 128
    assert result["keys"] == ["eval_mask", "source", "source_text", "target", "target_text"]
    from tfds_tasks.builders.itg_svo_sov import ItgSvoSov

    assert (tmp_path / "tfds" / "itg_svo_sov" / "default" / str(ItgSvoSov.VERSION)).is_dir()
