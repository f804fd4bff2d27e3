"""Slow reference: Hao et al. (2018) §2.1-2.3, one loop at a time.

Written from the paper, independently of `keras_neural_memory`: Python
lists and floats, the input buffer's `iota`/`xi` and the stack's `u`/`rho`
left-over strengths as explicit loops, the output read off by literally
dequeuing with strength 1 and reading with strength 1, again and again.
The controller is the linear one (§2.2) applied to `[x_t || r_{t-1}]`, with
its heads in the order of `MemoryCell`'s fused projection: output `y`
(`out` units), then, buffered, the `i` and `o` logits, then push, pop,
value.
"""

import math


def _sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def _dequeue(strengths, amount):
    """§2.3: iota_t[1] = amount, iota_t[j] = ReLU(iota_t[j-1] - s[j-1])."""
    out, left = [], amount
    for j, s in enumerate(strengths):
        if j > 0:
            left = max(0.0, left - strengths[j - 1])
        out.append(max(0.0, s - left))
    return out


def _read_front(values, strengths):
    """§2.3: xi_t[1] = 1, xi_t[j] = ReLU(xi_t[j-1] - s[j-1]); sum of min(s, xi) V."""
    width = len(values[0]) if values else 0
    total, left = [0.0] * width, 1.0
    for j, (v, s) in enumerate(zip(values, strengths)):
        if j > 0:
            left = max(0.0, left - strengths[j - 1])
        weight = min(s, left)
        total = [a + weight * b for a, b in zip(total, v)]
    return total


def _stack_step(V, s, v, u, d):
    """§2.1: pop u from the top, push v with strength d, read strength 1 from the top."""
    t = len(s) + 1
    new_s = [0.0] * (t - 1)
    left = u
    for i in range(t - 2, -1, -1):  # u_t[i] from the top down
        if i < t - 2:
            left = max(0.0, left - s[i + 1])
        new_s[i] = max(0.0, s[i] - left)
    new_s.append(d)
    V = V + [list(v)]
    r, rho = [0.0] * len(v), 1.0
    for i in range(t - 1, -1, -1):
        if i < t - 1:
            rho = max(0.0, rho - new_s[i + 1])
        weight = min(new_s[i], rho)
        r = [a + weight * b for a, b in zip(r, V[i])]
    return V, new_s, r


def buffered_linear_network(inputs, kernel, bias, out, width, steps, buffered=True, output_length=None):
    """Outputs of the buffered (or unbuffered) linear stack network on one sequence.

    Args:
        inputs: list of `n` input vectors.
        kernel, bias: the fused projection, as nested lists.
        out: size of `y_t`; width: stack vector size; steps: computation steps.
        buffered: learned `i_t`, `o_t` (else both 1).
        output_length: outputs to read off (default `n`).

    Returns:
        `(outputs, gates)`: the read-off outputs and the `(i_t, o_t)` per step.
    """
    I = [list(x) for x in inputs]
    in_s = [1.0] * len(I)
    V, s, r = [], [], [0.0] * width
    O, out_s = [], []
    i_prev, gates = 0.0, []
    for _ in range(steps):
        in_s = _dequeue(in_s, i_prev)
        x = _read_front(I, in_s)
        features = x + r
        heads = [sum(f * kernel[a][b] for a, f in enumerate(features)) + bias[b] for b in range(len(bias))]
        y = heads[:out]
        k = out
        if buffered:
            i_t, o_t = _sigmoid(heads[k]), _sigmoid(heads[k + 1])
            k += 2
        else:
            i_t, o_t = 1.0, 1.0
        d, u = _sigmoid(heads[k]), _sigmoid(heads[k + 1])
        v = [_sigmoid(h) for h in heads[k + 2 : k + 2 + width]]
        V, s, r = _stack_step(V, s, v, u, d)
        O.append(y)  # enqueue y_t with strength o_t
        out_s.append(o_t)
        i_prev = i_t
        gates.append((i_t, o_t))
    outputs = []
    for k in range(len(I) if output_length is None else output_length):
        if k > 0:
            out_s = _dequeue(out_s, 1.0)
        outputs.append(_read_front(O, out_s))
    return outputs, gates
