"""`TransducerHyperModel`: the paper's model grid as a keras-tuner HyperModel."""

import keras
import keras_tuner as kt

from keras_neural_memory import CoarseAccuracy, FineAccuracy
from keras_neural_memory.models import build_transducer

# Grefenstette et al. 2015, §4.4 and Appendix D.
PAPER_MODELS = ("lstm1", "lstm2", "lstm4", "lstm8", "stack", "queue", "deque")
PAPER_HIDDEN_SIZES = (256, 512)
PAPER_LEARNING_RATES = (5e-3, 1e-3, 5e-4, 1e-4, 5e-5)


class TransducerHyperModel(kt.HyperModel):
    """Builds one transducer of the paper's grid per trial.

    Hyperparameters: `model` (an n-layer LSTM "lstmN", or a "stack",
    "queue" or "deque" LSTM), `hidden_size` and `learning_rate`. Every model
    trains with RMSProp and gradient clipping at 1, and reports coarse and
    fine accuracy (use `val_coarse_accuracy` as the objective).

    Args:
        source_vocab_size: `S` of the task.
        target_vocab_size: `T` of the task.
        models: Values of the `model` hyperparameter.
        hidden_sizes: Values of `hidden_size`.
        learning_rates: Values of `learning_rate`.
        memory_width: Memory vector size (the paper: 256).
        jit_compile: Compile training steps with XLA.

    Example:

    ```python
    tuner = kt.GridSearch(TransducerHyperModel(128, 128),
                          objective=kt.Objective("val_coarse_accuracy", direction="max"))
    ```
    """

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        models=PAPER_MODELS,
        hidden_sizes=PAPER_HIDDEN_SIZES,
        learning_rates=PAPER_LEARNING_RATES,
        memory_width=256,
        jit_compile=True,
    ):
        super().__init__(name="transducer")
        unknown = [m for m in models if m not in PAPER_MODELS and not (m.startswith("lstm") and m[4:].isdigit())]
        if unknown:
            raise ValueError(f"Unknown `models` {unknown}; use 'lstmN', 'stack', 'queue' or 'deque'.")
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.models = list(models)
        self.hidden_sizes = list(hidden_sizes)
        self.learning_rates = list(learning_rates)
        self.memory_width = memory_width
        self.jit_compile = jit_compile

    def build(self, hp):
        kind = hp.Choice("model", self.models)
        hidden_size = hp.Choice("hidden_size", self.hidden_sizes)
        learning_rate = hp.Choice("learning_rate", self.learning_rates)
        memory = "lstm" if kind.startswith("lstm") else kind
        model = build_transducer(
            self.source_vocab_size,
            self.target_vocab_size,
            memory=memory,
            hidden_size=hidden_size,
            memory_width=self.memory_width,
            lstm_layers=int(kind[4:]) if memory == "lstm" else 1,
        )
        model.compile(
            optimizer=keras.optimizers.RMSprop(learning_rate, clipnorm=1.0),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            weighted_metrics=[CoarseAccuracy(), FineAccuracy()],
            jit_compile=self.jit_compile,
        )
        return model
