"""The 15 tasks of Delétang et al. (2023), "Neural Networks and the Chomsky Hierarchy".

Generators (no TensorFlow; NumPy for batches) that follow the authors'
published code: the same token ids, vocabulary sizes, output lengths and
sampling rules, with the authors' settings (modulus 5; vocabulary 2 for
duplicate_string and odds_first, 5 for bucket_sort; ``mult=True`` for
modular_arithmetic_brackets, ``mult=False`` for solve_equation). Where
the authors' docstrings and code disagree, the code is followed and the
task's ``description`` says so.

``length`` is the authors' ``length`` argument; each task's description
says what it counts (input ids for all but modular_arithmetic, whose
input has ``length - 1`` ids when ``length`` is even).

Outputs are non-autoregressive, as the authors train: a model reads the
input and produces all ``output_length(length)`` outputs at once.
``output_mask`` is 1 where the output counts; for stack_manipulation,
binary_addition and binary_multiplication that is up to and including
the terminator (the authors' ``accuracy_mask``; their loss is summed over
every output position, padding included).

Example:
  >>> import random
  >>> from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASKS
  >>> task = CHOMSKY_TASKS["binary_addition"]
  >>> inputs, outputs, mask = task.sample(random.Random(0), 6)
  >>> len(inputs), len(outputs), outputs[sum(mask) - 1] == task.terminator
  (6, 7, True)
"""

from __future__ import annotations

from tfds_tasks.generators.chomsky_hierarchy.base import LEVELS, ChomskyBatch, ChomskyTask
from tfds_tasks.generators.chomsky_hierarchy.context_free import (
    ModularArithmeticBrackets,
    ReverseString,
    SolveEquation,
    StackManipulation,
)
from tfds_tasks.generators.chomsky_hierarchy.context_sensitive import (
    BinaryAddition,
    BinaryMultiplication,
    BucketSort,
    ComputeSqrt,
    DuplicateString,
    MissingDuplicateString,
    OddsFirst,
)
from tfds_tasks.generators.chomsky_hierarchy.regular import (
    CycleNavigation,
    EvenPairs,
    ModularArithmetic,
    ParityCheck,
)
from tfds_tasks.generators.chomsky_hierarchy.streams import (
    batches,
    evaluation_batches,
    training_batches,
)

# In the paper's order: regular, deterministic context-free, context-sensitive.
CHOMSKY_TASKS: dict[str, ChomskyTask] = {
    task.name: task
    for task in (
        EvenPairs(),
        ParityCheck(),
        CycleNavigation(),
        ModularArithmetic(),
        ReverseString(),
        StackManipulation(),
        ModularArithmeticBrackets(),
        SolveEquation(),
        DuplicateString(),
        MissingDuplicateString(),
        OddsFirst(),
        BinaryAddition(),
        BinaryMultiplication(),
        ComputeSqrt(),
        BucketSort(),
    )
}

CHOMSKY_TASK_NAMES: tuple[str, ...] = tuple(CHOMSKY_TASKS)


def chomsky_task(name: str) -> ChomskyTask:
    """Returns the task object of a name of :data:`CHOMSKY_TASKS`.

    Args:
      name: a task name, e.g. ``"stack_manipulation"``.

    Returns:
      The :class:`ChomskyTask`.

    Raises:
      ValueError: for an unknown name.

    Example:
      >>> chomsky_task("stack_manipulation").output_length(10)
      11
    """
    if name not in CHOMSKY_TASKS:
        raise ValueError(
            f"unknown task_name {name!r}; pass one of: {', '.join(CHOMSKY_TASK_NAMES)}"
        )
    return CHOMSKY_TASKS[name]


__all__ = [
    "CHOMSKY_TASKS",
    "CHOMSKY_TASK_NAMES",
    "LEVELS",
    "ChomskyBatch",
    "ChomskyTask",
    "batches",
    "chomsky_task",
    "evaluation_batches",
    "training_batches",
]
