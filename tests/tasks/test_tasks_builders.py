"""TFDS builders: DatasetBuilderTestCase for every builder, info, configs, bytes."""

import os
import pathlib

import pytest
import tensorflow_datasets as tfds

import tfds_tasks
from tfds_tasks import generators

DUMMY_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dummy_data")


def _make_case(builder_cls):
    return type(
        f"Test{builder_cls.__name__}Builder",
        (tfds.testing.DatasetBuilderTestCase,),
        {
            "DATASET_CLASS": builder_cls,
            "BUILDER_CONFIG_NAMES_TO_TEST": ["tiny"],
            "SPLITS": {"train": 20, "validation": 5, "test": 5},
            # Nothing is downloaded, but the test case insists on the folder.
            "EXAMPLE_DIR": DUMMY_DATA,
            "SKIP_CHECKSUMS": True,
            "__module__": __name__,
        },
    )


# One tfds.testing.DatasetBuilderTestCase subclass per builder.
for _cls in tfds_tasks.BUILDERS.values():
    globals()[f"Test{_cls.__name__}Builder"] = _make_case(_cls)
del _cls


def test_every_task_has_a_registered_builder():
    assert set(tfds_tasks.BUILDERS) == set(generators.TASK_NAMES)
    registered = set(tfds.list_builders(with_community_datasets=False))
    assert set(generators.TASK_NAMES) <= registered


@pytest.mark.parametrize("name", generators.TASK_NAMES)
def test_builder_metadata(name, tmp_path):
    cls = tfds_tasks.BUILDERS[name]
    assert str(cls.VERSION) in cls.RELEASE_NOTES
    # Every task has these three; some add more (the ITG lexicon sizes), each one of its settings.
    names = {c.name for c in cls.BUILDER_CONFIGS}
    assert {"default", "paper", "tiny"} <= names == set(generators.SETTINGS[name])
    assert "§" in cls.__doc__  # cites its source section
    builder = tfds.builder(f"{name}/tiny", data_dir=str(tmp_path))
    task = generators.tasks_for(name, "tiny")[0]
    features = builder.info.features
    assert tuple(features["source"].feature.names) == task.source_vocab
    assert tuple(features["target"].feature.names) == task.target_vocab
    assert ("eval_mask" in features) == task.uses_eval_mask
    assert builder.info.citation and builder.info.homepage


def test_built_examples_equal_the_generator_output(tmp_path):
    builder = tfds.builder("boolean_formula/tiny", data_dir=str(tmp_path))
    builder.download_and_prepare()
    expected = generators.generate("boolean_formula", "tiny")["test"]
    task = generators.tasks_for("boolean_formula", "tiny")[1]
    got = {
        (tuple(ex["source"].tolist()), tuple(ex["target"].tolist()),
         tuple(ex["eval_mask"].tolist()), ex["source_text"].decode())
        for ex in tfds.as_numpy(builder.as_dataset(split="test"))
    }
    assert got == {
        (e.source, e.target, e.eval_mask, task.source_text(e)) for e in expected
    }


def test_builds_are_byte_identical(tmp_path):
    def build(path):
        builder = tfds.builder("itg_svo_sov/tiny", data_dir=str(path))
        builder.download_and_prepare()
        root = pathlib.Path(builder.data_dir)
        return {p.name: p.read_bytes() for p in sorted(root.glob("*.tfrecord*"))}

    first, second = build(tmp_path / "a"), build(tmp_path / "b")
    assert first and first == second


def test_custom_config(tmp_path):
    cls = tfds_tasks.BUILDERS["sequence_copy"]
    config = cls.make_config("short", based_on="tiny", train_lengths=(3, 4), vocab_size=5)
    builder = tfds.builder("sequence_copy", config=config, data_dir=str(tmp_path))
    builder.download_and_prepare()
    assert builder.info.features["source"].feature.num_classes == 5
    lengths = {len(ex["source"]) for ex in tfds.as_numpy(builder.as_dataset(split="train"))}
    assert lengths <= {3, 4}
