"""The experiment application: the papers' runs, built on the library above it.

`keras_neural_memory` itself is the reusable library (the memory, the cells,
the layers, the model builders, the metrics, traces and plots). This
subpackage is the application that trains and measures models on the
papers' tasks, and backs the `neural-memory` command:

* `config`: `RunConfig` (one run), the data scales, the paper's grid;
* `data`: a task's settings at a scale, and its example streams;
* `training`: the model of a run, the compile recipe, `train` (a run that
  survives a kill) and `measure`;
* `evaluation`: a saved run at any lengths;
* `reproduce`: the paper's results table over a grid of runs;
* `hypermodel`: the paper's grid as a keras-tuner `HyperModel`;
* `run_folder`: a run's folder, from its first epoch to `evaluate`;
* `callbacks`: the callbacks that make a run lose nothing;
* `cli`: argument parsing only.

Modules depend downwards only: `cli` on `reproduce`, `evaluation` and
`training`, these on `data`, `run_folder` and `config`, and all of them on the
library, which never imports this subpackage.
"""

from keras_neural_memory.experiments.config import RunConfig, UsageError

__all__ = ["RunConfig", "UsageError"]
