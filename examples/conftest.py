"""pytest configuration for the example notebooks.

`python -m pytest --nbmake examples` executes every notebook; this makes
that run use the fast setting (tiny models, a few hundred batches) unless
`NEURAL_MEMORY_EXAMPLES` is already set. The variable is inherited by the
notebook kernels that nbmake starts.
"""

import os

os.environ.setdefault("NEURAL_MEMORY_EXAMPLES", "fast")
