"""`MemoryRNN` at its edge: inputs of the wrong rank, and sequences of length 0."""

import keras
import numpy as np
import pytest

from keras_neural_memory import DequeCell, MemoryRNN, QueueCell, StackCell

CELLS = [StackCell, QueueCell, DequeCell]
EXPECTED = "expects `sequences` of shape (batch, time, features)"


def make_layer(cell_cls=StackCell, **kwargs):
    return MemoryRNN(cell_cls(keras.layers.GRUCell(6), memory_width=3), **kwargs)


@pytest.mark.parametrize("shape", [(2, 4), (2, 3, 4, 1)])
def test_wrong_rank_on_the_first_call_is_one_line_naming_both_shapes(shape):
    with pytest.raises(ValueError) as error:
        make_layer()(np.zeros(shape, "float32"))
    message = str(error.value)
    assert EXPECTED in message and f"received shape {shape}." in message
    assert "\n" not in message


def test_wrong_rank_of_a_symbolic_input_is_refused_when_the_model_is_built():
    with pytest.raises(ValueError, match=r"received shape \(None, 5\)"):
        make_layer()(keras.Input((5,)))


def test_wrong_rank_after_the_layer_is_built():
    layer = make_layer()
    layer(np.zeros((2, 3, 4), "float32"))
    # Keras adds the call's arguments to an error raised in `call`.
    with pytest.raises(ValueError, match=r"\(batch, time, features\); received shape \(2, 4\)\."):
        layer(np.zeros((2, 4), "float32"))


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("cell_cls", CELLS)
def test_zero_length_returns_the_initial_states(cell_cls, fused):
    layer = make_layer(cell_cls, fused=fused, return_sequences=True, return_state=True)
    rng = np.random.default_rng(0)
    layer(rng.normal(size=(2, 3, 4)).astype("float32"))  # build
    start = layer.cell.get_initial_state(batch_size=2, capacity=5)
    _, *states = layer(rng.normal(size=(2, 3, 4)).astype("float32"), initial_state=start)

    outputs, *final = layer(np.zeros((2, 0, 4), "float32"), initial_state=states)
    assert tuple(outputs.shape) == (2, 0, layer.cell.output_size)
    assert len(final) == len(states)
    for got, want in zip(final, states):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(got), keras.ops.convert_to_numpy(want))

    # Without an initial state: the empty memory of `get_initial_state(capacity=0)`.
    outputs, *final = layer(np.zeros((2, 0, 4), "float32"))
    assert tuple(outputs.shape) == (2, 0, layer.cell.output_size)
    assert [tuple(s.shape) for s in final] == [(2, size) for size in layer.cell.state_size_for(0)]
    assert all(not np.any(keras.ops.convert_to_numpy(s)) for s in final)


def test_zero_length_without_return_sequences_gives_the_initial_output():
    layer = make_layer(DequeCell, return_state=True)
    layer(np.ones((2, 3, 4), "float32"))
    _, *states = layer(np.ones((2, 3, 4), "float32"))
    last, *_ = layer(np.ones((2, 0, 4), "float32"), initial_state=states)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(last), keras.ops.convert_to_numpy(states[0]))
    assert tuple(make_layer()(np.ones((2, 0, 4), "float32")).shape) == (2, 6)


@pytest.mark.filterwarnings("ignore:Gradients do not exist:UserWarning")  # a loss on no steps
def test_zero_length_predicts_and_trains_under_jit_compile():
    inputs = keras.Input((None, 4))
    outputs = keras.layers.Dense(2)(make_layer(QueueCell, return_sequences=True)(inputs))
    model = keras.Model(inputs, outputs)
    model.compile("sgd", "mse", jit_compile=True)
    empty = np.zeros((3, 0, 4), "float32")
    assert model.predict_on_batch(empty).shape == (3, 0, 2)
    assert np.isfinite(model.train_on_batch(empty, np.zeros((3, 0, 2), "float32")))
    assert model.predict_on_batch(np.ones((3, 5, 4), "float32")).shape == (3, 5, 2)


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="JAX always traces with the length known")
@pytest.mark.xfail(
    strict=True,
    reason="a TensorFlow graph traced for an unknown length cannot run a zero-length input: the scan's "
    "TensorArray of per-step outputs cannot be stacked empty (keras_neural_memory.backend_ops._tf_scan; "
    "Keras' generic RNN loop fails the same way)",
)
def test_zero_length_in_a_graph_traced_for_any_length():
    import tensorflow as tf

    layer = make_layer(return_sequences=True)
    run = tf.function(layer, input_signature=[tf.TensorSpec((None, None, 4))])
    assert tuple(run(tf.zeros((2, 3, 4))).shape) == (2, 3, 6)
    assert tuple(run(tf.zeros((2, 0, 4))).shape) == (2, 0, 6)
