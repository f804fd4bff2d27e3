"""The backend seam: the package's only code that is not `keras.ops`.

The fused memory scan (`keras_neural_memory.fused_scan`) needs three things
that `keras.ops` does not give portably under XLA:

* `scan`: a loop over time that carries a state and stacks per-step outputs.
  On TensorFlow, `keras.ops.scan`/`fori_loop` fail under `jit_compile=True`
  ("XLA compilation requires a fixed tensor list size"), so this is a
  `tf.while_loop` with `maximum_iterations` and `TensorArray`s; on JAX it is
  `jax.lax.scan`.
* `vjp`: the vector-Jacobian product of a function at a point, used inside
  the backward loop (`jax.vjp`; a `tf.GradientTape` on TensorFlow).
* `custom_vjp`: a function with a hand-written backward pass
  (`jax.custom_vjp`; `tf.custom_gradient` on TensorFlow). Every tensor the
  function depends on, weights included, must be an explicit argument.

Two small helpers serve the step kernels (`keras_neural_memory.step_kernels`)
and the profile of the scan: `tanh`, which keeps its input's dtype, and
`named_scope`, which names the operations of a phase of the scan.

`supports_fused_scan()` is False on any other backend; `MemoryRNN` then
runs Keras' generic RNN loop instead.
"""

import keras
from keras import tree

__all__ = ["supports_fused_scan", "scan", "vjp", "custom_vjp", "tanh", "named_scope"]

_BACKENDS = ("tensorflow", "jax")


def supports_fused_scan():
    """Whether this backend has the loop, vjp and custom gradient used here."""
    return keras.backend.backend() in _BACKENDS


def scan(step, carry, xs, length, ys_dtypes, reverse=False):
    """`jax.lax.scan` semantics on nests of tensors.

    `carry`, `xs` and `ys` are nests (lists, tuples, named tuples, dicts)
    of tensors, as `keras.tree` flattens them.

    Args:
        step: `step(carry, x) -> (carry, ys)`: `x` holds one time slice of
            each tensor of `xs`, in the nest of `xs`; the carry it returns
            has the nest of `carry`.
        carry: The initial carry.
        xs: Time-major tensors `(length, ...)`.
        length: Number of steps (an int or a scalar tensor).
        ys_dtypes: The dtype of each tensor of `ys`, in the nest of `ys`
            (TensorFlow needs them first).
        reverse: Walk `t = length - 1, ..., 0`; `ys[t]` still belongs to `t`.

    Returns:
        `(carry, ys)`, `ys` in its nest, each tensor `(length, ...)`.
    """
    if keras.backend.backend() == "jax":
        from jax import lax

        return lax.scan(step, carry, xs, length=length, reverse=reverse)
    return _tf_scan(step, carry, xs, length, ys_dtypes, reverse)


def _tf_scan(step, carry, xs, length, ys_dtypes, reverse):
    import tensorflow as tf

    xs_arrays = [tf.TensorArray(x.dtype, size=length).unstack(x) for x in tree.flatten(xs)]
    ys_arrays = [tf.TensorArray(dtype, size=length) for dtype in tree.flatten(ys_dtypes)]

    def body(t, flat_carry, ys_arrays):
        index = length - 1 - t if reverse else t
        x = tree.pack_sequence_as(xs, [array.read(index) for array in xs_arrays])
        new_carry, ys = step(tree.pack_sequence_as(carry, flat_carry), x)
        new_carry = [tf.ensure_shape(new, old.shape) for new, old in zip(tree.flatten(new_carry), flat_carry)]
        return t + 1, new_carry, [array.write(index, y) for array, y in zip(ys_arrays, tree.flatten(ys))]

    _, flat_carry, ys_arrays = tf.while_loop(
        lambda t, *_: t < length,
        body,
        (tf.constant(0), tree.flatten(carry), ys_arrays),
        maximum_iterations=length,
        swap_memory=True,
    )
    return tree.pack_sequence_as(carry, flat_carry), tree.pack_sequence_as(ys_dtypes, [a.stack() for a in ys_arrays])


def vjp(fn, *primals):
    """`(outputs, vjp_fn)` of `fn(*primals)`, like `jax.vjp`.

    `fn` returns a flat list; `vjp_fn(cotangents)` takes a flat list of the
    same length and returns a tuple with one cotangent per primal (zeros
    where an output does not depend on it).
    """
    if keras.backend.backend() == "jax":
        import jax

        outputs, jax_vjp_fn = jax.vjp(lambda *args: list(fn(*args)), *primals)
        return outputs, lambda cotangents: jax_vjp_fn(_cast_like(cotangents, outputs))
    import tensorflow as tf

    with tf.GradientTape() as tape:
        tape.watch(primals)
        outputs = list(fn(*primals))

    def tf_vjp_fn(cotangents):
        return tuple(
            tape.gradient(
                outputs,
                primals,
                output_gradients=_cast_like(cotangents, outputs),
                unconnected_gradients=tf.UnconnectedGradients.ZERO,
            )
        )

    return outputs, tf_vjp_fn


def _cast_like(cotangents, outputs):
    """Cotangents in their outputs' dtypes (a controller may compute in another)."""
    return [keras.ops.cast(c, o.dtype) for c, o in zip(cotangents, outputs)]


def custom_vjp(forward, backward):
    """A function of flat tensor arguments with a hand-written backward pass.

    Args:
        forward: `forward(*args) -> (outputs, residuals)`: `outputs` a flat
            list of tensors, `residuals` any nest of tensors.
        backward: `backward(residuals, cotangents) -> tuple`, one cotangent
            per argument of `forward` (or None where there is none).

    Returns:
        `f(*args) -> outputs`, differentiable on this backend.
    """
    if keras.backend.backend() == "jax":
        import jax

        @jax.custom_vjp
        def jax_function(*args):
            return forward(*args)[0]

        def jax_forward(*args):
            outputs, residuals = forward(*args)
            return outputs, residuals

        def jax_backward(residuals, cotangents):
            return tuple(backward(residuals, list(cotangents)))

        jax_function.defvjp(jax_forward, jax_backward)
        return jax_function
    import tensorflow as tf

    def tf_function(*args):
        @tf.custom_gradient
        def wrapped(*tensors):
            outputs, residuals = forward(*tensors)

            def grad(*cotangents):
                cotangents = [
                    tf.zeros_like(out) if ct is None else ct for ct, out in zip(cotangents, outputs)
                ]
                return list(backward(residuals, cotangents))

            return outputs, grad

        return wrapped(*[tf.convert_to_tensor(a) for a in args])

    return tf_function


def autocast_scope(dtype):
    """The scope `keras.layers.Layer.__call__` enters for mixed precision."""
    from keras.src.backend import AutocastScope

    return AutocastScope(dtype)


def tanh(x):
    """`tanh` in the dtype of `x`.

    `keras.ops.tanh` returns float32 for a float64 input on JAX (Keras
    3.15); in float16 and float32 this is the same function.
    """
    if keras.backend.backend() == "jax":
        import jax.numpy as jnp

        return jnp.tanh(x)
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        return tf.math.tanh(x)
    return keras.ops.tanh(x)


def named_scope(name):
    """A scope that names the operations built in it (`jax.named_scope`, `tf.name_scope`).

    The names reach the compiled program's operation metadata, which is how
    `benchmarks/profile_scan.py` attributes a profile's time to the phases
    of the scan.
    """
    if keras.backend.backend() == "jax":
        import jax

        return jax.named_scope(name)
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        return tf.name_scope(name)
    import contextlib

    return contextlib.nullcontext()
