"""Where a training step of a memory-augmented LSTM spends its time (JAX).

Profiles the loss and gradients of the paper's model (64-d embedding, a
`MemoryRNN` over an `LSTMCell`, a dense output; batch 10, hidden 256,
memory width 256 by default) with `jax.profiler`, and attributes every
XLA operation of the trace to a phase of the fused scan through the names
the scan gives its operations (`backend_ops.named_scope`), which the
compiled program keeps in each operation's `op_name`:

* the controller and heads, forward (forward loop) and backward (reverse
  loop; on the generic path also their recomputation there);
* the strength update (pops, push, read weights), forward and backward;
* the products with the value matrix `V` (write and read; `V . dr`, `dV`);
* the weight and input gradients after the reverse loop;
* the rest of each loop (masking, carries, the copies XLA adds) and of the
  model (embedding, output layer, loss).

Times are sums of operation times (the CPU may run independent operations
at once, so they can add up to more than the step's wall time). The
script also checks the optimised program for a copy of a
`(batch, slots, width)` array inside a loop, which the scan's design rules
out. The optimizer update is not included. Every run adds a row to the
speed record, `docs/results/speed_runs.json` (`--record`; see
`speed_tables.py`).

Usage:
    KERAS_BACKEND=jax python benchmarks/profile_scan.py --memory stack --length 131 --steps 5
    KERAS_BACKEND=jax python benchmarks/profile_scan.py --memory deque --path generic
"""

import argparse
import collections
import glob
import gzip
import json
import os
import re
import sys
import tempfile
import time

import keras

from speed_tables import RECORD, add_run

VOCAB = 132

# Phases, in the table's order: (label, loop, name in the op_name).
PHASES = [
    ("controller + heads forward", "forward", "controller_forward"),
    ("strength update forward", "forward", "strengths"),
    ("products with V forward (write, read)", "forward", "values"),
    ("forward loop: mask, carries, other", "forward", None),
    ("controller + heads recomputed (generic path)", "backward", "controller_forward"),
    ("controller + heads backward", "backward", "controller_backward"),
    ("strength update backward (with its recomputation)", "backward", "strengths"),
    ("products with V backward (V.dr, dV, dv)", "backward", "values"),
    ("reverse loop: mask, carries, other", "backward", None),
    ("weight and input gradients (after the loop)", "after", "weight_gradients"),
    ("scan set-up (outside the loops)", "outside", None),
    ("rest of the model (embedding, dense, loss)", "model", None),
]


def build(memory, path, length, batch, hidden, width):
    """The model, a jitted loss-and-gradients step and its arguments."""
    import jax
    import numpy as np

    from keras_neural_memory import DequeCell, MemoryRNN, QueueCell, StackCell

    class GenericLSTMCell(keras.layers.LSTMCell):
        """An `LSTMCell` the fused scan does not recognise: its generic path."""

    cell_class = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}[memory]
    controller = (keras.layers.LSTMCell if path == "fast" else GenericLSTMCell)(hidden)
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 64)(inputs)
    x = MemoryRNN(cell_class(controller, memory_width=width), return_sequences=True, name="memory_rnn")(x)
    model = keras.Model(inputs, keras.layers.Dense(VOCAB)(x))
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss(trainable, non_trainable, tokens):
        logits, _ = model.stateless_call(trainable, non_trainable, tokens, training=True)
        return loss_fn(tokens, logits)

    step = jax.jit(jax.value_and_grad(loss))
    tokens = np.random.default_rng(0).integers(0, VOCAB, (batch, length)).astype("int32")
    arguments = ([v.value for v in model.trainable_variables], [v.value for v in model.non_trainable_variables], tokens)
    return step, arguments


# ------------------------------------------------------------------- HLO


_COMPUTATION = re.compile(r"^(?:ENTRY )?%?([\w.\-]+) .*\{\s*$")
_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%?([\w.\-]+) = (\S+(?: \S+)*?) ([\w\-]+)\(")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_BODY = re.compile(r"body=%?([\w.\-]+)")


def parse_hlo(text):
    """`{instruction: (computation, opcode, shape, op_name)}` and `{while body: the while's op_name}`."""
    instructions, bodies, computation = {}, {}, None
    for line in text.splitlines():
        header = _COMPUTATION.match(line)
        if header and not line.startswith(" "):
            computation = header.group(1)
            continue
        match = _INSTRUCTION.match(line)
        if not match:
            continue
        name, shape, opcode = match.groups()
        op_name = _OP_NAME.search(line)
        op_name = op_name.group(1) if op_name else ""
        instructions[name] = (computation, opcode, shape, op_name)
        if opcode == "while":
            body = _BODY.search(line)
            if body:
                bodies[body.group(1)] = op_name
    return instructions, bodies


def _loop_of(op_name):
    """'forward' or 'backward' for an op_name inside the scan's loops, else None."""
    if "memory_rnn" not in op_name or "/while" not in op_name:
        return None
    return "backward" if "transpose(jvp(memory_rnn" in op_name else "forward"


def phase_of(name, instructions, bodies):
    """The label of the phase an HLO instruction belongs to."""
    computation, opcode, _, op_name = instructions.get(name, (None, None, None, ""))
    loop = _loop_of(op_name)
    if not op_name and computation in bodies:
        loop = _loop_of(bodies[computation]) or "forward"
        return next(label for label, phase_loop, key in PHASES if phase_loop == loop and key is None)
    if loop:
        scope = op_name.split("/while/body/", 1)[-1]
        for label, phase_loop, key in PHASES:
            if phase_loop == loop and key is not None and key in scope.split("/"):
                # A vjp taken inside the reverse loop names its transposed
                # operations after the scope it was taken in.
                if key == "controller_forward" and loop == "backward" and "transpose(" in scope:
                    return "controller + heads backward"
                return label
        return next(label for label, phase_loop, key in PHASES if phase_loop == loop and key is None)
    if "weight_gradients" in op_name:
        return "weight and input gradients (after the loop)"
    if "memory_rnn" in op_name:
        return "scan set-up (outside the loops)"
    return "rest of the model (embedding, dense, loss)"


def loop_copies(instructions, bodies, batch, slots, width):
    """Copies of a `(batch, slots, width)` array (either layout) made inside a loop body."""
    shapes = {f"[{batch},{slots},{width}]", f"[{batch},{width},{slots}]"}
    found = []
    for name, (computation, opcode, shape, _) in instructions.items():
        if computation in bodies and opcode == "copy" and any(s in shape for s in shapes):
            found.append(f"{name} {shape} in {computation}")
    return found


# ----------------------------------------------------------------- trace


def op_times(trace_dir):
    """`{hlo instruction: total microseconds}` from the perfetto trace in `trace_dir`."""
    files = glob.glob(os.path.join(trace_dir, "**", "*.trace.json.gz"), recursive=True)
    files += glob.glob(os.path.join(trace_dir, "**", "perfetto_trace.json.gz"), recursive=True)
    if not files:
        raise RuntimeError(f"No trace written under {trace_dir}")
    with gzip.open(sorted(files)[0]) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    times = collections.Counter()
    for event in events:
        args = event.get("args") or {}
        if event.get("ph") == "X" and "hlo_op" in args and event["name"] == args["hlo_op"]:
            times[args["hlo_op"]] += float(event.get("dur", 0.0))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memory", choices=["stack", "queue", "deque"], default="stack")
    parser.add_argument("--path", choices=["fast", "generic"], default="fast", help="the fused scan's path")
    parser.add_argument("--length", type=int, default=131)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--record", default=RECORD, help="the speed record to add this run's row to ('' for none)")
    args = parser.parse_args()
    if keras.backend.backend() != "jax":
        sys.exit("Run with KERAS_BACKEND=jax: the profile reads an XLA trace from jax.profiler.")
    import jax

    step, arguments = build(args.memory, args.path, args.length, args.batch, args.hidden, args.width)
    compiled = step.lower(*arguments).compile()
    instructions, bodies = parse_hlo(compiled.as_text())
    jax.block_until_ready(compiled(*arguments))  # warm up
    with tempfile.TemporaryDirectory() as trace_dir:
        with jax.profiler.trace(trace_dir, create_perfetto_trace=True):
            start = time.perf_counter()
            for _ in range(args.steps):
                jax.block_until_ready(compiled(*arguments))
            wall = (time.perf_counter() - start) / args.steps
        times = op_times(trace_dir)

    containers = {"while", "call", "conditional"}
    phases = collections.Counter()
    for name, microseconds in times.items():
        if instructions.get(name, (None, None))[1] in containers:
            continue  # its operations have their own events
        phases[phase_of(name, instructions, bodies)] += microseconds
    total = sum(phases.values())
    print(
        f"{args.memory}-LSTM, {args.path} path: batch {args.batch}, length {args.length}, hidden {args.hidden}, "
        f"width {args.width}; {args.steps} steps, {wall * 1e3:.1f} ms wall per step, "
        f"{total / args.steps / 1e3:.1f} ms of operations per step"
    )
    print("\n| phase | ms per step | share |\n|---|---|---|")
    shown = [label for label, _, _ in PHASES if phases[label] or label != "controller + heads recomputed (generic path)"]
    for label in shown:
        print(f"| {label} | {phases[label] / args.steps / 1e3:.2f} | {100 * phases[label] / total:.1f}% |")
    slots = args.length * (2 if args.memory == "deque" else 1)
    copies = loop_copies(instructions, bodies, args.batch, slots, args.width)
    print(f"\nCopies of a (batch, slots, width) = ({args.batch}, {slots}, {args.width}) array inside a loop: "
          + (", ".join(copies) if copies else "none"))  # fmt: skip
    results = {
        "wall_ms_per_step": wall * 1e3,
        "operations_ms_per_step": total / args.steps / 1e3,
        "phases": {label: phases[label] / args.steps / 1e3 for label in shown},
        "loop_copies": copies,
    }
    add_run(args.record, "profile_scan", args, results)


if __name__ == "__main__":
    main()
