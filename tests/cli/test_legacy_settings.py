"""Runs recorded before `MemoryOptions` and the protocols still match: the same command records the same settings.

`tests/data/legacy/train_settings.json` maps `neural-memory train` arguments
(each with `--seed 3`) to the settings (`RunConfig.settings`) that version
0.3.0 recorded for them, before the memory options became one object. A
run folder or results record is recognised by these settings, so equal
settings mean that every earlier run resumes and matches as before.
"""

import json
import pathlib

import pytest

from keras_neural_memory.experiments import cli
from keras_neural_memory.experiments.common import CHOMSKY_PREFIX, CHOMSKY_PROTOCOL_VERSION
from keras_neural_memory.experiments.config import RunConfig

RECORDED = json.loads((pathlib.Path(__file__).parents[1] / "data" / "legacy" / "train_settings.json").read_text())


@pytest.mark.parametrize("argv", sorted(RECORDED))
def test_train_records_the_settings_it_always_recorded(argv):
    config = cli.train_config(cli.parser().parse_args(["train", *argv.split(), "--seed", "3"]))
    # Chomsky-hierarchy runs now follow the authors' code: they record the protocol's version, so
    # that a run of the earlier protocol is not taken for one of this one.
    chomsky = {"protocol_version": CHOMSKY_PROTOCOL_VERSION} if config.task.startswith(CHOMSKY_PREFIX) else {}
    assert config.settings() == {**RECORDED[argv], **chomsky}
    # ... and reading them back gives the same run.
    assert RunConfig.from_settings(RECORDED[argv]) == config
