"""The ITG builders' default-scale configs and the grammars' rule probabilities.

Examples are checked with the independent synchronous-derivation checker
of ``task_checks``; the configs' data is pinned by the digest of the first
100 training examples (train is drawn first, so they do not depend on the
split sizes, which are shrunk here to keep the test fast).
"""

import dataclasses
import hashlib
import json
import random

import pytest
from task_checks import check_example

from tfds_tasks import generators
from tfds_tasks.generators.itg import probabilities_by_nonterminal
from tfds_tasks.generators.itg_gender_conjugation import ItgGenderConjugation
from tfds_tasks.generators.itg_svo_sov import ItgSvoSov

ITG_NAMES = ("itg_svo_sov", "itg_gender_conjugation")
NEW_CONFIGS = ("default_scale", "default_scale_one_word")

# (config, task) -> (source vocabulary, target vocabulary) sizes:
# class words plus the function words of each side.
VOCABULARY_SIZES = {
    ("default_scale", "itg_svo_sov"): (32 + 1, 32 + 1),
    ("default_scale_one_word", "itg_svo_sov"): (3 + 1, 3 + 1),
    ("default_scale", "itg_gender_conjugation"): (32 + 4, 32 + 7),
    ("default_scale_one_word", "itg_gender_conjugation"): (4 + 4, 4 + 7),
}

# sha256 prefixes of the first 100 train examples at builder VERSION 1.1.0.
# A change here means the data changed: bump the VERSION.
PINNED_DIGESTS = {
    ("default_scale", "itg_svo_sov"): "000e26ee99ee7ae7",
    ("default_scale_one_word", "itg_svo_sov"): "5fd195dc65fd39b3",
    ("default_scale", "itg_gender_conjugation"): "f3e2bb771ef44c4e",
    ("default_scale_one_word", "itg_gender_conjugation"): "868a4821ee26dc65",
}


def first_train_examples(name, config, count=100):
    settings = dataclasses.replace(
        generators.settings(name, config), train_size=count, validation_size=0, test_size=0
    )
    return generators.generate(name, settings)["train"]


def digest(examples):
    payload = [[list(ex.source), list(ex.target)] for ex in examples]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


@pytest.mark.parametrize("config", NEW_CONFIGS)
@pytest.mark.parametrize("name", ITG_NAMES)
def test_config_vocabularies_and_lengths(name, config):
    settings = generators.settings(name, config)
    assert (settings.train.min_length, settings.train.max_length) == (8, 16)
    assert (settings.test.min_length, settings.test.max_length) == (17, 32)
    train_task, test_task = generators.tasks_for(name, config)
    sizes = (len(train_task.source_vocab), len(train_task.target_vocab))
    assert sizes == VOCABULARY_SIZES[config, name]
    assert test_task.source_vocab == train_task.source_vocab


def test_one_word_lexicon_is_the_smallest_valid_one():
    assert generators.tasks_for("itg_svo_sov", "default_scale_one_word")[0].source_vocab == (
        "rpi", "si0", "oi0", "vi0",
    )
    for cls in (ItgSvoSov, ItgGenderConjugation):
        one_word = generators.settings(cls.name, "default_scale_one_word").vocab_size
        assert one_word == len(cls.LEXICAL)
        with pytest.raises(ValueError, match="vocabulary too small"):
            cls(generators.Regime(8, 16), vocab_size=one_word - 1)


@pytest.mark.parametrize("config", NEW_CONFIGS)
@pytest.mark.parametrize("name", ITG_NAMES)
def test_config_examples_are_synchronous_derivations(name, config):
    settings = generators.settings(name, config)
    rng = random.Random(7)
    for task, regime in zip(generators.tasks_for(name, config), (settings.train, settings.test)):
        for _ in range(60):
            check_example(name, task, task.sample(rng), regime)


@pytest.mark.parametrize("config", NEW_CONFIGS)
@pytest.mark.parametrize("name", ITG_NAMES)
def test_config_data_is_deterministic_and_pinned(name, config):
    first = first_train_examples(name, config)
    assert first == first_train_examples(name, config)
    assert digest(first) == PINNED_DIGESTS[config, name]


@pytest.mark.parametrize("cls", [ItgSvoSov, ItgGenderConjugation])
def test_the_shipped_probabilities_given_explicitly_sample_the_same_data(cls):
    shipped = probabilities_by_nonterminal(cls.RULES)
    regime = generators.Regime(8, 16)
    default, explicit = cls(regime, 32), cls(regime, 32, rule_probabilities=shipped)
    assert explicit.rule_probabilities == default.rule_probabilities == shipped
    a, b = random.Random(3), random.Random(3)
    assert [default.sample(a) for _ in range(50)] == [explicit.sample(b) for _ in range(50)]


def test_other_probabilities_change_the_data_and_stay_valid():
    regime = generators.Regime(8, 16)
    no_relatives = ItgSvoSov(
        regime, 32, rule_probabilities={"S": (0.5, 0.0, 0.5), "O": (0.55, 0.0, 0.45)}
    )
    assert no_relatives.rule_probabilities["O"] == (0.55, 0.0, 0.45)
    assert no_relatives.rule_probabilities["A"] == (1.0,)  # left out: kept
    rng = random.Random(0)
    examples = [no_relatives.sample(rng) for _ in range(100)]
    for ex in examples:
        check_example("itg_svo_sov", no_relatives, ex, regime)
        assert "rpi" not in no_relatives.source_text(ex).split()
    shipped = ItgSvoSov(regime, 32)
    rng = random.Random(0)
    assert examples != [shipped.sample(rng) for _ in range(100)]


@pytest.mark.parametrize(
    "probabilities, message",
    [
        ({"S": (0.5, 0.5)}, r"rule_probabilities\['S'\] has 2 values; S has 3 rules"),
        ({"S": (0.5, 0.3, 0.3)}, r"rule_probabilities\['S'\] sum to 1.1"),
        ({"S": (1.5, -0.5, 0.0)}, r"rule_probabilities\['S'\] must lie in \[0, 1\]"),
        ({"S": (True, 0.0, 0.0)}, r"rule_probabilities\['S'\] must lie in \[0, 1\]"),
        ({"X": (1.0,)}, r"rule_probabilities: unknown nonterminal 'X'"),
        ({"ST": (1.0,)}, r"rule_probabilities: unknown nonterminal 'ST'"),
        # S could then never stop: every sentence would be infinite.
        ({"S": (0.5, 0.5, 0.0)}, r"rule_probabilities: nonterminal [AS] derives no finite string"),
    ],
)
def test_bad_rule_probabilities_are_rejected_in_one_line(probabilities, message):
    with pytest.raises(ValueError, match=message) as error:
        ItgSvoSov(generators.Regime(8, 16), 32, rule_probabilities=probabilities)
    assert "\n" not in str(error.value)
