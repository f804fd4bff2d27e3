"""Test setup for the tfds_tasks tests."""

import os
import sys

# Quieter TensorFlow logs in the test output.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# The helper modules (tasks_checkers, task_checks, tasks_fixtures) live here.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
