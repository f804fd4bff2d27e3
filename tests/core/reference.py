"""Slow reference: the paper's equations 1-11, one loop at a time.

Written from the paper, independently of `keras_neural_memory.memory`: lists
that grow by one (Stack, Queue) or two (DeQue) entries a step, and explicit
sums over index ranges. Indices below are the paper's 1-based `i`, stored at
list position `i - 1`.
"""


def stack_or_queue(values, pops, pushes, queue=False):
    """Reads `r_1..r_T` of a Neural Stack (eqs. 1-3) or Queue (eqs. 1, 4, 5)."""
    V, s, reads = [], [], []
    for t, (v, u, d) in enumerate(zip(values, pops, pushes), start=1):
        s_prev = list(s)
        new_s = []
        for i in range(1, t):  # eq. 2 / eq. 4, i < t
            if queue:
                before = sum(s_prev[j - 1] for j in range(1, i))
            else:
                before = sum(s_prev[j - 1] for j in range(i + 1, t))
            new_s.append(max(0.0, s_prev[i - 1] - max(0.0, u - before)))
        new_s.append(d)  # i = t
        s = new_s
        V.append(list(v))  # eq. 1
        r = [0.0] * len(v)
        for i in range(1, t + 1):  # eq. 3 / eq. 5
            if queue:
                before = sum(s[j - 1] for j in range(1, i))
            else:
                before = sum(s[j - 1] for j in range(i + 1, t + 1))
            weight = min(s[i - 1], max(0.0, 1.0 - before))
            r = [r_k + weight * v_k for r_k, v_k in zip(r, V[i - 1])]
        reads.append(r)
    return reads, s


def deque(top, bottom):
    """Reads of a Neural DeQue (eqs. 6-11).

    Args:
        top, bottom: `(values, pops, pushes)` sequences for each end.

    Returns:
        `(reads_top, reads_bottom, final_strengths)`, strengths bottom first.
    """
    V, s, reads_top, reads_bottom = [], [], [], []
    steps = zip(*top, *bottom)
    for t, (v_top, u_top, d_top, v_bot, u_bot, d_bot) in enumerate(steps, start=1):
        n_prev = 2 * (t - 1)
        # eq. 7, reading its upper limit as "every slot above i" (paper eq. 7)
        s_top = [
            max(0.0, s[i - 1] - max(0.0, u_top - sum(s[j - 1] for j in range(i + 1, n_prev + 1))))
            for i in range(1, n_prev + 1)
        ]
        # eq. 8
        s_both = [
            max(0.0, s_top[i - 1] - max(0.0, u_bot - sum(s_top[j - 1] for j in range(1, i))))
            for i in range(1, n_prev + 1)
        ]
        s = [d_bot] + s_both + [d_top]  # eq. 9
        V = [list(v_bot)] + V + [list(v_top)]  # eq. 6
        n = 2 * t
        r_top = [0.0] * len(v_top)
        r_bot = [0.0] * len(v_top)
        for i in range(1, n + 1):
            w_top = min(s[i - 1], max(0.0, 1.0 - sum(s[j - 1] for j in range(i + 1, n + 1))))  # eq. 10
            w_bot = min(s[i - 1], max(0.0, 1.0 - sum(s[j - 1] for j in range(1, i))))  # eq. 11
            r_top = [a + w_top * b for a, b in zip(r_top, V[i - 1])]
            r_bot = [a + w_bot * b for a, b in zip(r_bot, V[i - 1])]
        reads_top.append(r_top)
        reads_bottom.append(r_bot)
    return reads_top, reads_bottom, s
