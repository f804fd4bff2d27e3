"""Installs keras-neural-memory: differentiable Neural Stack, Queue and DeQue memory for Keras RNNs."""

import pathlib
import re

from setuptools import find_packages, setup

HERE = pathlib.Path(__file__).parent
# The version's one home is the package; CITATION.cff is checked against it
# by tests/docs.
VERSION = re.search(r'^__version__ = "([^"]+)"', (HERE / "keras_neural_memory" / "__init__.py").read_text(), re.M)[1]
# The documentation site (mkdocs.yml): `pip install -e ".[docs]"`, then `mkdocs serve`.
# Below MkDocs 2: these plugins are written for MkDocs 1.
DOCS = [
    "mkdocs>=1.6,<2",
    "mkdocs-material>=9.5",
    "mkdocstrings>=0.29",
    "mkdocstrings-python>=1.16",
    "mkdocs-jupyter>=0.25",
    "pymdown-extensions>=10",
    "black>=24",  # mkdocstrings formats long signatures with it
]

setup(
    name="keras-neural-memory",
    version=VERSION,
    description=(
        "Neural Stack, Queue and DeQue memory (Grefenstette et al. 2015) and "
        "stack networks (Hao et al. 2018) as Keras 3 RNN cells, with TFDS tasks."
    ),
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    license_files=["LICENSE"],
    python_requires=">=3.10",
    packages=find_packages(include=["keras_neural_memory*", "tfds_tasks*"]),
    # The console script's entry point, outside the package so that it runs before Keras imports TensorFlow.
    py_modules=["keras_neural_memory_console"],
    include_package_data=True,
    install_requires=[
        "keras>=3.5",
        "tensorflow>=2.16",
        "tensorflow-datasets>=4.9",
        # tensorflow-datasets 4.9.10 imports importlib_resources without declaring it.
        "importlib_resources",
        "keras-tuner>=1.4",
        "numpy",
        "matplotlib",
        # TensorFlow 2.21 no longer pulls in TensorBoard; `train` writes its logs.
        "tensorboard",
    ],
    entry_points={"console_scripts": ["neural-memory=keras_neural_memory_console:main"]},
    extras_require={
        # The tests build the documentation site and open it in a browser (selenium drives the system's chromium).
        "test": ["pytest>=7", "hypothesis>=6", "dill", "jax[cpu]>=0.4.30", "nbmake>=1.5", "ipykernel", "selenium>=4.20", *DOCS],
        "jax": ["jax>=0.4.30"],
        "docs": DOCS,
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
