"""`BufferedStackRNN`: Hao et al. (2018)'s buffered stack network (§2.3)."""

import collections

import keras
from keras import ops
from keras.saving import register_keras_serializable

from keras_neural_memory import memory as memory_lib
from keras_neural_memory.stack_cell import StackCell
from keras_neural_memory.validation import check_positive_int, check_real


def binary_strength_penalty(strengths):
    """`1 / (1 + (3.25 s - 1.625)^12)`: 1 at s = 0.5, about 0.003 at 0 and 1.

    The penalty of Hao et al.'s reference code (StackNN's `binary_reg_fn`):
    flat near 0 and 1, a bump around 0.5, so it pushes strengths towards
    discrete values without caring which.
    """
    term = 3.25 * strengths - 1.625
    return 1.0 / (1.0 + term**12)


# The parts of `_BufferedCell`'s flat state, in their order there; `stack` is
# the stack cell's own list of states.
_BufferedState = collections.namedtuple(
    "_BufferedState",
    ["output", "stack", "input_values", "input_strengths", "input_pop",
     "output_values", "output_strengths", "output_written", "penalty"],
)  # fmt: skip


class _BufferedCell(keras.layers.Layer):
    """One computation step of the buffered network, as an RNN cell.

    Internal to `BufferedStackRNN`, which builds it and its initial state.
    The RNN it runs in reads a dummy sequence (one entry per computation
    step); everything the step needs is in the state, flat and rank 2 (see
    Hao et al. 2018, §2.3 and §4):

        [y_{t-1}, *stack cell states, I (n * features), input strengths (n),
         i_{t-1}, O (steps * output_size), output strengths (steps),
         output `written` mask (steps), penalty]

    `y_{t-1}` comes first because Keras' masked JAX loop reads the output of
    a masked step from `states[0]`. `unpack_state` names the parts
    (`_BufferedState`) and `pack_state` flattens them again, so nothing else
    reads the list by position.
    """

    def __init__(self, stack_cell, output_size, output_activation, buffered, buffer_bias_init, **kwargs):
        super().__init__(**kwargs)
        self.stack_cell = stack_cell
        self.output_size = output_size
        self.output_activation = output_activation
        self.buffered = buffered
        self.buffer_bias_init = buffer_bias_init
        self._stack_state_count = len(stack_cell.state_size)

    def state_size_for(self, length, steps, features):
        return [
            self.output_size,
            *self.stack_cell.state_size_for(steps),
            length * features,
            length,
            1,
            steps * self.output_size,
            steps,
            steps,
            1,
        ]

    @property
    def strength_noise_size(self):
        """Columns of noise per step: the stack's push and pop, then (buffered) `i_t` and `o_t`."""
        return self.stack_cell.strength_noise_size + (2 if self.buffered else 0)

    def draw_strength_noise(self, batch_size, steps):
        """`(batch, steps, strength_noise_size)` noise for every strength logit of a run.

        Drawn before the loop, with the stack cell's seed, for the reason
        `MemoryRNN` gives: a seed cannot advance inside a JAX scan.
        """
        stack_cell = self.stack_cell
        noise = keras.random.normal(
            (batch_size, steps, self.strength_noise_size),
            stddev=stack_cell.strength_noise,
            seed=stack_cell.seed_generator,
        )
        return ops.cast(noise, self.compute_dtype)

    @property
    def state_size(self):
        # Nominal sizes: the real ones depend on each input, and
        # `BufferedStackRNN` always passes the initial state itself.
        return self.state_size_for(1, 1, 1)

    def build(self, input_shape):
        # A deserialised stack cell arrives built; building it again breaks loading.
        if not self.stack_cell.built:
            self.stack_cell.build(input_shape)
        if self.buffered:
            # The stack cell's last two output units are the logits of i_t and
            # o_t; start them at `buffer_bias_init` (+1 in the reference code,
            # so that the network starts by reading and writing).
            size = self.stack_cell.bias.shape[0]
            gate = (ops.arange(size) >= self.output_size) & (ops.arange(size) < self.output_size + 2)
            bias = ops.convert_to_tensor(self.stack_cell.bias.value)
            self.stack_cell.bias.assign(ops.where(gate, ops.cast(self.buffer_bias_init, bias.dtype), bias))
        self.built = True

    def unpack_state(self, states):
        """The flat states (a list, as the RNN passes them) as a `_BufferedState`."""
        k = self._stack_state_count
        return _BufferedState(states[0], list(states[1 : 1 + k]), *states[1 + k :])

    @staticmethod
    def pack_state(state):
        """A `_BufferedState` as the flat list of states."""
        return [state.output, *state.stack, *state[2:]]

    def initial_state(self, inputs, input_strengths, steps):
        batch_size = ops.shape(inputs)[0]
        dtype = self.compute_dtype
        return self.pack_state(_BufferedState(
            output=ops.zeros((batch_size, self.output_size), dtype=dtype),
            stack=self.stack_cell.get_initial_state(batch_size=batch_size, capacity=steps),
            input_values=ops.reshape(ops.cast(inputs, dtype), (batch_size, -1)),
            input_strengths=ops.cast(input_strengths, dtype),
            input_pop=ops.zeros((batch_size, 1), dtype=dtype),  # i_0 = 0: x_1 is the first input
            output_values=ops.zeros((batch_size, steps * self.output_size), dtype=dtype),
            output_strengths=ops.zeros((batch_size, steps), dtype=dtype),
            output_written=ops.zeros((batch_size, steps), dtype=dtype),
            penalty=ops.zeros((batch_size, 1), dtype=dtype),
        ))  # fmt: skip

    def step(self, states, training=None, noise=None):
        """One step; returns `(y_t, new_states, info)` with the gates in `info`.

        `noise` is the step's `(batch, strength_noise_size)` slice of
        `draw_strength_noise` while training with `strength_noise`, else None.
        """
        state = self.unpack_state(states)
        in_strengths, in_pop = state.input_strengths, state.input_pop
        batch_size = ops.shape(in_strengths)[0]
        # The feature count, not -1: a static width lets the stack cell find the noise columns.
        features = self.stack_cell.input_features
        in_values = ops.reshape(state.input_values, (batch_size, ops.shape(in_strengths)[1], features))
        # Input buffer: dequeue with i_{t-1}, then read with strength 1.
        in_strengths = memory_lib.pop(in_strengths, in_pop, "bottom")
        x = memory_lib.read(in_values, memory_lib.read_weights(in_strengths, "bottom"))
        stack_input = x
        stack_columns = self.stack_cell.strength_noise_size
        if noise is not None:
            # The stack cell adds its columns to its push and pop logits itself.
            stack_input = ops.concatenate([x, ops.cast(noise[:, :stack_columns], x.dtype)], axis=-1)
        heads, stack_states, info = self.stack_cell.step(stack_input, state.stack, training=training)
        y = heads[:, : self.output_size]
        if self.output_activation is not None:
            y = self.output_activation(y)
        if self.buffered:
            gate_logits = heads[:, self.output_size : self.output_size + 2]
            if noise is not None:
                gate_logits = gate_logits + ops.cast(noise[:, stack_columns:], gate_logits.dtype)
            gates = ops.sigmoid(gate_logits)
            in_pop, out_push = gates[:, :1], gates[:, 1:]
        else:
            in_pop = out_push = ops.ones_like(in_pop)
        # Output buffer: enqueue y_t with strength o_t (never dequeued while running).
        out_state = memory_lib.MemoryState(
            ops.reshape(state.output_values, (batch_size, -1, self.output_size)),
            state.output_strengths,
            state.output_written,
        )
        out_state = memory_lib.push(out_state, y, out_push)
        controls = [info["pop"], info["push"]] + ([in_pop, out_push] if self.buffered else [])
        penalty = state.penalty + sum(ops.sum(binary_strength_penalty(c), axis=-1, keepdims=True) for c in controls)
        new_states = self.pack_state(state._replace(
            output=y, stack=stack_states, input_strengths=in_strengths, input_pop=in_pop,
            output_values=ops.reshape(out_state.values, (batch_size, -1)),
            output_strengths=out_state.strengths, output_written=out_state.written, penalty=penalty,
        ))  # fmt: skip
        info = dict(info, input=x, input_pop=in_pop, output_push=out_push, input_strengths=in_strengths)
        return y, new_states, info

    def call(self, inputs, states, training=None):
        # The step input is a clock, or while training with noise the step's noise.
        noise = inputs if inputs.shape[-1] == self.strength_noise_size and self.stack_cell.strength_noise else None
        y, new_states, _ = self.step(states, training=training, noise=noise)
        return y, new_states


@register_keras_serializable(package="keras_neural_memory")
class BufferedStackRNN(keras.layers.Layer):
    """A Neural Stack network with input and output buffers (Hao et al. 2018, §2.3).

    The whole input sequence is placed in a read-only input buffer, a Neural
    Queue with every item at strength 1. For `steps` computation steps
    `t = 1..T` the network then

    1. dequeues the input buffer with strength `i_{t-1}` (`i_0 = 0`) and
       reads `x_t` from its front with strength 1;
    2. runs the controller on `[x_t || r_{t-1}]`, which gives the output
       `y_t`, the stack instructions `(v_t, u_t, d_t)`, the input-pop
       strength `i_t = sigmoid(.)` and the output-push strength
       `o_t = sigmoid(.)`, all from one linear projection of the
       controller's output (a `StackCell` with two more output units);
    3. pops, pushes and reads the stack (eqs. 1-3), giving `r_t`;
    4. enqueues `y_t` to the write-only output buffer with strength `o_t`.

    After the last step the output sequence is read off the output buffer:
    output `k` (1-based) is the read, with strength 1, from the front of the
    buffer after `k - 1 + output_offset` dequeues of strength 1, the same
    operations as the input buffer's. With the default `output_offset=0`
    output 1 is read before any dequeue, as `x_1` is (`i_0 = 0`); §2.3 says
    only that the outputs come from "repeatedly dequeuing the front of the
    output buffer with strength 1 and reading the front". Hao et al.'s
    reference code dequeues before every read (`output_offset=1`), so the
    first unit of strength written is never read and the network gets one
    step of delay for free. All of this is
    `keras_neural_memory.memory`'s queue and stack functions; `k - 1`
    dequeues of 1 leave exactly the strengths of one dequeue of `k - 1`
    (both remove the first `k - 1` units of strength), which is how all
    outputs are read at once.

    The controller can thus skip input (`i_t = 0`) or output (`o_t = 0`) at
    a step: ε-transitions, with `steps` larger than the input length.

    With `buffered=False`, `i_t = o_t = 1` and one step per input: that is
    the unbuffered stack network of §2.1-2.2 (the same network as
    `MemoryRNN(StackCell(...))`), computed through the same code, which
    makes the strength regulariser available to it.

    Padding: the items a mask marks as padding start the input buffer at
    strength 0, and each sequence takes `steps_per_input` times its own
    length in steps, so predictions do not depend on how a batch is padded.

    Args:
        controller: Any Keras RNN cell (`keras.layers.LSTMCell(10)`,
            `GRUCell`, `StackedRNNCells`, a user's cell) or
            `LinearController()` for Hao et al.'s linear controller.
        output_size: Size of each output vector `y_t` (e.g. the vocabulary
            size, as logits). Defaults to the controller's output size;
            required for `LinearController`.
        memory_width: Size of the stack vectors (2 in Hao et al., 6 for
            XOR). Defaults to the controller's output size; required for
            `LinearController`.
        steps_per_input: Computation steps per input item when `num_steps`
            is None (default 2: room for one ε-transition per item).
        num_steps: A fixed number of computation steps for every input,
            instead of `steps_per_input` times its length.
        buffered: If False, `i_t = o_t = 1` and one step per input (see
            above); `steps_per_input` must then be 1 and `num_steps` None.
        buffer_bias_init: Initial bias of the `i_t` and `o_t` gates; +1.0
            as in the reference code.
        output_offset: Unit dequeues of the output buffer before output 1
            is read (see above): 0 (default) or 1, the convention of Hao et
            al.'s reference code. Only for `buffered=True`.
        pop_bias_init: Initial bias of the stack's pop gate; -1.0.
        push_bias_init: Initial bias of the stack's push gate; 0.0.
        output_activation: Activation of `y_t`; None (linear, as Hao et al.).
        value_activation: Activation of the pushed vectors `v_t`;
            "sigmoid" (Hao et al.).
        strength_noise: Standard deviation of Gaussian noise added, while
            training only, to the logits of every strength: the stack's
            push and pop `u_t, d_t` and, when buffered, the buffer gates
            `i_t, o_t`; 0.0, the default, adds none. As for the memory
            cells, the noise favours whole pushes, pops and buffer moves
            over fractional ones, where it does not change them.
            Inference never adds noise.
        seed: Seed of that noise (an int, or None for Keras' global seed).
        strength_regularization: Weight of the strength regulariser
            (0.0: off). When positive the layer adds
            `weight * mean(binary_strength_penalty(s))` to the model's
            losses, the mean over the batch, the steps and the strengths
            `u_t, d_t` (and `i_t, o_t` when buffered). The penalty is 1 at
            strength 0.5 and near 0 at 0 and 1: it discourages the "half
            push, half pop" use of the stack as unstructured memory.
        kernel_initializer: Initializer of the projection from the
            controller's output.
        **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

    Call arguments:
        inputs: `(batch, length, features)` the input sequence (e.g. one-hot
            or embedded symbols).
        mask: Optional `(batch, length)` boolean mask of the real items
            (given automatically by `Embedding(mask_zero=True)`).
        training: Passed on to the controller.
        output_length: Number of outputs to read off the output buffer
            (a Python int); defaults to the input length.

    Returns:
        `(batch, output_length, output_size)`, with no Keras mask (output
        `k` is not tied to input `k`): weight the loss with `sample_weight`.

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import BufferedStackRNN, LinearController

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(4, 3, mask_zero=True)(inputs)  # or one-hot
    logits = BufferedStackRNN(LinearController(), output_size=4, memory_width=2)(x)
    model = keras.Model(inputs, logits)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    print(model(np.array([[1, 2, 3], [3, 1, 0]])).shape)  # (2, 3, 4)
    ```
    """

    def __init__(
        self,
        controller,
        output_size=None,
        memory_width=None,
        steps_per_input=2,
        num_steps=None,
        buffered=True,
        buffer_bias_init=1.0,
        output_offset=0,
        pop_bias_init=-1.0,
        push_bias_init=0.0,
        output_activation=None,
        value_activation="sigmoid",
        strength_regularization=0.0,
        strength_noise=0.0,
        seed=None,
        kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_positive_int("steps_per_input", steps_per_input)
        check_positive_int("num_steps", num_steps, allow_none=True)
        if not isinstance(buffered, bool):
            raise TypeError(f"`buffered` must be True or False; received buffered={buffered!r}.")
        if not buffered and (steps_per_input != 1 or num_steps is not None):
            raise ValueError(
                "An unbuffered network (buffered=False) takes exactly one step per input: "
                f"pass steps_per_input=1 and num_steps=None; received "
                f"steps_per_input={steps_per_input!r}, num_steps={num_steps!r}."
            )
        if output_offset not in (0, 1) or isinstance(output_offset, bool):
            raise ValueError(f"`output_offset` must be 0 or 1; received output_offset={output_offset!r}.")
        if output_offset and not buffered:
            raise ValueError(
                "`output_offset` applies to the output buffer: pass buffered=True or output_offset=0; "
                f"received buffered=False, output_offset={output_offset!r}."
            )
        for name, value in (
            ("buffer_bias_init", buffer_bias_init),
            ("pop_bias_init", pop_bias_init),
            ("push_bias_init", push_bias_init),
        ):
            check_real(name, value)
        check_real("strength_regularization", strength_regularization, minimum=0.0)
        # The stack cell validates the controller, the sizes, the biases and
        # the noise, and names the bad argument; its output carries y_t and, buffered,
        # the logits of i_t and o_t (hence linear: activations are applied here).
        probe = StackCell(
            controller, output_size=output_size, memory_width=memory_width, strength_noise=strength_noise, seed=seed
        )
        self.output_size = probe.output_size
        self.memory_width = probe.memory_width
        self.steps_per_input = steps_per_input
        self.num_steps = num_steps
        self.buffered = buffered
        self.buffer_bias_init = float(buffer_bias_init)
        self.output_offset = output_offset
        self.pop_bias_init = float(pop_bias_init)
        self.push_bias_init = float(push_bias_init)
        self.output_activation = keras.activations.get(output_activation)
        self.value_activation = keras.activations.get(value_activation)
        self.strength_regularization = float(strength_regularization)
        self.strength_noise = probe.strength_noise
        self.seed = seed
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        stack_cell = StackCell(
            controller,
            output_size=self.output_size + (2 if buffered else 0),
            memory_width=self.memory_width,
            capacity=1,  # unused: the memory is sized from each input
            pop_bias_init=pop_bias_init,
            push_bias_init=push_bias_init,
            output_activation=None,
            value_activation=value_activation,
            kernel_initializer=kernel_initializer,
            strength_noise=strength_noise,
            seed=seed,
            name="stack_cell",
            dtype=self.dtype_policy,
        )
        self.cell = _BufferedCell(
            stack_cell,
            self.output_size,
            None if output_activation is None else self.output_activation,
            buffered,
            self.buffer_bias_init,
            name="buffered_cell",
            dtype=self.dtype_policy,
        )
        self.rnn = keras.layers.RNN(self.cell, return_state=True, name="rnn", dtype=self.dtype_policy)
        self.supports_masking = True

    @property
    def controller(self):
        return self.cell.stack_cell.controller

    # ------------------------------------------------------------------ build

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must have shape (batch, length, features) with a known number of "
                f"features; received input_shape={tuple(input_shape)}."
            )
        if not self.cell.built:
            self.cell.build((input_shape[0], input_shape[-1]))
        self.built = True

    def compute_mask(self, inputs, mask=None):
        # Output k need not belong to input k (and `output_length` may differ
        # from the input length), so no mask is passed on: weight the loss
        # with `sample_weight` instead.
        return None

    # ------------------------------------------------------------------- call

    def _start(self, inputs, mask=None):
        """What the steps start from: `(states, steps, step_mask, counted)`.

        `states` is the cell's initial state, `steps` the number of
        computation steps, `step_mask` the `(batch, steps)` mask of the
        steps each sequence takes (None: all of them) and `counted` each
        sequence's step count. `_run` and `trace_memory` both start here.
        """
        shape = ops.shape(inputs)
        batch_size, length = shape[0], shape[1]
        if mask is None:
            input_strengths = ops.ones((batch_size, length), dtype=self.compute_dtype)
            lengths = None
        else:
            input_strengths = ops.cast(mask, self.compute_dtype)
            lengths = ops.sum(ops.cast(mask, "int32"), axis=1)
        steps = self.num_steps if self.num_steps is not None else self.steps_per_input * length
        states = self.cell.initial_state(inputs, input_strengths, steps)
        step_mask = None
        if lengths is not None and self.num_steps is None:
            # Each sequence takes steps_per_input * its own length steps.
            step_mask = ops.arange(steps, dtype=lengths.dtype)[None, :] < (self.steps_per_input * lengths)[:, None]
        if step_mask is None:
            counted = ops.cast(steps, self.compute_dtype) * ops.ones((batch_size,), self.compute_dtype)
        else:
            counted = ops.cast(self.steps_per_input * lengths, self.compute_dtype)
        return states, steps, step_mask, counted

    def _run(self, inputs, mask=None, training=None):
        """Runs every computation step; returns the final states and the step count."""
        states, steps, step_mask, counted = self._start(inputs, mask)
        # The RNN loops over a dummy sequence, one entry per step; the buffers
        # and the stack live in its state. Training with noise, the entries
        # are each step's noise instead.
        batch_size = ops.shape(inputs)[0]
        if training and self.strength_noise:
            clock = self.cell.draw_strength_noise(batch_size, steps)
        else:
            clock = ops.zeros((batch_size, steps, 1), dtype=self.compute_dtype)
        _, *final = self.rnn(clock, initial_state=states, mask=step_mask, training=training)
        return final, counted

    def _read_off(self, final, output_length):
        """Reads `output_length` outputs off the final output buffer (see the class docstring)."""
        final = self.cell.unpack_state(final)
        out_flat, out_strengths = final.output_values, final.output_strengths
        batch_size = ops.shape(out_strengths)[0]
        values = ops.reshape(out_flat, (batch_size, -1, self.output_size))
        # k - 1 + output_offset unit dequeues for output k.
        # Counted in int32: TensorFlow has no float16 `range` (mixed precision).
        dequeued = ops.cast(ops.arange(output_length, dtype="int32") + self.output_offset, out_strengths.dtype)
        strengths = memory_lib.pop(out_strengths[:, None, :], dequeued[None, :, None], "bottom")
        weights = memory_lib.read_weights(strengths, "bottom")
        return ops.einsum("bks,bsw->bkw", weights, values)

    def call(self, inputs, mask=None, training=None, output_length=None):
        if output_length is not None:
            check_positive_int("output_length", output_length)
        final, counted = self._run(inputs, mask=mask, training=training)
        if self.strength_regularization > 0:
            gates = 4 if self.buffered else 2
            # In float32: Keras adds the layer's losses to a float32 total (mixed precision).
            penalty = ops.cast(self.cell.unpack_state(final).penalty[:, 0], "float32")
            counted = ops.cast(counted, "float32")
            per_sequence = penalty / (ops.maximum(counted, 1.0) * gates)
            self.add_loss(self.strength_regularization * ops.mean(per_sequence))
        length = ops.shape(inputs)[1] if output_length is None else output_length
        return self._read_off(final, length)

    # ----------------------------------------------------------------- config

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "controller": keras.saving.serialize_keras_object(self.controller),
                "output_size": self.output_size,
                "memory_width": self.memory_width,
                "steps_per_input": self.steps_per_input,
                "num_steps": self.num_steps,
                "buffered": self.buffered,
                "buffer_bias_init": self.buffer_bias_init,
                "output_offset": self.output_offset,
                "pop_bias_init": self.pop_bias_init,
                "push_bias_init": self.push_bias_init,
                "output_activation": keras.activations.serialize(self.output_activation),
                "value_activation": keras.activations.serialize(self.value_activation),
                "strength_regularization": self.strength_regularization,
                "strength_noise": self.strength_noise,
                "seed": self.seed,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            }
        )
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["controller"] = keras.saving.deserialize_keras_object(config["controller"], custom_objects=custom_objects)
        return cls(**config)
