"""The experiment application: what `neural-memory` runs on top of the library."""
