"""The Hao et al. (2018) page, written from the record of `reproduce_hao.py`'s trials.

`reproduce_hao.py` trains the trials and adds each one, as a row, to the
record `docs/results/hao_runs.json`; this module turns the record into the
tables of `docs/results/hao.md` (`page_parts`), which both
`reproduce_hao.py` and `docs/make_results_pages.py` write, the second also
checking them (`--check`). It trains nothing and chooses no Keras
backend, so the page generator can import it.

A row holds the trial's condition (`study`: "table" for the network of a
Table 1 row, "regulariser" for the §3 comparison; `task`, `buffered`,
`controller`, `stack`, `output_offset`, `strength_noise`,
`strength_regularization`), its `seed`, `learning_rate` and `max_epochs`,
its accuracies in % (`train`, `dev`, `test`), `epochs`, `seconds`, and the
`command`, `backend` and `machine` that ran it.
"""

import collections
import functools
import pathlib
import statistics

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs" / "results" / "hao_runs.json"
PAGE = ROOT / "docs" / "results" / "hao.md"
WRITER = "benchmarks/reproduce_hao.py"
TITLE = "# Hao et al. (2018): Table 1 and two training aids"

# (label, task, buffered, controller, stack, paper train min/med/max, paper test min/med/max): Table 1.
CONDITIONS = [
    ("Reversal", "string_reversal", False, "linear", True, (49.9, 100.0, 100.0), (49.3, 100.0, 100.0)),
    ("Reversal", "string_reversal", True, "linear", True, (55.3, 98.7, 99.4), (49.5, 60.4, 74.7)),
    ("Reversal", "string_reversal", False, "lstm", True, (81.2, 89.3, 94.4), (67.2, 71.0, 73.7)),
    ("Reversal", "string_reversal", False, "lstm", False, (83.0, 86.5, 92.5), (64.8, 68.6, 73.3)),
    ("XOR", "cumulative_xor", False, "linear", True, (51.1, 53.5, 54.4), (50.7, 51.9, 51.9)),
    ("XOR", "cumulative_xor", False, "lstm", True, (100.0, 100.0, 100.0), (99.7, 100.0, 100.0)),
    ("XOR", "cumulative_xor", True, "linear", True, (51.0, 99.8, 100.0), (50.4, 96.0, 99.1)),
    ("Delayed XOR", "delayed_xor", False, "linear", True, (100.0, 100.0, 100.0), (100.0, 100.0, 100.0)),
    ("Parenthesis", "parenthesis_prediction", False, "linear", True, (72.8, 97.0, 99.3), (59.9, 80.3, 83.2)),
    ("Parenthesis", "parenthesis_prediction", False, "linear", False, (70.0, 71.8, 73.3), (59.9, 60.5, 60.7)),
    ("Parenthesis", "parenthesis_prediction", False, "lstm", True, (100.0, 100.0, 100.0), (85.8, 86.8, 88.9)),
    ("Parenthesis", "parenthesis_prediction", False, "lstm", False, (100.0, 100.0, 100.0), (83.5, 85.8, 88.0)),
    ("Formula", "boolean_formula", False, "linear", True, (87.4, 92.0, 97.3), (87.8, 91.2, 96.2)),
    ("Formula", "boolean_formula", False, "lstm", True, (98.0, 98.7, 99.4), (96.8, 97.7, 98.4)),
    ("Formula", "boolean_formula", False, "lstm", False, (95.4, 98.5, 99.3), (95.3, 97.6, 98.4)),
    ("Agreement", "subject_auxiliary_agreement", False, "linear", True, (53.3, 73.5, 93.9), (51.8, 68.8, 85.8)),
    ("Agreement", "subject_auxiliary_agreement", False, "lstm", True, (95.6, 98.5, 99.7), (82.4, 88.8, 91.2)),
    ("Agreement", "subject_auxiliary_agreement", False, "lstm", False, (96.2, 98.1, 100.0), (83.7, 88.2, 90.6)),
]
XOR_TASKS = ("cumulative_xor", "delayed_xor")
#: Hao et al.'s bar for a condition that performs its task: a median accuracy of at least 90.0 % (§5).
PAPER_BAR = 90.0
# Hao et al.'s reference code reads output k after k dequeues; this package's default after k - 1.
REFERENCE_OFFSET = 1


def row_key(row):
    """What identifies a trial in the record: its condition, seed and training settings."""
    return tuple(row[name] for name in (
        "study", "task", "buffered", "controller", "stack", "output_offset", "strength_noise",
        "strength_regularization", "seed", "learning_rate", "max_epochs",
    ))  # fmt: skip


def table_condition(task, buffered, controller, stack, output_offset=0, strength_noise=0.0):
    """The condition fields of a trial of the network of a Table 1 row."""
    return dict(study="table", task=task, buffered=buffered, controller=controller, stack=stack,
                output_offset=output_offset if buffered else 0, strength_noise=strength_noise,
                strength_regularization=0.0)  # fmt: skip


def regulariser_condition(weight):
    """The condition fields of a trial of the §3 comparison: LSTM(10) and a stack on parenthesis prediction."""
    return dict(study="regulariser", task="parenthesis_prediction", buffered=False, controller="lstm", stack=True,
                output_offset=0, strength_noise=0.0, strength_regularization=weight)  # fmt: skip


def agrees(ours, paper):
    """Whether our median agrees with the paper's row: within its min-max and on the same side of `PAPER_BAR`.

    >>> agrees(60.1, (55.3, 98.7, 99.4)), agrees(97.2, (87.4, 92.0, 97.3))
    (False, True)
    """
    value = round(ours, 1)
    return paper[0] <= value <= paper[2] and (value >= PAPER_BAR) == (paper[1] >= PAPER_BAR)


@functools.cache
def memoryless_accuracy(task):
    """The best accuracy, in %, of any predictor that sees only the current input symbol.

    Fitted on the training split (the majority target of each source
    symbol at the scored positions) and measured on each split. On the
    training split no predictor that sees only the current symbol does
    better, so this is the floor a memory must beat; it depends on the
    data alone.
    """
    from tfds_tasks import generators

    splits = generators.generate(task, "default")
    counts = collections.defaultdict(collections.Counter)
    for scored, target in _scored_pairs(splits["train"]):
        counts[scored][target] += 1
    rule = {symbol: counter.most_common(1)[0][0] for symbol, counter in counts.items()}
    accuracy = {}
    for split in ("train", "validation", "test"):
        pairs = list(_scored_pairs(splits[split]))
        accuracy[split] = 100.0 * sum(rule.get(symbol) == target for symbol, target in pairs) / len(pairs)
    return accuracy


def _scored_pairs(examples):
    for example in examples:
        mask = example.eval_mask or (1,) * len(example.target)
        yield from ((s, t) for s, t, scored in zip(example.source, example.target, mask) if scored)


def _summary(values):
    return min(values), statistics.median(values), max(values)


def _cells(values):
    return [f"{v:.1f}" for v in values]


def _select(rows, **condition):
    return sorted((r for r in rows if all(r[name] == value for name, value in condition.items())),
                  key=lambda r: r["seed"])  # fmt: skip


def _one(rows, name):
    values = sorted({r[name] for r in rows})
    if len(values) != 1:
        raise ValueError(f"the Hao et al. record mixes {name} {values}; keep one per record")
    return values[0]


def _controller(controller):
    return "LSTM" if controller == "lstm" else "Linear"


def _commands(rows):
    return [f"`KERAS_BACKEND={backend} {command}`" for backend, command in dict.fromkeys((r["backend"], r["command"]) for r in rows)]


def report(rows):
    """The markdown of the record's trials: Table 1, the memoryless floors, the read-off and the two aids."""
    from study_record import seeds_text

    table = [(c, _select(rows, **table_condition(*c[1:5]))) for c in CONDITIONS]
    table = [(c, trials) for c, trials in table if trials]
    every = [t for _, trials in table for t in trials]
    seeds = sorted({t["seed"] for t in every})
    machines = ", ".join(sorted({t["machine"] for t in rows}))
    lines = [
        "## Table 1",
        "",
        *(f"- Command: {command}." for command in _commands(every)),
        f"- Trials per condition: {', '.join(str(n) for n in sorted({len(t) for _, t in table}))} (the paper: 10),"
        f" {seeds_text(seeds)} (weights and batch order; the data are the same for every trial:"
        " `tfds_tasks.generators.generate(task, 'default')`). s/trial measured on"
        f" {machines}.",
        f"- Training: Adam, learning rate {_one(rows, 'learning_rate')}, batch 10, 800 training pairs, early"
        " stopping when 5 epochs bring no new best development accuracy (100 pairs), as in the paper's §5, with a"
        f" guard of {_one(rows, 'max_epochs')} epochs; loss and accuracy on the scored positions only (the tasks'"
        " eval masks). LSTM state 10, stack vectors 2 (6 for XOR). Test: 1000 longer strings (`tfds_tasks` test"
        " regimes).",
        "- \"train\" is the accuracy on the training set during the last epoch (the paper's left block: accuracy"
        " \"during the last epoch of the training phase\"), \"dev\" the development accuracy after it, \"test\" the"
        " final test accuracy; in %, per scored symbol. \"agrees\" says, for train and for test, whether the median"
        f" lies within the paper's min-max and on the same side of its {PAPER_BAR} % bar as the paper's median"
        " ([how runs are counted](../results.md#how-runs-are-counted)).",
        "- Buffered rows: `BufferedStackRNN(LinearController(), steps_per_input=2, output_offset=0)`. Unbuffered"
        " rows: `keras_neural_memory.models.build_hao_model`.",
        "",
        "| Task | Buffered | Controller | Stack | ours train min | med | max | dev med | ours test min | med | max "
        "| paper train min | med | max | paper test min | med | max | agrees | epochs | s/trial |",
        "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|",
    ]
    agreeing = 0
    for (label, _, buffered, controller, stack, paper_train, paper_test), trials in table:
        train, dev, test, epochs = ([t[name] for t in trials] for name in ("train", "dev", "test", "epochs"))
        verdict = (agrees(statistics.median(train), paper_train), agrees(statistics.median(test), paper_test))
        agreeing += sum(verdict)
        cells = [label, "Yes" if buffered else "No", _controller(controller), "Yes" if stack else "No"]
        cells += _cells((*_summary(train), statistics.median(dev), *_summary(test), *paper_train, *paper_test))
        cells += [" / ".join("yes" if ok else "**no**" for ok in verdict), f"{min(epochs)}-{max(epochs)}",
                  f"{statistics.mean(t['seconds'] for t in trials):.0f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"{agreeing} of the {2 * len(table)} medians (train and test of {len(table)} rows) agree with the paper.",
        "",
        "The best accuracy without memory (`memoryless_accuracy`): the majority target of each input symbol, "
        "fitted on the training pairs and measured on each split. It depends on the data alone; on the "
        "training pairs no network that sees only the current symbol (the linear controller without a stack) "
        "does better.",
        "",
        "| Task | train | dev | test |",
        "|---|--:|--:|--:|",
    ]
    for task, label in dict.fromkeys((c[1], c[0]) for c, _ in table):
        accuracy = memoryless_accuracy(task)
        lines.append(f"| {label} | " + " | ".join(_cells(accuracy[s] for s in ("train", "validation", "test"))) + " |")
    lines += _read_off(rows, table) + _regulariser(rows) + _noise(rows, table)
    return "\n".join(lines) + "\n"


def _per_seed(trials):
    return ", ".join(f"{t['test']:.1f}" for t in trials)


def _read_off(rows, table):
    """The buffered rows read as this package does (offset 0) and as Hao et al.'s reference code does."""
    compared = []
    for (label, task, buffered, controller, stack, paper_train, paper_test), trials in table:
        if buffered:
            reference = _select(rows, **table_condition(task, True, controller, stack, output_offset=REFERENCE_OFFSET))
            if reference:
                compared.append((label, paper_train, paper_test, ((0, trials), (REFERENCE_OFFSET, reference))))
    if not compared:
        return []
    reference_rows = [t for *_, groups in compared for t in groups[1][1]]
    lines = [
        "",
        "## The output buffer's read-off: this package's default against Hao et al.'s reference code",
        "",
        "§2.3 reads the outputs by \"repeatedly dequeuing the front of the output buffer with strength 1 and "
        "reading the front\". `BufferedStackRNN` reads output k after k - 1 dequeues by default (as the input "
        "buffer reads x_1 before any dequeue); Hao et al.'s reference code dequeues before every read, so output k "
        f"comes after k dequeues and the first unit of strength written is never read (`output_offset={REFERENCE_OFFSET}`). "
        "That discarded first write is a free step of delay, which is what a linear controller needs for "
        "cumulative XOR (§4: it \"cannot solve Cumulative XOR Evaluation without introducing a delay\"). The "
        "buffered rows of Table 1, read both ways, same protocol and seeds, without the strength regulariser "
        "(which the reference code applies to the buffer gates only):",
        "",
        *(f"- Command: {command} (its unbuffered trials are Table 1's)." for command in _commands(reference_rows)),
        "",
        "| Task | output_offset | ours train min | med | max | dev med | ours test min | med | max | paper train "
        "min | med | max | paper test min | med | max | test per seed | epochs |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|",
    ]
    for label, paper_train, paper_test, groups in compared:
        for offset, trials in groups:
            train, dev, test, epochs = ([t[name] for t in trials] for name in ("train", "dev", "test", "epochs"))
            cells = [label, str(offset)]
            cells += _cells((*_summary(train), statistics.median(dev), *_summary(test), *paper_train, *paper_test))
            cells += [_per_seed(trials), f"{min(epochs)}-{max(epochs)}"]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _regulariser(rows):
    """The §3 strength regulariser on parenthesis prediction, with and without."""
    weights = sorted({r["strength_regularization"] for r in rows if r["study"] == "regulariser"})
    if not weights:
        return []
    lines = [
        "",
        "## Beyond the paper: the strength regulariser",
        "",
        "`BufferedStackRNN(..., strength_regularization=w)` adds `w * mean(1 / (1 + (3.25 s - 1.625)^12))` "
        "over the stack's push and pop strengths (and the buffer gates when buffered): the penalty of Hao "
        "et al.'s reference code, 1 at s = 0.5 and about 0.003 at 0 and 1. It discourages half pushes and "
        "half pops, the \"stack as unstructured memory\" behaviour of §6. Measured on parenthesis "
        "prediction with an LSTM(10) controller and a stack (`buffered=False`, i.e. the standard network "
        "of §2.1-2.2), same seeds and data with and without:",
        "",
        "| weight | train min | med | max | test min | med | max | test per seed | epochs | s/trial |",
        "|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|",
    ]
    for weight in weights:
        trials = _select(rows, **regulariser_condition(weight))
        train, test, epochs = ([t[name] for t in trials] for name in ("train", "test", "epochs"))
        cells = [f"{weight:g}", *_cells((*_summary(train), *_summary(test))), _per_seed(trials),
                 f"{min(epochs)}-{max(epochs)}", f"{statistics.mean(t['seconds'] for t in trials):.0f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _noise(rows, table):
    """The buffered linear rows with strength noise, beside the table's own (noise 0)."""
    levels = sorted({r["strength_noise"] for r in rows if r["strength_noise"]})
    if not levels:
        return []
    lines = [
        "",
        "## Beyond the paper: strength noise on the buffered network",
        "",
        f"`BufferedStackRNN(..., strength_noise=σ)` (σ = {', '.join(f'{s:g}' for s in levels)}) adds Gaussian "
        "noise of that standard deviation, while training only, to the logits of the stack's push and pop "
        "strengths and of the buffer gates `i_t` and `o_t`. The buffered linear network's rows of the table "
        "above, with and without, same seeds, data and protocol (the noise-free rows are the table's):",
        "",
        "| Task | noise | train min | med | max | dev med | test min | med | max | test per seed | epochs |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|",
    ]
    for (label, task, buffered, controller, stack, *_), trials in table:
        if not (buffered and controller == "linear"):
            continue
        groups = [(0.0, trials)] + [(s, _select(rows, **table_condition(task, True, controller, stack, strength_noise=s)))
                                    for s in levels]  # fmt: skip
        for sigma, group in groups:
            if not group:
                continue
            train, dev, test, epochs = ([t[name] for t in group] for name in ("train", "dev", "test", "epochs"))
            cells = [label, f"{sigma:g}", *_cells((*_summary(train), statistics.median(dev), *_summary(test)))]
            cells += [_per_seed(group), f"{min(epochs)}-{max(epochs)}"]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def page_parts(record=RECORD, page=PAGE):
    """`[(page, writer, part, title)]`: the Hao et al. page's generated part, from the record; none without trials.

    Args:
        record: The JSON record of the trials (default: the committed one).
        page: The page the part goes on.
    """
    from study_record import read_rows

    rows = read_rows(pathlib.Path(record))
    return [(pathlib.Path(page), WRITER, report(rows), TITLE)] if rows else []
