"""The Chomsky-hierarchy protocol against NumPy transcriptions of the authors' code.

The authors' code is google-deepmind/neural_networks_chomsky_hierarchy
(JAX, Haiku, optax). Each reference below is written here, in NumPy, from
what that code computes:

* `models/stack_rnn.py` `StackRNNCore` around `hk.VanillaRNN`, and
  `models/rnn.py` `make_rnn` (a ReLU, then `hk.Linear`): the Stack-RNN;
* `hk.LSTM` (one `Linear` of `[x, h]`, gates i, g, f, o, 1 added to f);
* `experiments/example.py` `loss_fn` (class-summed cross-entropy, mean over
  the batch and the output positions) and `accuracy_fn` (masked), and
  `experiments/range_evaluation.py` (the mean of sub-batch accuracies);
* `optax.chain(optax.clip_by_global_norm(1.0), optax.adam(lr))`;
* `hk.Linear`'s initialisers (`TruncatedNormal(1 / sqrt(fan_in))`, zero bias).

A test fails if its part of the package reverts to what it computed
before: a tanh controller with one bias, Keras' initialisers, the loss
masked and summed over positions, Keras' Adam, or the accuracy pooled
over all sequences of a length.
"""

import random

import keras
import numpy as np
import pytest

from keras_neural_memory import OptaxAdam, VanillaRNNCell
from keras_neural_memory.experiments import chomsky
from keras_neural_memory.models import (
    MEMORY_CELLS,
    build_chomsky_model,
    chomsky_output_logits,
    chomsky_tape,
    haiku_initializer,
)
from tfds_tasks.generators.chomsky_hierarchy import chomsky_task, evaluation_batches

HIDDEN, WIDTH = 16, 8


# --------------------------------------------------------------- references


def relu(x):
    return np.maximum(x, 0.0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def authors_one_hot(tape, input_vocab_size):
    """The authors' input: one-hot tokens, then the blank dimension (no padding dimension)."""
    return np.eye(input_vocab_size + 1)[tape - 1]


def reference_stack_rnn(p, x, stack_size):
    """`make_rnn(StackRNNCore(inner_core=hk.VanillaRNN))` on one-hot `x` (batch, time, features)."""
    batch, steps, _ = x.shape
    h = np.zeros((batch, p["w_hh"].shape[0]))
    stack = np.zeros((batch, stack_size, p["w_push"].shape[1]))
    outputs = []
    for t in range(steps):
        core_input = np.concatenate([x[:, t], stack[:, 0]], -1)
        h = relu(core_input @ p["w_ih"] + p["b_ih"] + h @ p["w_hh"] + p["b_hh"])
        push_value = h @ p["w_push"] + p["b_push"]
        push, pop, no_op = np.split(softmax(h @ p["w_act"] + p["b_act"]), 3, axis=-1)
        top = push * push_value + pop * stack[:, 1] + no_op * stack[:, 0]
        below = np.concatenate([stack[:, 2:], np.zeros_like(stack[:, :1])], 1)
        rest = push[:, None] * stack[:, :-1] + pop[:, None] * below + no_op[:, None] * stack[:, 1:]
        stack = np.concatenate([top[:, None], rest], 1)
        outputs.append(h)
    return relu(np.stack(outputs, 1)) @ p["w_out"] + p["b_out"]


def reference_lstm_step(w, b, x, h, c):
    """`hk.LSTM`: one `Linear` of `[x, h]`, gates split as i, g, f, o, 1 added to the forget gate."""
    i, g, f, o = np.split(np.concatenate([x, h], -1) @ w + b, 4, axis=-1)
    c = sigmoid(f + 1) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def reference_lstm(p, x):
    """`make_rnn(hk.LSTM)` on one-hot `x`."""
    h = c = np.zeros((x.shape[0], p["b"].shape[0] // 4))
    outputs = []
    for t in range(x.shape[1]):
        h, c = reference_lstm_step(p["w"], p["b"], x[:, t], h, c)
        outputs.append(h)
    return relu(np.stack(outputs, 1)) @ p["w_out"] + p["b_out"]


def reference_loss(logits, targets, output_vocab_size):
    """`loss_fn`: `mean(sum(-one_hot(target) * log_softmax(output), axis=-1))` over the output positions."""
    return np.mean(np.sum(-np.eye(output_vocab_size)[targets] * log_softmax(logits), axis=-1))


def reference_accuracy(sub_batches):
    """`range_evaluation` with `accuracy_fn`: the mean over sub-batches of their masked accuracy."""
    return np.mean([np.sum(mask * (np.argmax(logits, -1) == target)) / np.sum(mask)
                    for logits, target, mask in sub_batches])  # fmt: skip


def reference_optax_steps(params, gradient_steps, learning_rate, max_norm=1.0, b1=0.9, b2=0.999, eps=1e-8):
    """`optax.chain(clip_by_global_norm(max_norm), adam(learning_rate))` over `gradient_steps`."""
    params = [p.astype(np.float64) for p in params]
    mu = [np.zeros_like(p) for p in params]
    nu = [np.zeros_like(p) for p in params]
    for count, grads in enumerate(gradient_steps, start=1):
        norm = np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in grads))
        grads = [g if norm < max_norm else g / norm * max_norm for g in grads]
        mu = [b1 * m + (1 - b1) * g for m, g in zip(mu, grads)]
        nu = [b2 * v + (1 - b2) * g**2 for v, g in zip(nu, grads)]
        params = [p - learning_rate * (m / (1 - b1**count)) / (np.sqrt(v / (1 - b2**count)) + eps)
                  for p, m, v in zip(params, mu, nu)]  # fmt: skip
    return params


# ------------------------------------------------------------ weights in

GATES_KERAS_ORDER = (0, 2, 1, 3)  # Haiku's blocks i, g, f, o in Keras' order i, f, c, o


def keras_lstm_weights(w, b, input_features):
    """Haiku's LSTM `Linear` (w, b) as Keras' kernel, recurrent kernel and bias (a zero padding row first)."""
    blocks = np.split(w, 4, axis=1)
    w = np.concatenate([blocks[k] for k in GATES_KERAS_ORDER], axis=1)
    bias_blocks = np.split(b, 4)
    bias_blocks[2] = bias_blocks[2] + 1.0  # Keras keeps Haiku's forget offset in the bias (unit_forget_bias)
    bias = np.concatenate([bias_blocks[k] for k in GATES_KERAS_ORDER])
    kernel = np.concatenate([np.zeros((1, w.shape[1])), w[:input_features]])
    return kernel, w[input_features:], bias


def random_params(rng, shapes):
    return {name: rng.normal(0, 0.3, shape) for name, shape in shapes.items()}


def reverse_string_tape(length=6, batch=4):
    task = chomsky_task("reverse_string")
    inputs = task.sample_batch(random.Random(0), batch, length).input
    return task, chomsky_tape(inputs, task.output_length(length), task.input_vocab_size)


# ------------------------------------------------------------------ models


def test_the_stack_rnn_is_the_authors_with_the_same_weights():
    task, tape = reverse_string_tape()
    features, stack_size = task.input_vocab_size + 1, 4  # a stack shallower than the tape: its bottom is dropped
    p = random_params(np.random.default_rng(0), {
        "w_ih": (features + WIDTH, HIDDEN), "b_ih": (HIDDEN,), "w_hh": (HIDDEN, HIDDEN), "b_hh": (HIDDEN,),
        "w_push": (HIDDEN, WIDTH), "b_push": (WIDTH,), "w_act": (HIDDEN, 3), "b_act": (3,),
        "w_out": (HIDDEN, task.output_vocab_size), "b_out": (task.output_vocab_size,),
    })  # fmt: skip
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="superposition_stack",
                                hidden_size=HIDDEN, memory_width=WIDTH, stack_size=stack_size)  # fmt: skip
    cell = model.get_layer("superposition_stack_rnn").cell
    controller = cell.controller
    assert isinstance(controller, VanillaRNNCell)
    controller.kernel.assign(np.concatenate([np.zeros((1, HIDDEN)), p["w_ih"]]))
    controller.bias.assign(p["b_ih"])
    controller.recurrent_kernel.assign(p["w_hh"])
    controller.recurrent_bias.assign(p["b_hh"])
    for name, key in (("push_value_kernel", "w_push"), ("push_value_bias", "b_push"), ("action_kernel", "w_act"),
                      ("action_bias", "b_act")):  # fmt: skip
        getattr(cell, name).assign(p[key])
    model.get_layer("logits").kernel.assign(p["w_out"])
    model.get_layer("logits").bias.assign(p["b_out"])
    expected = reference_stack_rnn(p, authors_one_hot(tape, task.input_vocab_size), stack_size)
    np.testing.assert_allclose(np.asarray(model(tape)), expected, atol=2e-5, rtol=1e-5)


def test_the_lstm_is_hk_lstm_with_the_same_weights():
    task, tape = reverse_string_tape()
    features = task.input_vocab_size + 1
    p = random_params(np.random.default_rng(1), {
        "w": (features + HIDDEN, 4 * HIDDEN), "b": (4 * HIDDEN,),
        "w_out": (HIDDEN, task.output_vocab_size), "b_out": (task.output_vocab_size,),
    })  # fmt: skip
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="lstm", hidden_size=HIDDEN)
    cell = model.get_layer("lstm").cell
    for variable, value in zip((cell.kernel, cell.recurrent_kernel, cell.bias), keras_lstm_weights(p["w"], p["b"], features)):
        variable.assign(value)
    model.get_layer("logits").kernel.assign(p["w_out"])
    model.get_layer("logits").bias.assign(p["b_out"])
    expected = reference_lstm(p, authors_one_hot(tape, task.input_vocab_size))
    np.testing.assert_allclose(np.asarray(model(tape)), expected, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize("memory", tuple(MEMORY_CELLS))
def test_the_memory_models_controller_is_hk_lstm(memory):
    """The Stack-, Queue- and DeQue-LSTM differ from the others in their cell only: their controller is `hk.LSTM`."""
    task = chomsky_task("reverse_string")
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory=memory, hidden_size=HIDDEN,
                                memory_width=WIDTH)  # fmt: skip
    controller = model.get_layer(f"{memory}_rnn").cell.controller
    features = task.input_vocab_size + 1 + MEMORY_CELLS[memory].memory_class.slots_per_step * WIDTH
    rng = np.random.default_rng(2)
    w, b = rng.normal(0, 0.5, (features + HIDDEN, 4 * HIDDEN)), rng.normal(0, 0.5, 4 * HIDDEN)
    for variable, value in zip((controller.kernel, controller.recurrent_kernel, controller.bias),
                               keras_lstm_weights(w, b, features)):  # fmt: skip
        variable.assign(value)
    x, h, c = rng.normal(size=(3, features)), rng.normal(size=(3, HIDDEN)), rng.normal(size=(3, HIDDEN))
    keras_x = np.concatenate([np.zeros((3, 1)), x], -1).astype("float32")  # the padding dimension first
    output, (new_h, new_c) = controller(keras_x, [h.astype("float32"), c.astype("float32")])
    expected_h, expected_c = reference_lstm_step(w, b, x, h, c)
    np.testing.assert_allclose(np.asarray(new_h), expected_h, atol=1e-5)
    np.testing.assert_allclose(np.asarray(new_c), expected_c, atol=1e-5)
    assert [type(layer).__name__ for layer in model.layers[-2:]] == ["ReLU", "Dense"]


def _weights_by_fan_in(model, memory, input_vocab_size, hidden):
    """`(name, variable, the authors' fan-in)` of every kernel of a Chomsky model."""
    features = input_vocab_size + 1
    readout = model.get_layer("logits").kernel
    if memory == "superposition_stack":
        cell = model.get_layer("superposition_stack_rnn").cell
        return [("input kernel", cell.controller.kernel, features + WIDTH),
                ("recurrent kernel", cell.controller.recurrent_kernel, hidden),
                ("push value", cell.push_value_kernel, hidden), ("actions", cell.action_kernel, hidden),
                ("readout", readout, hidden)]  # fmt: skip
    if memory == "lstm":
        cell = model.get_layer("lstm").cell
        fan_in = features + hidden
    else:
        memory_cell = model.get_layer(f"{memory}_rnn").cell
        cell = memory_cell.controller
        fan_in = features + MEMORY_CELLS[memory].memory_class.slots_per_step * WIDTH + hidden
    kernels = [("LSTM kernel", cell.kernel, fan_in), ("LSTM recurrent kernel", cell.recurrent_kernel, fan_in),
               ("readout", readout, hidden)]  # fmt: skip
    if memory != "lstm":
        kernels.append(("memory heads", memory_cell.kernel, hidden))
    return kernels


@pytest.mark.parametrize("memory", ("superposition_stack", "lstm", *MEMORY_CELLS))
def test_weights_start_as_haikus(memory):
    """Haiku: a normal of stddev 1/sqrt(fan_in) cut at 2 stddevs, not rescaled, so the draws' stddev is 0.88 of it."""
    task = chomsky_task("reverse_string")
    hidden = 256
    keras.utils.set_random_seed(0)
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory=memory, hidden_size=hidden,
                                memory_width=WIDTH)  # fmt: skip
    for name, variable, fan_in in _weights_by_fan_in(model, memory, task.input_vocab_size, hidden):
        values = np.asarray(variable)
        stddev = 1 / np.sqrt(fan_in)
        assert np.abs(values).max() <= 2 * stddev * (1 + 1e-6), name
        if values.size >= 4096:
            assert np.std(values) == pytest.approx(0.8796 * stddev, rel=0.05), name
    biases = [model.get_layer("logits").bias]
    if memory == "superposition_stack":
        cell = model.get_layer("superposition_stack_rnn").cell
        biases += [cell.controller.bias, cell.controller.recurrent_bias, cell.push_value_bias, cell.action_bias]
    for bias in biases:
        np.testing.assert_array_equal(np.asarray(bias), 0.0)
    if memory == "lstm":  # Haiku's forget offset, kept in Keras' bias: 0, 1, 0, 0 by gate blocks
        expected = np.concatenate([np.zeros(hidden), np.ones(hidden), np.zeros(2 * hidden)])
        np.testing.assert_array_equal(np.asarray(model.get_layer("lstm").cell.bias), expected)


def test_haikus_initializer_is_keras_truncated_normal_not_variance_scaling():
    initializer = haiku_initializer(16)
    assert isinstance(initializer, keras.initializers.TruncatedNormal) and initializer.stddev == 0.25
    draws = np.asarray(initializer((512, 512)))
    assert np.abs(draws).max() <= 0.5 and np.std(draws) == pytest.approx(0.8796 * 0.25, rel=0.01)
    wider = np.asarray(keras.initializers.VarianceScaling(1.0, "fan_in", "truncated_normal")((16, 65536)))
    assert np.std(wider) == pytest.approx(0.25, rel=0.01)  # 1.137 times Haiku's draws


def test_the_vanilla_rnn_cell_survives_its_config_and_has_two_biases():
    cell = VanillaRNNCell(5, kernel_initializer=haiku_initializer(3))
    rebuilt = VanillaRNNCell.from_config(cell.get_config())
    assert rebuilt.units == 5 and rebuilt.activation is keras.activations.relu
    assert rebuilt.kernel_initializer.stddev == pytest.approx(1 / np.sqrt(3))
    layer = keras.layers.RNN(rebuilt)
    layer(np.ones((1, 2, 3), "float32"))
    assert [w.name for w in layer.weights] == ["kernel", "bias", "recurrent_kernel", "recurrent_bias"]
    with pytest.raises(ValueError, match="`units` must be a positive integer; received units=0"):
        VanillaRNNCell(0)


# -------------------------------------------------------------------- loss


def test_the_loss_is_the_authors_unmasked_mean_over_batch_and_output_positions():
    """binary_addition pads its answer after the terminator: the authors' loss trains that padding too."""
    task = chomsky_task("binary_addition")
    batch = task.sample_batch(random.Random(1), 8, 6)
    assert 0 < batch.output_mask.sum() < batch.output_mask.size
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="lstm", hidden_size=HIDDEN)
    chomsky.compile_model(model, 1e-3, jit_compile=False)
    tape, targets, weights = chomsky.training_example(task, batch)
    loss = model.evaluate(tape, targets, sample_weight=weights, verbose=0, return_dict=True)["loss"]
    logits = chomsky_output_logits(model, batch.input, batch.output.shape[1], task.input_vocab_size).astype(np.float64)
    expected = reference_loss(logits, batch.output, task.output_vocab_size)
    assert loss == pytest.approx(expected, rel=1e-5)
    picked = -np.take_along_axis(log_softmax(logits), batch.output[..., None], -1)[..., 0]
    assert expected != pytest.approx((picked * batch.output_mask).sum() / len(batch.output), rel=1e-3)


# --------------------------------------------------------------- optimiser


def test_three_steps_are_optax_adam_after_global_norm_clipping():
    rng = np.random.default_rng(3)
    initial = [rng.normal(size=(3, 4)).astype("float32"), rng.normal(size=(5,)).astype("float32")]
    gradient_steps = [
        [rng.normal(0, 1e-6, (3, 4)), rng.normal(0, 1e-6, (5,))],  # tiny: where the epsilons differ
        [rng.normal(0, 2.0, (3, 4)), rng.normal(0, 2.0, (5,))],  # global norm above 1: clipped
        [rng.normal(0, 1e-3, (3, 4)), rng.normal(0, 0.1, (5,))],
    ]
    variables = [keras.Variable(value) for value in initial]
    optimizer = OptaxAdam(1e-3, global_clipnorm=1.0)
    for grads in gradient_steps:
        optimizer.apply_gradients([(keras.ops.convert_to_tensor(g.astype("float32")), v) for g, v in zip(grads, variables)])
    expected = reference_optax_steps(initial, gradient_steps, 1e-3)
    for variable, start, want in zip(variables, initial, expected):
        moved, want_moved = np.asarray(variable) - start, want - start
        np.testing.assert_allclose(moved, want_moved, atol=5e-7, rtol=1e-4)  # float32 parameters near 1


def test_the_protocol_compiles_with_optax_adam_clipped_at_norm_1_and_it_survives_a_keras_file(tmp_path):
    task = chomsky_task("reverse_string")
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="superposition_stack",
                                hidden_size=4, memory_width=2, stack_size=3)  # fmt: skip
    chomsky.compile_model(model, 3e-4)
    assert isinstance(model.optimizer, OptaxAdam) and model.optimizer.global_clipnorm == 1.0
    assert model.optimizer.epsilon == 1e-8
    tape, targets, weights = chomsky.training_example(task, task.sample_batch(random.Random(0), 4, 3))
    model.train_on_batch(tape, targets, sample_weight=weights)
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    assert isinstance(loaded.optimizer, OptaxAdam)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    np.testing.assert_allclose(np.asarray(loaded(tape)), np.asarray(model(tape)), atol=1e-6)
    with pytest.raises(ValueError, match="`amsgrad` is not part of optax.adam"):
        OptaxAdam(amsgrad=True)


# ---------------------------------------------------------------- accuracy


def test_the_accuracy_at_a_length_is_the_mean_of_the_sub_batch_accuracies_of_64():
    setup = chomsky.task_setup("chomsky_hierarchy/binary_addition")
    task = setup.task
    keras.utils.set_random_seed(0)
    model = build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="lstm", hidden_size=HIDDEN)
    chomsky.compile_model(model, 1e-3)
    curve = chomsky.accuracy_by_length(model, setup, seed=3, max_length=4, sequences=128, verbose=False)
    sub_batches, pooled = {}, {}
    for length, batch in evaluation_batches("binary_addition", 3, max_length=4, sequences_per_length=128, batch_size=64):
        logits = chomsky_output_logits(model, batch.input, batch.output.shape[1], task.input_vocab_size)
        sub_batches.setdefault(length, []).append((logits, batch.output, batch.output_mask))
    differs = False
    for point in curve:
        mine = sub_batches[point["length"]]
        assert len(mine) == 2
        assert point["accuracy"] == pytest.approx(reference_accuracy(mine), abs=1e-9)
        right = sum(np.sum(mask * (np.argmax(logits, -1) == target)) for logits, target, mask in mine)
        pooled = right / sum(np.sum(mask) for _, _, mask in mine)
        differs |= abs(pooled - point["accuracy"]) > 1e-9
    assert differs  # the test can tell the two apart
