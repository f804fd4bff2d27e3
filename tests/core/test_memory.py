"""The memory's pure functions against the paper: golden, reference, gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from keras import ops

from keras_neural_memory import memory
from tests.core import reference


def _f32(x):
    return np.asarray(x, dtype="float32")


def run_single(kind, values, pops, pushes, capacity=None):
    """Runs a NeuralStack/NeuralQueue over `(B, T, ...)` arrays; returns reads, final strengths."""
    batch, steps, width = values.shape
    mem = kind(width=width, capacity=capacity or steps)
    state = mem.initial_state(batch)
    reads = []
    for t in range(steps):
        state, r = mem.step(state, _f32(values[:, t]), _f32(pops[:, t, None]), _f32(pushes[:, t, None]))
        reads.append(ops.convert_to_numpy(r))
    return np.stack(reads, 1), ops.convert_to_numpy(mem.strengths(state))


def run_deque(top, bottom, capacity=None):
    values, pops, pushes = top
    batch, steps, width = values.shape
    mem = memory.NeuralDeque(width=width, capacity=capacity or steps)
    state = mem.initial_state(batch)
    reads_top, reads_bottom = [], []
    for t in range(steps):
        state, (r_top, r_bot) = mem.step(
            state,
            top=tuple(_f32(a[:, t] if a.ndim == 3 else a[:, t, None]) for a in top),
            bottom=tuple(_f32(a[:, t] if a.ndim == 3 else a[:, t, None]) for a in bottom),
        )
        reads_top.append(ops.convert_to_numpy(r_top))
        reads_bottom.append(ops.convert_to_numpy(r_bot))
    return np.stack(reads_top, 1), np.stack(reads_bottom, 1), ops.convert_to_numpy(mem.strengths(state))


# ------------------------------------------------------------------ golden


def test_figure_1a_stack_reads():
    """Paper Figure 1a: pushes .8 .5 .9, pops 0 .1 .9 of 1, 2, 3 read .8, 1.5, 2.8."""
    values = _f32([[[1.0], [2.0], [3.0]]])
    reads, strengths = run_single(memory.NeuralStack, values, _f32([[0.0, 0.1, 0.9]]), _f32([[0.8, 0.5, 0.9]]))
    np.testing.assert_allclose(reads[0, :, 0], [0.8, 1.5, 2.8], atol=1e-6)
    # Figure 1a after step 3: the pop of .9 took v2 (.5) and .4 of v1 (.7).
    np.testing.assert_allclose(strengths[0], [0.3, 0.0, 0.9], atol=1e-6)


def test_queue_is_fifo_and_deque_both_ends_with_hard_controls():
    values = _f32(np.arange(1, 5).reshape(1, 4, 1))
    zeros, ones = np.zeros((1, 4), "float32"), np.ones((1, 4), "float32")
    reads, _ = run_single(memory.NeuralQueue, values, zeros, ones)
    np.testing.assert_allclose(reads[0, :, 0], [1, 1, 1, 1])
    reads, _ = run_single(memory.NeuralStack, values, zeros, ones)
    np.testing.assert_allclose(reads[0, :, 0], [1, 2, 3, 4])
    top, bottom, strengths = run_deque((values, zeros, ones), (-values, zeros, ones))
    np.testing.assert_allclose(top[0, :, 0], [1, 2, 3, 4])
    np.testing.assert_allclose(bottom[0, :, 0], [-1, -2, -3, -4])
    np.testing.assert_allclose(strengths[0], np.ones(8))


# --------------------------------------------------------------- reference


def _controls(rng, batch, steps, extremes):
    """Random pops/pushes, a share of them exactly 0 or 1."""
    x = rng.uniform(size=(batch, steps)).astype("float32")
    if extremes:
        pick = rng.uniform(size=x.shape)
        x = np.where(pick < 0.25, 0.0, np.where(pick > 0.75, 1.0, x)).astype("float32")
    return x


@pytest.mark.parametrize("kind,queue", [(memory.NeuralStack, False), (memory.NeuralQueue, True)])
@pytest.mark.parametrize("seed,steps,extremes", [(0, 6, False), (1, 12, True), (2, 40, True), (3, 40, False)])
def test_stack_and_queue_match_reference(kind, queue, seed, steps, extremes):
    rng = np.random.default_rng(seed)
    batch, width = 3, 4
    values = rng.normal(size=(batch, steps, width)).astype("float32")
    pops, pushes = _controls(rng, batch, steps, extremes), _controls(rng, batch, steps, extremes)
    reads, strengths = run_single(kind, values, pops, pushes)
    for b in range(batch):
        want_reads, want_s = reference.stack_or_queue(values[b], pops[b], pushes[b], queue=queue)
        np.testing.assert_allclose(reads[b], want_reads, atol=2e-5)
        np.testing.assert_allclose(strengths[b], want_s, atol=2e-5)


@pytest.mark.parametrize("seed,steps,extremes", [(0, 5, False), (1, 12, True), (2, 30, True)])
def test_deque_matches_reference(seed, steps, extremes):
    rng = np.random.default_rng(seed)
    batch, width = 2, 3
    ends = []
    for _ in range(2):
        ends.append(
            (
                rng.normal(size=(batch, steps, width)).astype("float32"),
                _controls(rng, batch, steps, extremes),
                _controls(rng, batch, steps, extremes),
            )
        )
    top, bottom, strengths = run_deque(*ends)
    for b in range(batch):
        want_top, want_bottom, want_s = reference.deque(
            tuple(a[b] for a in ends[0]), tuple(a[b] for a in ends[1])
        )
        np.testing.assert_allclose(top[b], want_top, atol=2e-5)
        np.testing.assert_allclose(bottom[b], want_bottom, atol=2e-5)
        np.testing.assert_allclose(strengths[b], want_s, atol=2e-5)


_unit = st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0, width=32))


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["stack", "queue", "deque"]),
    controls=st.lists(st.tuples(_unit, _unit, _unit, _unit, st.floats(-2, 2, width=32)), min_size=1, max_size=10),
)
@pytest.mark.slow
def test_property_all_memories_match_reference(kind, controls):
    c = np.asarray(controls, dtype="float32")
    pops, pushes, pops2, pushes2, vals = (c[None, :, k] for k in range(5))
    values = vals[..., None]
    if kind == "deque":
        top, bottom, _ = run_deque((values, pops, pushes), (values * 0.5, pops2, pushes2))
        want_top, want_bottom, _ = reference.deque(
            (values[0], pops[0], pushes[0]), (values[0] * 0.5, pops2[0], pushes2[0])
        )
        np.testing.assert_allclose(top[0], want_top, atol=2e-5)
        np.testing.assert_allclose(bottom[0], want_bottom, atol=2e-5)
    else:
        kind_cls = memory.NeuralStack if kind == "stack" else memory.NeuralQueue
        reads, _ = run_single(kind_cls, values, pops, pushes)
        want, _ = reference.stack_or_queue(values[0], pops[0], pushes[0], queue=kind == "queue")
        np.testing.assert_allclose(reads[0], want, atol=2e-5)


def test_unused_capacity_does_not_change_reads():
    rng = np.random.default_rng(5)
    values = rng.normal(size=(2, 7, 3)).astype("float32")
    pops, pushes = _controls(rng, 2, 7, True), _controls(rng, 2, 7, True)
    exact, _ = run_single(memory.NeuralStack, values, pops, pushes, capacity=7)
    roomy, _ = run_single(memory.NeuralStack, values, pops, pushes, capacity=50)
    np.testing.assert_allclose(exact, roomy, atol=1e-6)


@pytest.mark.parametrize("kind", [memory.NeuralStack, memory.NeuralQueue, memory.NeuralDeque])
def test_a_grown_memory_steps_as_the_larger_memory(kind):
    # 4 steps in a memory of 4, grown to 9, then 5 more: every read and the
    # final state equal those of a memory of 9 from the start.
    rng = np.random.default_rng(3)
    mem = kind(width=3, capacity=9)
    ends = mem.slots_per_step
    values = rng.normal(size=(2, 9, ends, 3)).astype("float32")
    pops, pushes = (rng.uniform(size=(2, 9, ends)).astype("float32") for _ in range(2))

    def run(state, steps):
        reads = []
        for t in steps:
            state, r = mem.update(state, values[:, t], pops[:, t], pushes[:, t])
            reads.append(ops.convert_to_numpy(r))
        return state, reads

    whole, want = run(mem.initial_state(2, capacity=9), range(9))
    small, got = run(mem.initial_state(2, capacity=4), range(4))
    grown = mem.grow(small, 9)
    assert [tuple(part.shape) for part in grown] == [tuple(part.shape) for part in whole]
    grown, more = run(grown, range(4, 9))
    np.testing.assert_allclose(np.stack(got + more), np.stack(want), rtol=0, atol=1e-6)
    for part, want_part in zip(grown, whole):
        np.testing.assert_allclose(ops.convert_to_numpy(part), ops.convert_to_numpy(want_part), rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="new_capacity"):
        mem.grow(whole, 4)


@pytest.mark.parametrize("dtype,steps", [("float32", 20000), ("float16", 3000)])
@pytest.mark.parametrize("kind", [memory.NeuralStack, memory.NeuralQueue, memory.NeuralDeque])
def test_long_memories_stay_exact_near_the_read_end(kind, dtype, steps):
    """Full-strength pushes for many steps: the read is exactly the newest/oldest value."""
    mem = kind(width=1, capacity=steps)
    state = mem.initial_state(1, dtype=dtype)
    one = np.ones((1, 1), dtype)
    half = np.full((1, 1), 0.5, dtype)
    # All but the last step taken, every item at strength 1.
    slots = mem.num_slots()
    used = np.ones((1, slots), "float32")
    if kind is memory.NeuralDeque:
        used[:, [0, -1]] = 0.0
    else:
        used[:, -1] = 0.0
    values = used[..., None] * np.arange(slots, dtype="float32").reshape(1, -1, 1) / slots
    written = np.ones((1, steps), dtype)
    written[:, -1] = 0.0
    state = memory.MemoryState(*(ops.convert_to_tensor(a, dtype) for a in (values, used, written)))
    # One more step that pops half an item and pushes nothing: reads mix the two items at the end.
    zero_value = np.zeros((1, 1), dtype)
    if kind is memory.NeuralDeque:
        _, (top, bottom) = mem.step(state, top=(zero_value, half, 0 * one), bottom=(zero_value, half, 0 * one))
        got = [float(top[0, 0]), float(bottom[0, 0])]
        n = mem.num_slots()
        want = [0.5 * values[0, n - 2, 0] + 0.5 * values[0, n - 3, 0], 0.5 * values[0, 1, 0] + 0.5 * values[0, 2, 0]]
    else:
        _, r = mem.step(state, zero_value, half, 0 * one)
        got = [float(r[0, 0])]
        n = steps
        if kind is memory.NeuralStack:
            want = [0.5 * values[0, n - 2, 0] + 0.5 * values[0, n - 3, 0]]
        else:
            want = [0.5 * values[0, 0, 0] + 0.5 * values[0, 1, 0]]
    np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == "float16" else 1e-6)


def test_overflow_poisons_reads_instead_of_wrapping():
    values = np.ones((1, 4, 2), "float32")
    ones = np.ones((1, 4), "float32")
    reads, _ = run_single(memory.NeuralStack, values, ones * 0, ones, capacity=3)
    assert np.isfinite(reads[0, :3]).all()
    assert np.isnan(reads[0, 3]).all()
    top, bottom, _ = run_deque((values, ones * 0, ones), (values, ones * 0, ones), capacity=2)
    assert np.isfinite(top[0, :2]).all() and np.isnan(top[0, 2:]).all() and np.isnan(bottom[0, 2:]).all()


# --------------------------------------------------------------- gradients


def _loss_fn(kind, steps, width):
    """A scalar function of (values, pops, pushes) through a whole run."""

    def loss(values, pops, pushes):
        mem = kind(width=width, capacity=steps)
        state = mem.initial_state(values.shape[0], dtype=values.dtype)
        total = 0.0
        for t in range(steps):
            if kind is memory.NeuralDeque:
                state, (r_top, r_bot) = mem.step(
                    state,
                    top=(values[:, t], pops[:, t : t + 1], pushes[:, t : t + 1]),
                    bottom=(-values[:, t], pops[:, t : t + 1] * 0.5, pushes[:, t : t + 1] * 0.7),
                )
                r = r_top + 2.0 * r_bot
            else:
                state, r = mem.step(state, values[:, t], pops[:, t : t + 1], pushes[:, t : t + 1])
            total = total + ops.sum(r * (t + 1.0))
        return total

    return loss


def _numeric_grad(f, args, index, eps=1e-4):
    x = args[index]
    grad = np.zeros_like(x)
    for pos in np.ndindex(x.shape):
        plus, minus = [a.copy() for a in args], [a.copy() for a in args]
        plus[index][pos] += eps
        minus[index][pos] -= eps
        grad[pos] = (float(f(*plus)) - float(f(*minus))) / (2 * eps)
    return grad


def _autodiff_grads(f, args):
    import keras

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        return [np.asarray(g) for g in jax.grad(f, argnums=(0, 1, 2))(*args)]
    import tensorflow as tf

    tensors = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        y = f(*tensors)
    return [g.numpy() for g in tape.gradient(y, tensors)]


@pytest.mark.parametrize("kind", [memory.NeuralStack, memory.NeuralQueue, memory.NeuralDeque])
@pytest.mark.slow
def test_gradients_match_finite_differences(kind, float64):
    # float64, and controls kept away from the kinks of max/min, where the
    # function is not differentiable and finite differences are meaningless.
    rng = np.random.default_rng(11)
    steps, width = 5, 2
    values = rng.normal(size=(2, steps, width))
    pops = rng.uniform(0.05, 0.6, size=(2, steps))
    pushes = rng.uniform(0.3, 0.95, size=(2, steps))
    f = _loss_fn(kind, steps, width)
    args = [values, pops, pushes]
    grads = _autodiff_grads(f, args)
    for index, grad in enumerate(grads):
        np.testing.assert_allclose(grad, _numeric_grad(f, args, index), rtol=1e-4, atol=1e-6)
        assert np.abs(grad).sum() > 0


def test_ties_take_the_left_argument_gradient(float64):
    """Footnote 1: at max(0, x) with x == 0 the slope is 0; at min(s, rest) it is d/ds."""
    # Push 1 then pop exactly 1: the pop consumes slot 1 exactly (a tie in eq. 2).
    f = _loss_fn(memory.NeuralStack, 2, 1)
    values = np.array([[[1.0], [2.0]]])
    pops = np.array([[0.0, 1.0]])
    pushes = np.array([[1.0, 0.5]])
    g_values, g_pops, g_pushes = _autodiff_grads(f, [values, pops, pushes])
    assert np.all(np.isfinite(g_pops)) and np.all(np.isfinite(g_pushes))
    # Step 1 reads v1 with weight min(s=1, 1) (a tie): the gradient goes to s, i.e. to push_1.
    assert g_pushes[0, 0] != 0.0


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("kind", [memory.NeuralStack, memory.NeuralQueue, memory.NeuralDeque])
@pytest.mark.parametrize("arg", ["width", "capacity"])
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "8"])
def test_bad_sizes_name_the_argument(kind, arg, bad):
    kwargs = {"width": 4, "capacity": 4, arg: bad}
    with pytest.raises(ValueError, match=arg):
        kind(**kwargs)


def test_wrong_value_width_is_reported():
    stack = memory.NeuralStack(width=4, capacity=2)
    with pytest.raises(ValueError, match="width=4"):
        stack.step(stack.initial_state(1), np.zeros((1, 3), "float32"), np.zeros((1, 1), "float32"), np.zeros((1, 1), "float32"))
