"""Length ranges, split disjointness and determinism."""

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from tasks_fixtures import cached_splits

from tfds_tasks import generators

NAMES = generators.TASK_NAMES
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# sha256 prefixes of the tiny splits at VERSION 1.0.0. A change here means
# the data changed: bump the builder's VERSION and RELEASE_NOTES.
GOLDEN_TINY_DIGESTS = {
    "sequence_copy": "fe61652b977c33c5",
    "sequence_reversal": "2837879556b9126b",
    "bigram_flip": "f8d5d31a5681bcd0",
    "itg_svo_sov": "49f748c4708ae1ac",
    "itg_gender_conjugation": "2c8c6594f6b7c128",
    "string_reversal": "af79b8ebbb50bff7",
    "cumulative_xor": "8e4509d1dd348f4e",
    "delayed_xor": "f3359533ab47b49c",
    "parenthesis_prediction": "367bcc4b55dd7e57",
    "boolean_formula": "3886a89eff6cbeee",
    "subject_auxiliary_agreement": "449a79b93a84e08c",
}

DIGEST_SCRIPT = """
import hashlib, json
from tfds_tasks import generators
out = {}
for n in generators.TASK_NAMES:
    splits = generators.generate(n, "tiny")
    payload = [[s, [[list(e.source), list(e.target), None if e.eval_mask is None
               else list(e.eval_mask)] for e in exs]] for s, exs in splits.items()]
    out[n] = hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]
print(json.dumps(out))
"""


def digest(splits):
    payload = [
        [s, [[list(e.source), list(e.target), None if e.eval_mask is None else list(e.eval_mask)]
             for e in exs]]
        for s, exs in splits.items()
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:16]


@pytest.mark.parametrize("config", ["tiny", "default"])
@pytest.mark.parametrize("name", NAMES)
def test_lengths_lie_in_their_ranges_and_test_is_longer(name, config):
    settings = generators.settings(name, config)
    train_task, test_task = generators.tasks_for(name, config)
    splits = cached_splits(name, config)
    for split, examples in splits.items():
        regime = settings.regime(split)
        task = test_task if split == "test" else train_task
        lengths = [task.length(ex) for ex in examples]
        assert regime.min_length <= min(lengths) and max(lengths) <= regime.max_length
    train_max = max(train_task.length(ex) for ex in splits["train"] + splits["validation"])
    assert min(test_task.length(ex) for ex in splits["test"]) > train_max


@pytest.mark.parametrize("name", ["sequence_copy", "sequence_reversal", "bigram_flip"])
def test_synthetic_lengths_are_uniform(name):
    """All lengths of unif{8..64} occur, none far from its expected count."""
    splits = cached_splits(name, "default")
    counts = Counter(len(ex.source) for ex in splits["train"])
    step = 2 if name == "bigram_flip" else 1
    expected_lengths = set(range(8, 65, step))
    assert set(counts) == expected_lengths
    mean = len(splits["train"]) / len(expected_lengths)
    assert all(abs(c - mean) < 5 * mean**0.5 for c in counts.values()), counts
    test_counts = Counter(len(ex.source) for ex in splits["test"])
    assert min(test_counts) == (66 if name == "bigram_flip" else 65) and max(test_counts) <= 128
    assert len(test_counts) > 0.9 * len(range(66 if step == 2 else 65, 129, step))


@pytest.mark.parametrize("name", ["itg_svo_sov", "itg_gender_conjugation"])
def test_itg_length_histogram_matches_the_exact_pcfg_distribution(name):
    """Sampled lengths follow the PCFG's exact length law, truncated to the range."""
    task = generators.tasks_for(name, "default")[0]
    exact = task.grammar.length_distribution(64)
    mass = sum(exact[8:65])
    counts = Counter(len(ex.source) for ex in cached_splits(name, "default")["train"])
    total = sum(counts.values())
    for lo, hi in ((8, 16), (17, 32), (33, 64)):
        expected = sum(exact[lo : hi + 1]) / mass
        observed = sum(counts[n] for n in range(lo, hi + 1)) / total
        assert abs(observed - expected) < 0.03, (lo, hi, observed, expected)


@pytest.mark.parametrize("config", ["tiny", "default"])
@pytest.mark.parametrize("name", NAMES)
def test_splits_are_disjoint(name, config):
    splits = cached_splits(name, config)
    sources = {s: {ex.source for ex in exs} for s, exs in splits.items()}
    assert not sources["train"] & sources["test"]
    assert not sources["train"] & sources["validation"]
    assert not sources["validation"] & sources["test"]


@pytest.mark.parametrize("name", NAMES)
def test_generation_is_deterministic_and_matches_golden_digest(name):
    first = generators.generate(name, "tiny")
    assert first == generators.generate(name, "tiny")
    assert digest(first) == GOLDEN_TINY_DIGESTS[name]
    other_seed = generators.TaskSettings(
        **{**generators.settings(name, "tiny").__dict__, "seed": 1}
    )
    assert generators.generate(name, other_seed) != first


@pytest.mark.slow
def test_generation_does_not_depend_on_hash_seed():
    """A fresh process with another PYTHONHASHSEED produces the same bytes."""
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=REPO)
    out = subprocess.run(
        [sys.executable, "-c", DIGEST_SCRIPT], env=env, cwd=REPO,
        capture_output=True, text=True, check=True, timeout=120,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == GOLDEN_TINY_DIGESTS


def test_validation_redraws_sources_seen_in_train():
    """On a tiny space (64 strings) validation must avoid the 40 train strings."""
    settings = generators.TaskSettings(
        40, 20, 5, generators.Regime(6, 6), generators.Regime(8, 8)
    )
    splits = generators.generate("cumulative_xor", settings)
    train = {ex.source for ex in splits["train"]}
    assert not train & {ex.source for ex in splits["validation"]}
