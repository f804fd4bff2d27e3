"""The chomsky_hierarchy TFDS builder: configs, features, splits, and its data."""

import importlib.util
import pathlib
import re

import numpy as np
import pytest
import tensorflow_datasets as tfds
from test_chomsky_hierarchy import expected_mask, rule

import tfds_tasks
from tfds_tasks.builders.base import CITATIONS
from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASKS, evaluation_batches, training_batches

ChomskyHierarchy = tfds_tasks.ChomskyHierarchy


def test_registered_with_a_config_per_task():
    assert tfds.builder_cls("chomsky_hierarchy") is ChomskyHierarchy
    assert "chomsky_hierarchy" not in tfds_tasks.BUILDERS  # BUILDERS holds the TASK_NAMES builders only
    assert [c.name for c in ChomskyHierarchy.BUILDER_CONFIGS] == list(CHOMSKY_TASKS)
    assert str(ChomskyHierarchy.VERSION) == "1.0.0" and "1.0.0" in ChomskyHierarchy.RELEASE_NOTES
    for config in ChomskyHierarchy.BUILDER_CONFIGS:
        assert config.task_name == config.name
        assert config.description == CHOMSKY_TASKS[config.name].description
        assert (config.train_size, config.train_lengths) == (10_000, (1, 40))
        assert (config.test_lengths, config.test_sequences_per_length, config.test_size) == ((1, 500), 32, 16_000)


def test_info_of_a_named_config(tmp_path):
    builder = tfds.builder("chomsky_hierarchy/stack_manipulation", data_dir=str(tmp_path))
    info = builder.info
    assert set(info.features) == {"input", "output", "output_mask", "length"}
    for key in ("input", "output", "output_mask"):
        assert info.features[key].feature.np_dtype == np.int32
    assert info.supervised_keys == ("input", "output")
    assert info.citation == CITATIONS["deletang2023"] and info.homepage
    assert builder.builder_config.description.startswith("Stack Manipulation")


@pytest.mark.parametrize("task_name", ["modular_arithmetic", "binary_addition"])
def test_small_build_matches_the_streams(tmp_path, task_name):
    config = ChomskyHierarchy.make_config(
        f"small_{task_name}", based_on=task_name, train_size=25, test_lengths=(1, 6),
        test_sequences_per_length=3, seed=4,
    )
    builder = tfds.builder("chomsky_hierarchy", config=config, data_dir=str(tmp_path))
    builder.download_and_prepare()
    assert builder.info.splits["train"].num_examples == 25
    assert builder.info.splits["test"].num_examples == 18 == config.test_size

    def rows(split):
        out = []
        for ex in tfds.as_numpy(builder.as_dataset(split=split, shuffle_files=False)):
            out.append((int(ex["length"]), ex["input"].tolist(), ex["output"].tolist(), ex["output_mask"].tolist()))
        return sorted(out)

    # The split is the evaluation stream in batches of 3 (one per length).
    got_test = rows("test")
    assert [row[0] for row in got_test] == sorted(length for length in range(1, 7) for _ in range(3))
    streamed = {
        (length, tuple(i), tuple(o))
        for length, batch in evaluation_batches(task_name, 4, max_length=6, sequences_per_length=3, batch_size=3)
        for i, o in zip(batch.input.tolist(), batch.output.tolist())
    }
    assert {(length, tuple(i), tuple(o)) for length, i, o, _ in got_test} == streamed
    got_train = rows("train")
    streamed_train = sorted(
        (length, batch.input[0].tolist(), batch.output[0].tolist(), batch.output_mask[0].tolist())
        for length, batch in training_batches(task_name, 4, batch_size=1, num_batches=25, with_lengths=True)
    )
    assert got_train == streamed_train
    for length, inputs, outputs, mask in got_test + got_train:
        assert 1 <= length <= 40
        assert outputs == rule(task_name, length, inputs) and mask == expected_mask(task_name, outputs)


def test_bad_configs_raise_value_errors():
    with pytest.raises(ValueError, match="unknown config 'sorting'"):
        ChomskyHierarchy.make_config("x", based_on="sorting")
    with pytest.raises(ValueError, match="taken by a named config"):
        ChomskyHierarchy.make_config("bucket_sort")
    with pytest.raises(ValueError, match=r"test_lengths is empty: 9 > 3"):
        ChomskyHierarchy.make_config("x", test_lengths=(9, 3))
    with pytest.raises(ValueError, match="train_size must be >= 0"):
        ChomskyHierarchy.make_config("x", train_size=-1)
    with pytest.raises(ValueError, match="unknown task_name 'nope'"):
        tfds_tasks.ChomskyHierarchyConfig(name="nope")


def test_docstring_examples_run():
    import doctest

    from tfds_tasks.builders import chomsky_hierarchy

    result = doctest.testmod(chomsky_hierarchy)
    assert result.failed == 0 and result.attempted >= 4


def test_catalog_page_lists_every_config():
    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_catalog.py"
    spec = importlib.util.spec_from_file_location("make_catalog", path)
    make_catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_catalog)
    section = (make_catalog.PAGES / "chomsky_hierarchy.md").read_text(encoding="utf-8")
    assert "* **Version**: `1.0.0`" in section and "`1.0.0`: Initial release." in section
    assert CITATIONS["deletang2023"] in section
    for config in ChomskyHierarchy.BUILDER_CONFIGS:
        task = CHOMSKY_TASKS[config.name]
        row = next(line for line in section.splitlines() if line.startswith(f"| `{config.name}` |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2:4] == [str(task.input_vocab_size), str(task.output_vocab_size)]
        assert cells[5] == ("" if task.terminator is None else str(task.terminator))
        assert cells[6:] == ["10,000, lengths 1..40", "16,000: 32 of every length 1..500"]
        assert f'`tfds.load("chomsky_hierarchy/{config.name}")`' in section
    for key in ("input", "output", "output_mask", "length"):
        assert f"| `{key}` |" in section
