"""Model builders for both papers' setups, and a greedy decoder.

* `build_transducer`: Grefenstette et al. 2015 §4 - the model reads the
  joint sequence `<s> source ||| target </s>` (ids from
  `tfds_tasks.make_joint_sequence`) and predicts the next symbol; the loss
  covers the target symbols and `</s>` only.
* `build_hao_model`: Hao et al. 2018 §2.2, §5 - a linear or LSTM
  controller, with or without a stack, on the same-length ("aligned")
  layout, scored where the task's evaluation mask is 1.
* `transduce`: greedy decoding of new sources with a `build_transducer`
  model, step by step through the cells, at any length.
* `build_chomsky_model`: Delétang et al. 2023 - the non-autoregressive
  models of the Chomsky-hierarchy benchmark, which read the input and then
  one blank per output position (`chomsky_tape`) and answer at the blanks
  (`chomsky_output_logits`).

The builders of the papers' tasks and `transduce` take the ids they read
and emit as a `layout`: a `tfds_tasks.Layout`, or any object with its
attributes. The layouts have one definition, in `tfds_tasks.joint`, which
this module does not import: the cells and models need neither the tasks
nor TensorFlow.
"""

import keras
import numpy as np
from keras import ops

from keras_neural_memory.deque_cell import DequeCell
from keras_neural_memory.linear_controller import LinearController
from keras_neural_memory.memory_cell import MemoryCell
from keras_neural_memory.memory_options import MemoryOptions
from keras_neural_memory.memory_rnn import MemoryRNN
from keras_neural_memory.queue_cell import QueueCell
from keras_neural_memory.stack_cell import StackCell
from keras_neural_memory.superposition_stack_cell import SuperpositionStackCell
from keras_neural_memory.validation import check_choice, check_lstm_layers, check_positive_int
from keras_neural_memory.vanilla_rnn_cell import VanillaRNNCell

MEMORY_CELLS = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}
MEMORY_KINDS = ("stack", "queue", "deque", "lstm")
# The depth of the deep-LSTM baseline when none is given: the parameter-matched 2-layer LSTM.
DEFAULT_LSTM_LAYERS = 2
CONTROLLERS = ("lstm", "linear")
# The models of the Chomsky-hierarchy benchmark (`build_chomsky_model`).
CHOMSKY_MODELS = ("stack", "queue", "deque", "superposition_stack", "lstm")
# Delétang et al.'s sizes: the RNN cores' 256 units and the Stack-RNN's 30
# stack vectors (their `StackRNNCore` default) of 8 (their memory cell size).
CHOMSKY_HIDDEN_SIZE = 256
CHOMSKY_STACK_SIZE = 30
CHOMSKY_MEMORY_WIDTH = 8

# What `build_transducer`, `build_hao_model` and `transduce` read of a layout.
LAYOUT_ATTRIBUTES = ("name", "source_vocab_size", "target_vocab_size", "input_vocab_size", "output_vocab_size")


def build_transducer(
    layout,
    memory="stack",
    hidden_size=256,
    memory_width=256,
    lstm_layers=None,
    embedding_dim=64,
    memory_options=None,
    name=None,
):
    """The paper's transducer: embeddings, a recurrent core, a softmax layer.

    Inputs are joint-sequence ids, `3 + S + T` of them for `S` source and
    `T` target symbols. Source and target symbols have disjoint ids, so the
    one 64-d embedding table holds separate source and target embeddings,
    as in the paper. The core is `MemoryRNN` over a Stack-, Queue- or
    DeQue-LSTM (so it runs at any length), or a deep LSTM of `lstm_layers`
    layers. The output is logits over the `2 + T` output ids.

    Args:
        layout: The joint layout of the task's vocabularies,
            `tfds_tasks.Layout("joint", S, T)`.
        memory: "stack", "queue", "deque", or "lstm" for the deep-LSTM
            baseline.
        hidden_size: LSTM units (the paper: 256 or 512).
        memory_width: Memory vector size (the paper: 256).
        lstm_layers: Layers of the "lstm" baseline (the paper: 1, 2, 4, 8);
            None gives 2. A memory model's controller is one LSTM layer, so
            it takes None or 1.
        embedding_dim: Embedding size (the paper: 64).
        memory_options: The memory cell's `MemoryOptions` (strength noise,
            gate activation, the DeQue's quiet end, the pop bias); None:
            the paper's. A model without a memory (`"lstm"`) takes only
            the defaults.
        name: Model name; defaults to e.g. "stack_lstm_256".

    Returns:
        An uncompiled `keras.Model` from `(batch, time)` int ids to
        `(batch, time, 2 + T)` logits.

    Example:

    ```python
    import keras
    from tfds_tasks import Layout
    from keras_neural_memory import CoarseAccuracy, FineAccuracy, MemoryOptions
    from keras_neural_memory.models import build_transducer

    model = build_transducer(Layout("joint", 8, 8), memory="deque", hidden_size=16, memory_width=8,
                             memory_options=MemoryOptions(strength_noise=0.5))
    model.compile(keras.optimizers.RMSprop(1e-3, clipnorm=1.0),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  weighted_metrics=[CoarseAccuracy(), FineAccuracy()])
    print(model.output_shape)  # (None, None, 10): 2 + T output ids
    ```
    """
    _check_layout(layout, "joint")
    check_choice("memory", memory, MEMORY_KINDS)
    for arg, value in (("hidden_size", hidden_size), ("memory_width", memory_width), ("embedding_dim", embedding_dim)):
        check_positive_int(arg, value)
    check_lstm_layers(lstm_layers, memory)
    memory_options = _memory_options(memory_options, memory)

    inputs = keras.Input((None,), dtype="int32", name="joint_ids")
    x = keras.layers.Embedding(layout.input_vocab_size, embedding_dim, mask_zero=True, name="embedding")(inputs)
    if memory == "lstm":
        lstm_layers = lstm_layers or DEFAULT_LSTM_LAYERS
        for i in range(lstm_layers):
            x = keras.layers.LSTM(hidden_size, return_sequences=True, name=f"lstm_{i}")(x)
        default_name = f"lstm{lstm_layers}_{hidden_size}"
    else:
        cell = MEMORY_CELLS[memory](keras.layers.LSTMCell(hidden_size), memory_width=memory_width,
                                    **memory_options.cell_kwargs(memory))  # fmt: skip
        x = MemoryRNN(cell, return_sequences=True, name=f"{memory}_rnn")(x)
        default_name = f"{memory}_lstm_{hidden_size}"
    logits = keras.layers.Dense(layout.output_vocab_size, name="logits")(x)
    return keras.Model(inputs, logits, name=name or default_name)


def _check_layout(layout, expected):
    """Checks that `layout` is a `tfds_tasks.Layout` (or alike) of the `expected` layout."""
    example = f'tfds_tasks.Layout("{expected}", source_vocab_size, target_vocab_size)'
    if not all(hasattr(layout, attribute) for attribute in LAYOUT_ATTRIBUTES):
        raise TypeError(f"`layout` must be a layout of the task's ids, e.g. {example}; received {layout!r}.")
    if layout.name != expected:
        raise ValueError(f"`layout` must be the {expected} layout, e.g. {example}; received the {layout.name!r} layout.")


def _memory_options(memory_options, memory):
    """`memory_options` (None: the defaults), checked to apply to `memory`."""
    if memory_options is None:
        return MemoryOptions()
    if not isinstance(memory_options, MemoryOptions):
        raise TypeError(f"`memory_options` must be a MemoryOptions or None; received {type(memory_options).__name__}.")
    memory_options.check_for(memory)
    return memory_options


def build_hao_model(
    layout,
    controller="lstm",
    stack=True,
    hidden_size=10,
    memory_width=2,
    memory_options=None,
    name=None,
):
    """A network of Hao et al. 2018 (§2.2, §5) for the aligned layout.

    Inputs are `1 + S` ids (0 pads) for `S` source symbols, one-hot encoded
    as in the paper; outputs are logits over `1 + T` ids for `T` target
    symbols.

    * `controller="linear", stack=True`: the linear controller with a
      stack: `u, d, v` are sigmoids and the output is linear in
      `[x_t || r_{t-1}]` (a `StackCell` around `LinearController`).
    * `controller="linear", stack=False`: a linear map of `x_t` alone.
    * `controller="lstm"`: an LSTM of `hidden_size` units, with the stack
      (Stack-LSTM, tanh output and values as in Grefenstette et al.) or
      without it.

    Args:
        layout: The aligned layout of the task's vocabularies,
            `tfds_tasks.Layout("aligned", S, T)`.
        controller: "lstm" or "linear".
        stack: Whether the network has a Neural Stack.
        hidden_size: LSTM state size (the paper: 10).
        memory_width: Stack vector size (the paper: 2, or 6 for XOR).
        memory_options: The `StackCell`'s `MemoryOptions` (with a stack
            only; without one, only the defaults); None: the defaults.
        name: Model name.

    Returns:
        An uncompiled `keras.Model`.

    Example:

    ```python
    import numpy as np
    from tfds_tasks import Layout
    from keras_neural_memory.models import build_hao_model

    model = build_hao_model(Layout("aligned", 2, 2), controller="linear", memory_width=6)
    print(model(np.array([[1, 2, 1, 0]])).shape)  # (1, 4, 3): 1 + T output ids
    ```
    """
    _check_layout(layout, "aligned")
    check_choice("controller", controller, CONTROLLERS)
    for arg, value in (("hidden_size", hidden_size), ("memory_width", memory_width)):
        check_positive_int(arg, value)
    memory_options = _memory_options(memory_options, "stack" if stack else controller)

    outputs = layout.output_vocab_size
    input_ids = layout.input_vocab_size
    inputs = keras.Input((None,), dtype="int32", name="ids")
    # A frozen identity embedding is a one-hot encoding that also masks the
    # padding id 0, and saves without a Lambda layer.
    x = keras.layers.Embedding(
        input_ids,
        input_ids,
        embeddings_initializer="identity",
        trainable=False,
        mask_zero=True,
        name="one_hot",
    )(inputs)
    if stack:
        if controller == "linear":
            cell = StackCell(
                LinearController(),
                output_size=outputs,
                memory_width=memory_width,
                output_activation=None,
                value_activation="sigmoid",
                **memory_options.cell_kwargs("stack"),
            )
        else:
            cell = StackCell(keras.layers.LSTMCell(hidden_size), memory_width=memory_width,
                             **memory_options.cell_kwargs("stack"))  # fmt: skip
        x = MemoryRNN(cell, return_sequences=True, name="stack_rnn")(x)
    elif controller == "lstm":
        x = keras.layers.LSTM(hidden_size, return_sequences=True, name="lstm")(x)
    logits = x if stack and controller == "linear" else keras.layers.Dense(outputs, name="logits")(x)
    default_name = f"{controller}{'_stack' if stack else ''}"
    return keras.Model(inputs, logits, name=name or default_name)


def _recurrent_layers(model):
    """The embedding, recurrent layers and output layer of a transducer."""
    layers = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    ok = (
        len(layers) >= 3
        and isinstance(layers[0], keras.layers.Embedding)
        and isinstance(layers[-1], keras.layers.Dense)
        and all(isinstance(layer, keras.layers.RNN) for layer in layers[1:-1])
    )
    if not ok:
        raise ValueError(
            "`model` must be a transducer from `build_transducer` (Embedding, RNN layers, "
            f"Dense); received layers {[type(layer).__name__ for layer in layers]}."
        )
    return layers[0], layers[1:-1], layers[-1]


def transduce(model, sources, layout, max_target_length=None):
    """Greedy decoding: reads `<s> source |||`, then emits symbols until `</s>`.

    Each emitted symbol is fed back as the next input, as in the paper's
    evaluation (§4.3). Runs the model's cells one step at a time, with the
    memory sized for the whole sequence, so it works at any length.

    Args:
        model: A model from `build_transducer` (trained or loaded).
        sources: A list of source sequences (lists of ids in `[0, S)`).
        layout: The joint layout the model was built with,
            `tfds_tasks.Layout("joint", S, T)`.
        max_target_length: Most target symbols to emit before giving up on
            `</s>`; defaults to `2 * len(source) + 8`.

    Returns:
        A list of target id lists (without `</s>`), one per source.

    Example:

    ```python
    from tfds_tasks import Layout
    from keras_neural_memory.models import build_transducer, transduce

    layout = Layout("joint", 8, 8)
    model = build_transducer(layout, hidden_size=16, memory_width=8)  # then train it
    print(transduce(model, [[5, 1, 2]], layout))
    # [[2, 1, 5]] for a model trained on sequence reversal
    ```
    """
    _check_layout(layout, "joint")
    embedding, rnn_layers, output_layer = _recurrent_layers(model)
    if embedding.input_dim != layout.input_vocab_size:
        raise ValueError(
            f"The model reads {embedding.input_dim} input ids, but `layout` {layout!r} has {layout.input_vocab_size}."
        )
    results = []
    for source in sources:
        source = [int(s) for s in source]
        if any(s < 0 or s >= layout.source_vocab_size for s in source):
            raise ValueError(f"`sources` ids must lie in [0, {layout.source_vocab_size}); received {source}.")
        limit = max_target_length if max_target_length is not None else 2 * len(source) + 8
        prefix = layout.decoding_prefix(source)
        steps = len(prefix) + limit + 1
        states = [
            layer.cell.get_initial_state(batch_size=1, capacity=steps)
            if isinstance(layer.cell, MemoryCell)
            else layer.cell.get_initial_state(batch_size=1)
            for layer in rnn_layers
        ]

        def step(token, states):
            # A direct lookup: calling the layer would attach its (all-True)
            # mask, and each cell would warn that it ignores masks.
            x = ops.cast(ops.take(embedding.embeddings, np.array([token], "int32"), axis=0), embedding.compute_dtype)
            new_states = []
            for layer, state in zip(rnn_layers, states):
                x, state = layer.cell(x, state)
                new_states.append(state)
            return ops.convert_to_numpy(output_layer(x))[0], new_states

        for token in prefix:
            logits, states = step(token, states)
        target = []
        while len(target) < limit:
            emitted = layout.target_ids([int(np.argmax(logits))])
            if not emitted:  # </s> or the padding id
                break
            target.extend(emitted)
            logits, states = step(layout.feedback_id(emitted[0]), states)
        results.append(target)
    return results


def chomsky_blank_id(input_vocab_size):
    """The id of the blank that `chomsky_tape` appends for each output position.

    A model of `build_chomsky_model` reads `input_vocab_size + 2` ids: 0
    pads (masked), `1 + t` is the task's input token `t`, and the last id,
    `input_vocab_size + 1`, is the blank.

    Example:

    >>> chomsky_blank_id(2)
    3
    """
    check_positive_int("input_vocab_size", input_vocab_size)
    return input_vocab_size + 1


def chomsky_tape(inputs, output_length, input_vocab_size, steps=None):
    """The ids a `build_chomsky_model` model reads: the input, then one blank per output.

    This is the non-autoregressive input of Delétang et al. (2023)
    (their code appends one empty token per output): the model reads the input
    tokens, then `output_length` blanks, and its outputs at the blanks are
    the answer. With `steps`, the tape is padded on the left with id 0 to
    `steps` steps; the models mask those steps, so the answer does not
    change (several lengths can then share one compiled shape).

    Args:
        inputs: `(batch, input_length)` task input ids in `[0, input_vocab_size)`.
        output_length: Output positions of the task at this length.
        input_vocab_size: The task's input vocabulary size.
        steps: Total steps, at least `input_length + output_length`; None
            gives exactly that (no padding).

    Returns:
        An int32 NumPy array `(batch, steps)`.

    Example:

    >>> chomsky_tape(np.array([[0, 1, 1]]), 3, 2).tolist()   # 1 + token, then blanks (3)
    [[1, 2, 2, 3, 3, 3]]
    >>> chomsky_tape(np.array([[1]]), 1, 2, steps=4).tolist()
    [[0, 0, 2, 3]]
    """
    inputs = np.asarray(inputs)
    if inputs.ndim != 2:
        raise ValueError(f"`inputs` must be (batch, input_length) ids; received shape {inputs.shape}.")
    blank = chomsky_blank_id(input_vocab_size)
    check_positive_int("output_length", output_length)
    if inputs.size and (inputs.min() < 0 or inputs.max() >= input_vocab_size):
        raise ValueError(f"`inputs` ids must lie in [0, {input_vocab_size}); received ids from {inputs.min()} to {inputs.max()}.")
    used = inputs.shape[1] + output_length
    steps = used if steps is None else steps
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < used:
        raise ValueError(f"`steps` must be at least input_length + output_length = {used}; received steps={steps!r}.")
    tape = np.zeros((inputs.shape[0], steps), np.int32)
    tape[:, steps - used : steps - output_length] = inputs + 1
    tape[:, steps - output_length :] = blank
    return tape


def chomsky_output_logits(model, inputs, output_length, input_vocab_size, steps=None):
    """The answer of a `build_chomsky_model` model: its logits at the blanks.

    Args:
        model: A model of `build_chomsky_model`.
        inputs: `(batch, input_length)` task input ids.
        output_length: Output positions of the task at this length.
        input_vocab_size: The task's input vocabulary size.
        steps: Left-pad the tape to this many steps (see `chomsky_tape`).

    Returns:
        `(batch, output_length, output_vocab_size)` logits, a NumPy array.

    Example:

    ```python
    import numpy as np
    from keras_neural_memory.models import build_chomsky_model, chomsky_output_logits

    model = build_chomsky_model(2, 2, memory="stack", hidden_size=8)
    logits = chomsky_output_logits(model, np.array([[0, 1, 1]]), 3, input_vocab_size=2)
    print(logits.shape)  # (1, 3, 2)
    ```
    """
    tape = chomsky_tape(inputs, output_length, input_vocab_size, steps)
    return ops.convert_to_numpy(model(tape, training=False))[:, -output_length:]


def haiku_initializer(fan_in):
    """The weights of a Haiku `Linear` of `fan_in` inputs, as a Keras initializer.

    Haiku draws them from a normal of standard deviation `1 / sqrt(fan_in)`
    truncated at two of those standard deviations, without rescaling (the
    draws' own standard deviation is then `0.880 / sqrt(fan_in)`): that is
    `keras.initializers.TruncatedNormal(stddev=1 / sqrt(fan_in))`, which
    truncates at two standard deviations on TensorFlow and JAX.
    `VarianceScaling(1.0, "fan_in", "truncated_normal")` instead divides the
    standard deviation by 0.880, the standard deviation of a unit normal
    truncated there, and draws weights 1.137 times wider.

    Args:
        fan_in: The inputs of the authors' linear map.

    Returns:
        A `keras.initializers.TruncatedNormal`.

    Example:

    >>> haiku_initializer(4).stddev
    0.5
    """
    check_positive_int("fan_in", fan_in)
    return keras.initializers.TruncatedNormal(stddev=1.0 / float(np.sqrt(fan_in)))


def build_chomsky_model(
    input_vocab_size,
    output_vocab_size,
    memory="stack",
    hidden_size=CHOMSKY_HIDDEN_SIZE,
    memory_width=CHOMSKY_MEMORY_WIDTH,
    stack_size=CHOMSKY_STACK_SIZE,
    memory_options=None,
    name=None,
):
    """A model of the Chomsky-hierarchy benchmark (Delétang et al. 2023), as the authors' code builds it.

    The layout is the authors' non-autoregressive one: the model reads a
    tape of the input tokens followed by one blank per output position
    (`chomsky_tape`) and its outputs at the blanks are the answer
    (`chomsky_output_logits`; training weights the other positions 0).
    Each id is one-hot encoded, as the authors' inputs are, by a frozen
    identity `Embedding` that also masks the left padding (id 0): the
    authors' one-hot of the `input_vocab_size` tokens plus one blank
    dimension, and one more dimension for the padding, which no unmasked
    step sets. The recurrent core's outputs go through a ReLU, then a
    `Dense` readout, as in the authors' `make_rnn`.

    * `"superposition_stack"`: the authors' Stack-RNN (`StackRNNCore`
      around `hk.VanillaRNN`): a `VanillaRNNCell` of `hidden_size` ReLU
      units with a bias on its input and on its recurrent projection, and
      the stack of Joulin & Mikolov (2015), `stack_size` vectors of
      `memory_width` (`SuperpositionStackCell`, run by `keras.layers.RNN`).
    * `"lstm"`: the authors' LSTM (`hk.LSTM`), one `keras.layers.LSTM` of
      `hidden_size` units. Haiku adds 1 to the forget gate's
      pre-activation, whose bias starts at 0; Keras' `unit_forget_bias`
      starts that bias at 1. That is the same function and, as the
      offset is constant, the same gradients and optimiser steps.
    * `"stack"`, `"queue"`, `"deque"`: the same LSTM as the controller of
      this package's Neural Stack, Queue or DeQue of `memory_width`
      (`MemoryRNN`, the memory sized to each tape). They differ from the
      Stack-RNN only in their cell: the tape, readout, initialisation,
      loss and optimiser are the same.

    Every weight starts as Haiku's do (`haiku_initializer` of the authors'
    fan-in, biases zero). The fan-in of a layer is that of the authors'
    input, without the padding dimension; an LSTM's kernels are one
    `Linear` of `[x_t, h_{t-1}]` in Haiku, so both take the fan-in of the
    two together. The memory cells' push and pop biases keep their
    initial values (`MemoryOptions.pop_bias_init`).

    Args:
        input_vocab_size: The task's input vocabulary size.
        output_vocab_size: The task's output vocabulary size.
        memory: One of `CHOMSKY_MODELS`.
        hidden_size: Units of the controller or LSTM.
        memory_width: Size of each memory (stack) vector.
        stack_size: Vectors the superposition stack holds
            (`"superposition_stack"` only; the others grow with the tape).
            The trained weights do not depend on it.
        memory_options: The memory cell's `MemoryOptions` ("stack",
            "queue" and "deque"; the other models take only the defaults);
            None: the defaults.
        name: Model name; default e.g. "chomsky_stack_256".

    Returns:
        An uncompiled `keras.Model` from `(batch, steps)` tape ids to
        `(batch, steps, output_vocab_size)` logits.

    Example:

    ```python
    import numpy as np
    from keras_neural_memory.models import build_chomsky_model, chomsky_tape

    model = build_chomsky_model(2, 2, memory="superposition_stack", hidden_size=16)
    tape = chomsky_tape(np.array([[0, 1, 1], [1, 1, 0]]), 3, input_vocab_size=2)
    print(tape[0], model(tape).shape)  # [1 2 2 3 3 3] (2, 6, 2): logits at every step
    ```
    """
    check_choice("memory", memory, CHOMSKY_MODELS)
    for arg, value in (
        ("input_vocab_size", input_vocab_size),
        ("output_vocab_size", output_vocab_size),
        ("hidden_size", hidden_size),
        ("memory_width", memory_width),
        ("stack_size", stack_size),
    ):
        check_positive_int(arg, value)
    memory_options = _memory_options(memory_options, memory)
    tape_ids = chomsky_blank_id(input_vocab_size) + 1
    # The authors' one-hot: the tokens and the blank, without the padding dimension.
    authors_features = tape_ids - 1
    inputs = keras.Input((None,), dtype="int32", name="tape_ids")
    x = keras.layers.Embedding(
        tape_ids, tape_ids, embeddings_initializer="identity", trainable=False, mask_zero=True, name="one_hot"
    )(inputs)

    def lstm_initializers(input_features):
        # Two initializers: Keras fixes an initializer's seed when it is made, so one would draw both alike.
        fan_in = input_features + hidden_size
        return dict(kernel_initializer=haiku_initializer(fan_in), recurrent_initializer=haiku_initializer(fan_in),
                    unit_forget_bias=True)  # fmt: skip

    if memory in MEMORY_CELLS:
        cell_class = MEMORY_CELLS[memory]
        reads = cell_class.memory_class.slots_per_step * memory_width
        controller = keras.layers.LSTMCell(hidden_size, **lstm_initializers(authors_features + reads))
        cell = cell_class(controller, memory_width=memory_width, kernel_initializer=haiku_initializer(hidden_size),
                          **memory_options.cell_kwargs(memory))  # fmt: skip
        x = MemoryRNN(cell, return_sequences=True, name=f"{memory}_rnn")(x)
    elif memory == "superposition_stack":
        controller = VanillaRNNCell(hidden_size, kernel_initializer=haiku_initializer(authors_features + memory_width),
                                    recurrent_initializer=haiku_initializer(hidden_size))  # fmt: skip
        cell = SuperpositionStackCell(controller, stack_size, memory_width, kernel_initializer=haiku_initializer(hidden_size))
        x = keras.layers.RNN(cell, return_sequences=True, name="superposition_stack_rnn")(x)
    else:
        x = keras.layers.LSTM(hidden_size, return_sequences=True, name="lstm", **lstm_initializers(authors_features))(x)
    x = keras.layers.ReLU(name="relu")(x)
    logits = keras.layers.Dense(output_vocab_size, kernel_initializer=haiku_initializer(hidden_size), name="logits")(x)
    return keras.Model(inputs, logits, name=name or f"chomsky_{memory}_{hidden_size}")


def parameter_table(models):
    """Rows `(name, parameters)` like the paper's Appendix D table.

    Args:
        models: An iterable of built Keras models.

    Returns:
        A markdown table string.

    Example:

    ```python
    from tfds_tasks import Layout
    from keras_neural_memory.models import build_transducer, parameter_table

    stack = build_transducer(Layout("joint", 8, 8), memory="stack", hidden_size=16, memory_width=8)
    lstm = build_transducer(Layout("joint", 8, 8), memory="lstm", hidden_size=16)
    print(parameter_table([stack, lstm]))
    # | model | trainable parameters |
    # |---|---|
    # | stack_lstm_16 | 7,524 |
    # | lstm2_16 | 8,682 |
    ```
    """
    rows = ["| model | trainable parameters |", "|---|---|"]
    for model in models:
        count = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
        rows.append(f"| {model.name} | {count:,} |")
    return "\n".join(rows)
