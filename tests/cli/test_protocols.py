"""`protocols.protocol_for`: each task's family is picked once, from its name."""

import pytest

from keras_neural_memory.experiments import protocols
from keras_neural_memory.experiments.config import RunConfig, UsageError
from tfds_tasks import TASK_NAMES, layout_for
from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASK_NAMES


def test_every_task_has_the_protocol_of_its_family():
    for task in TASK_NAMES:
        expected = protocols.GREFENSTETTE if layout_for(task) == "joint" else protocols.HAO
        assert protocols.protocol_for(task) is expected
        assert RunConfig(task).protocol is expected
    for name in CHOMSKY_TASK_NAMES:
        assert protocols.protocol_for(f"chomsky_hierarchy/{name}") is protocols.CHOMSKY


@pytest.mark.parametrize("task", ["sequence_copying", "chomsky_hierarchy/reverse", 3])
def test_an_unknown_task_is_a_usage_error_listing_the_tasks(task):
    with pytest.raises(UsageError, match=r"unknown task .*; choose one of: "):
        protocols.protocol_for(task)


def test_only_the_tasks_of_grefenstette_et_al_take_the_deque_recipe_and_an_lstm_depth():
    assert protocols.GREFENSTETTE.takes_deque_recipe and protocols.GREFENSTETTE.takes_lstm_depth("lstm")
    assert not protocols.GREFENSTETTE.takes_lstm_depth("stack")
    for protocol in (protocols.HAO, protocols.CHOMSKY):
        assert not protocol.takes_deque_recipe and not protocol.takes_lstm_depth("lstm")


def test_the_run_folder_is_named_by_the_family():
    assert RunConfig("sequence_copy", memory="queue").output_path() == "runs/sequence_copy-queue-default"
    assert RunConfig("chomsky_hierarchy/odds_first", memory="deque").output_path() == "runs/chomsky_hierarchy-odds_first-deque"
