"""The superposition stack of Joulin & Mikolov (2015), as pure functions.

A stack of `stack_size` cells, each a vector of `stack_cell_size`, top cell
first. At every step it takes three action probabilities (a softmax, in the
order push, pop, no-op) and a value, and becomes their mixture:

    push:  [value, S[0], ..., S[n-2]]   (the bottom cell falls off)
    pop:   [S[1], ..., S[n-1], 0]       (a zero cell enters at the bottom)
    no-op: S

This is the `_update_stack` of Delétang et al. (2023)'s Stack-RNN
(`models/stack_rnn.py`), whose top-cell and lower-cell updates are the two
halves of the same shifted mixture. It has no trainable weights and, like
`keras_neural_memory.memory`, follows Haiku's `RNNCore` style: the state is
an explicit tensor; `SuperpositionStackCell` does the Keras plumbing.
"""

from keras import ops

# The order of the action probabilities, as in the authors' code.
ACTIONS = ("push", "pop", "no_op")


def initial_stack(batch_size, stack_size, stack_cell_size, dtype="float32"):
    """The empty stack: `(batch, stack_size, stack_cell_size)` zeros.

    Example:

    >>> tuple(initial_stack(2, 3, 4).shape)
    (2, 3, 4)
    """
    return ops.zeros((batch_size, stack_size, stack_cell_size), dtype=dtype)


def update_stack(stack, actions, push_value):
    """One step: the mixture of the pushed, popped and unchanged stacks.

    Args:
        stack: `(batch, stack_size, stack_cell_size)`, top cell first.
        actions: `(batch, 3)` probabilities of push, pop and no-op (`ACTIONS`).
        push_value: `(batch, stack_cell_size)` the vector a push puts on top.

    Returns:
        The new stack, shaped like `stack`.

    Example:

    >>> import numpy as np
    >>> stack = np.array([[[1.0], [2.0], [3.0]]])  # top 1, bottom 3
    >>> push, pop = np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])
    >>> ops.convert_to_numpy(update_stack(stack, push, np.array([[9.0]])))[0, :, 0].tolist()
    [9.0, 1.0, 2.0]
    >>> ops.convert_to_numpy(update_stack(stack, pop, np.array([[9.0]])))[0, :, 0].tolist()
    [2.0, 3.0, 0.0]
    """
    stack = ops.convert_to_tensor(stack)
    actions = ops.cast(actions, stack.dtype)
    push_value = ops.cast(push_value, stack.dtype)
    pushed = ops.concatenate([push_value[:, None, :], stack[:, :-1, :]], axis=1)
    popped = ops.concatenate([stack[:, 1:, :], ops.zeros_like(stack[:, :1, :])], axis=1)
    # (batch, 1, 1) weights, broadcast over the cells and their vectors.
    push, pop, no_op = (actions[:, i, None, None] for i in range(len(ACTIONS)))
    return push * pushed + pop * popped + no_op * stack
