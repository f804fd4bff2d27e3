"""Named configurations (sizes and regimes) of every task.

Every task has ``default``, ``paper`` and ``tiny``:

* ``default``: the paper's length/depth regimes, sizes that build in a few
  seconds.
* ``paper``: the paper's regimes and split sizes. Grefenstette et al. train
  on an unbounded stream (use :func:`tfds_tasks.stream` for that) and test
  on 1000 sequences; the fixed ``paper`` train split has 100k examples.
  Hao et al. use 800 train / 100 development / 1000 test, which is also
  their ``default``.
* ``tiny``: a few short examples, for tests and notebooks.

The two ITG tasks also have ``default_scale`` and ``default_scale_one_word``
(the training lengths and lexicons of the experiments, see ``_itg``).

Choices where the papers are silent are documented next to each entry.
"""

from __future__ import annotations

from tfds_tasks.generators.base import Regime
from tfds_tasks.generators.itg import ItgTask
from tfds_tasks.generators.itg_gender_conjugation import ItgGenderConjugation
from tfds_tasks.generators.itg_svo_sov import ItgSvoSov
from tfds_tasks.generators.splits import TaskSettings

DESCRIPTIONS = {
    "default": "Paper length/depth regimes, small enough to build in seconds.",
    "paper": "Paper length/depth regimes and split sizes.",
    "tiny": "A few short examples for tests and notebooks.",
    "default_scale": (
        "The lengths and lexicon of `neural-memory train --scale default`: train 8..16, "
        "test 17..32, 32 class words split evenly over the lexical classes."
    ),
    "default_scale_one_word": (
        "As default_scale with one word per lexical class (the smallest lexicon), so "
        "sources are word-class sequences."
    ),
}


def _grefenstette(test_min: int, tiny_test_min: int, vocab: int = 128):
    # §4.1/§4.3: train lengths unif{8..64}, test unif{65..128}, 128 symbols.
    train, test = Regime(8, 64), Regime(test_min, 128)
    return {
        "default": TaskSettings(10_000, 1_000, 1_000, train, test, vocab_size=vocab),
        "paper": TaskSettings(100_000, 1_000, 1_000, train, test, vocab_size=vocab),
        "tiny": TaskSettings(
            20, 5, 5, Regime(2, 8), Regime(tiny_test_min, 16), vocab_size=vocab
        ),
    }


def _itg(task: type[ItgTask]):
    # §4.2: rejection to [8, 64] for training, [65, 128] for testing.
    train, test = Regime(8, 64), Regime(65, 128)
    # The experiments' default scale (keras_neural_memory.experiments.config
    # SCALES["default"]): shorter sentences and a 32-word lexicon, and the
    # same with one word per class, which leaves only the grammar's
    # word-class structure to learn (vocab_size counts class words only:
    # 3 for SVO -> SOV, source vocabulary 4 with ``rpi``; 4 for gender
    # conjugation, source vocabulary 8 with ``the a and or``).
    short_train, short_test = Regime(8, 16), Regime(17, 32)
    return {
        "default": TaskSettings(10_000, 1_000, 1_000, train, test, vocab_size=128),
        "paper": TaskSettings(100_000, 1_000, 1_000, train, test, vocab_size=128),
        "tiny": TaskSettings(20, 5, 5, Regime(4, 10), Regime(11, 16), vocab_size=128),
        "default_scale": TaskSettings(
            10_000, 1_000, 1_000, short_train, short_test, vocab_size=32
        ),
        "default_scale_one_word": TaskSettings(
            10_000, 1_000, 1_000, short_train, short_test, vocab_size=task.min_vocab_size
        ),
    }


def _hao(train: Regime, test: Regime, tiny_train: Regime, tiny_test: Regime):
    # §5: 800 training and 100 development pairs, 1000 test strings.
    paper = TaskSettings(800, 100, 1_000, train, test)
    return {
        "default": paper,
        "paper": paper,
        "tiny": TaskSettings(20, 5, 5, tiny_train, tiny_test),
    }


SETTINGS = {
    "sequence_copy": _grefenstette(65, 9),
    "sequence_reversal": _grefenstette(65, 9),
    # Sources must have even length, so the test range starts at 66.
    "bigram_flip": _grefenstette(66, 10),
    "itg_svo_sov": _itg(ItgSvoSov),
    "itg_gender_conjugation": _itg(ItgGenderConjugation),
    # §5 Exp. 1: average |w| 10 for training, 20 for testing. The
    # distribution is unstated; |w| is uniform on 5..15 (mean 10) and on
    # 16..24 (mean 20), so test strings are all longer than training ones.
    "string_reversal": _hao(Regime(5, 15), Regime(16, 24), Regime(2, 6), Regime(7, 10)),
    # §5 Exp. 2: length 12 for training, 24 for testing.
    "cumulative_xor": _hao(Regime(12, 12), Regime(24, 24), Regime(6, 6), Regime(8, 8)),
    "delayed_xor": _hao(Regime(12, 12), Regime(24, 24), Regime(6, 6), Regime(8, 8)),
    # §5 Exp. 3: depth <= 6 (length <= 20) for training; depth 12 (length
    # <= 110) for testing. Test strings are also required to be longer than
    # any training string (22..110), so test is disjoint from train.
    "parenthesis_prediction": _hao(
        Regime(2, 20, max_depth=6),
        Regime(22, 110, max_depth=12),
        Regime(2, 12, max_depth=5),
        Regime(14, 30, max_depth=7),
    ),
    # §5 Exp. 4: depth <= 6 (length <= 15) for training; depth <= 7 (length
    # <= 31) for testing, restricted to lengths 17..31 (longer than train).
    "boolean_formula": _hao(
        Regime(1, 15, max_depth=6),
        Regime(17, 31, max_depth=7),
        Regime(1, 7, max_depth=5),
        Regime(9, 15, max_depth=6),
    ),
    # §5 Exp. 4: depth 16 (length <= 23) for training; depth 32 and length
    # <= 49 for testing, restricted to lengths 24..49 (longer than train).
    "subject_auxiliary_agreement": _hao(
        Regime(3, 23, max_depth=16),
        Regime(24, 49, max_depth=32),
        Regime(3, 12, max_depth=10),
        Regime(13, 20, max_depth=16),
    ),
}
