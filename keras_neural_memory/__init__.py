"""keras-neural-memory: Neural Stack, Queue and DeQue memory for Keras RNNs.

Implements Grefenstette et al. 2015, "Learning to Transduce with Unbounded
Memory", and the stack networks of Hao et al. 2018.

Example:

```python
import keras
from keras_neural_memory import StackCell

layer = keras.layers.RNN(StackCell(keras.layers.LSTMCell(256)), return_sequences=True)
```
"""

from keras_neural_memory import memory, viz
from keras_neural_memory.buffered_stack_rnn import BufferedStackRNN
from keras_neural_memory.deque_cell import DequeCell
from keras_neural_memory.linear_controller import LinearController
from keras_neural_memory.memory_cell import MemoryCell
from keras_neural_memory.memory_options import MemoryOptions
from keras_neural_memory.memory_rnn import MemoryRNN
from keras_neural_memory.metrics import CoarseAccuracy, FineAccuracy, MaskedAccuracy
from keras_neural_memory.optax_adam import OptaxAdam
from keras_neural_memory.queue_cell import QueueCell
from keras_neural_memory.stack_cell import StackCell
from keras_neural_memory.strength_noise_scheduler import StrengthNoiseScheduler
from keras_neural_memory.superposition_stack_cell import SuperpositionStackCell
from keras_neural_memory.trace import trace_memory
from keras_neural_memory.vanilla_rnn_cell import VanillaRNNCell
from keras_neural_memory.viz import plot_convergence, plot_length_generalisation, plot_memory_trace

__version__ = "0.3.0"

__all__ = [
    "BufferedStackRNN",
    "CoarseAccuracy",
    "DequeCell",
    "FineAccuracy",
    "LinearController",
    "MaskedAccuracy",
    "MemoryCell",
    "MemoryOptions",
    "MemoryRNN",
    "OptaxAdam",
    "QueueCell",
    "StackCell",
    "StrengthNoiseScheduler",
    "SuperpositionStackCell",
    "VanillaRNNCell",
    "memory",
    "plot_convergence",
    "plot_length_generalisation",
    "plot_memory_trace",
    "trace_memory",
    "viz",
]
