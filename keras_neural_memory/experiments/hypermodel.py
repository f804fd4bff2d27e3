"""`TransducerHyperModel`: the paper's model grid as a keras-tuner HyperModel."""

import keras_tuner as kt
from tfds_tasks import Layout

from keras_neural_memory.experiments import training
from keras_neural_memory.experiments.config import PAPER_HIDDEN_SIZES, PAPER_LEARNING_RATES, PAPER_MODELS, model_kind
from keras_neural_memory.models import build_transducer
from keras_neural_memory.validation import check_positive_int


class TransducerHyperModel(kt.HyperModel):
    """Builds one transducer of the paper's grid per trial (Grefenstette et al. §4.4).

    Hyperparameters: `model` (a "stack", "queue" or "deque" LSTM, or an
    N-layer LSTM "lstmN"), `hidden_size` and `learning_rate`. Every model
    is compiled with the recipe of `neural-memory train`
    (`training.compile_model`: RMSProp, gradient clipping at 1, coarse,
    fine and per-symbol accuracy); use `val_coarse_accuracy` as the
    objective.

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
    import keras_tuner as kt

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
        for model in models:
            model_kind(model)
        check_positive_int("source_vocab_size", source_vocab_size)
        check_positive_int("target_vocab_size", target_vocab_size)
        check_positive_int("memory_width", memory_width)
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.models = list(models)
        self.hidden_sizes = list(hidden_sizes)
        self.learning_rates = list(learning_rates)
        self.memory_width = memory_width
        self.jit_compile = jit_compile

    def build(self, hp):
        memory, lstm_layers = model_kind(hp.Choice("model", self.models))
        model = build_transducer(
            Layout("joint", self.source_vocab_size, self.target_vocab_size),
            memory=memory,
            hidden_size=hp.Choice("hidden_size", self.hidden_sizes),
            memory_width=self.memory_width,
            lstm_layers=lstm_layers,
        )
        training.compile_model(model, hp.Choice("learning_rate", self.learning_rates), self.jit_compile)
        return model
