"""The Python half of `benchmarks/gpu_check.sh`: device lists and the report.

`gpu_check.sh` runs each part (devices, tests, timings) as its own process
under a time limit, writing into OUTDIR `NAME.log` and `NAME.status` ("exit
status, seconds, limit"), or `NAME.skipped` when no time was left. This
script lists a backend's devices, and assembles `OUTDIR/gpu_check.md` from
what the parts left, whether they finished or not.

Usage (by gpu_check.sh):
    python benchmarks/gpu_check.py devices tensorflow OUTDIR/devices-tensorflow.json
    python benchmarks/gpu_check.py report OUTDIR --mode full --seconds 412
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import socket
import subprocess
import sys

BACKENDS = ("tensorflow", "jax")
BACKEND_NAMES = {"tensorflow": "TensorFlow", "jax": "JAX"}
# throughput.py's model names, in the order of the tables.
MODELS = {
    "lstm2": "2-layer LSTM (baseline)",
    "stack": "Stack-LSTM",
    "queue": "Queue-LSTM",
    "deque": "DeQue-LSTM",
}
TIMED_OUT = (124, 137)  # `timeout`'s status, and a kill after its grace period
# Counts in pytest's summary line, e.g. "== 88 passed, 2 failed, 1 skipped in 90.2s ==".
_SUMMARY_LINE = re.compile(r"^=+ .*\b(passed|failed|errors?|skipped|deselected|no tests ran)\b.* in [\d.]+s")
_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
# A test's line in `pytest -v` output, counted when the summary never came (a timeout).
_VERBOSE = re.compile(r"^tests/\S+::\S+ (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", re.M)
_VERBOSE_NAMES = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors", "SKIPPED": "skipped",
                  "XFAIL": "xfailed", "XPASS": "xpassed"}  # fmt: skip


# ----------------------------------------------------------------- devices


def devices(backend, path):
    """Lists what `backend` sees, prints it on one line and writes it to `path` as JSON.

    Args:
        backend: "tensorflow" or "jax". Only that framework is imported, so
            that one failing to start does not hide the other's devices.
        path: The JSON file to write.
    """
    record = {"backend": backend}
    if backend == "tensorflow":
        import tensorflow as tf

        found = []
        for device in tf.config.list_physical_devices():
            name = device.name.replace("/physical_device:", "")
            if device.device_type == "GPU":
                details = tf.config.experimental.get_device_details(device)
                name += f" ({details.get('device_name', 'unknown GPU')})"
            found.append(name)
        build = tf.sysconfig.get_build_info()
        record.update(
            version=tf.__version__,
            devices=found,
            gpu=bool(tf.config.list_physical_devices("GPU")),
            build={key: build[key] for key in ("cuda_version", "cudnn_version") if key in build},
        )
    else:
        import jax

        found = [f"{d.platform}:{d.id} ({d.device_kind})" for d in jax.devices()]
        record.update(
            version=jax.__version__,
            devices=found,
            gpu=jax.default_backend() == "gpu",
            build={"jaxlib": importlib.metadata.version("jaxlib")},
        )
    print(f"{BACKEND_NAMES[backend]} sees: {', '.join(record['devices'])}", flush=True)
    with open(path, "w") as f:
        json.dump(record, f, indent=2)


def _nvidia_smi():
    """The GPUs `nvidia-smi` lists, one string each; [] without the tool."""
    query = ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"]
    try:
        run = subprocess.run(query, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in run.stdout.splitlines() if line.strip()] if run.returncode == 0 else []


def _version(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


# ------------------------------------------------------------------ parts


class Part:
    """What one part of the check left in OUTDIR: its status and its log."""

    def __init__(self, outdir, name):
        self.name = name
        self.log_path = os.path.join(outdir, f"{name}.log")
        self.rc = self.seconds = self.limit = None
        self.skipped = None
        status = os.path.join(outdir, f"{name}.status")
        skipped = os.path.join(outdir, f"{name}.skipped")
        if os.path.exists(status):
            with open(status) as f:
                self.rc, self.seconds, self.limit = (int(word) for word in f.read().split()[:3])
        elif os.path.exists(skipped):
            with open(skipped) as f:
                self.skipped = f.read().strip() or "skipped"

    @property
    def ran(self):
        return self.rc is not None

    @property
    def ok(self):
        return self.rc == 0

    @property
    def log(self):
        if not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def describe(self):
        """One phrase: "passed in 12 s", "timed out after 90 s", "skipped: ..."."""
        if self.skipped:
            return self.skipped
        if not self.ran:
            return "did not run"
        if self.rc == 0:
            return f"done in {self.seconds} s"
        if self.rc in TIMED_OUT:
            return f"timed out after {self.seconds} s (limit {self.limit} s)"
        return f"failed (exit status {self.rc}) after {self.seconds} s: {self.last_error()}"

    def last_error(self):
        """The log's last line that looks like an error, else its last line."""
        lines = [line.strip() for line in self.log.splitlines() if line.strip()]
        errors = [line for line in lines if re.search(r"Error|error:|Exception|FAILED", line)]
        line = (errors or lines or ["no output"])[-1]
        return line[:300].replace("|", "\\|")


def test_counts(part):
    """`{"passed": n, "failed": n, ...}` of a pytest part, from its summary or its `-v` lines."""
    log = part.log
    summaries = [line for line in log.splitlines() if _SUMMARY_LINE.match(line)]
    counts = {}
    if summaries:
        for number, kind in _SUMMARY.findall(summaries[-1]):
            counts["errors" if kind.startswith("error") else kind] = int(number)
    else:
        for word in _VERBOSE.findall(log):
            key = _VERBOSE_NAMES[word]
            counts[key] = counts.get(key, 0) + 1
    return counts


def failed_tests(part):
    """Node ids of the failed or erroring tests, from `-rfE`'s short summary."""
    return re.findall(r"^(?:FAILED|ERROR) (tests/\S+)", part.log, re.M)


# ----------------------------------------------------------------- report


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def report(outdir, mode, seconds, command):
    """Writes `outdir/gpu_check.md` and returns the names of the parts that failed."""
    failures = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# GPU check", ""]

    # Devices.
    device_records = {}
    for backend in BACKENDS:
        path = os.path.join(outdir, f"devices-{backend}.json")
        if os.path.exists(path):
            with open(path) as f:
                device_records[backend] = json.load(f)
    gpus = _nvidia_smi()
    device_rows, device_notes = [], []
    for backend in BACKENDS:
        part = Part(outdir, f"devices-{backend}")
        record = device_records.get(backend)
        if record is None:
            failures.append(f"devices ({backend})")
            device_rows.append([BACKEND_NAMES[backend], f"unknown: {part.describe()}"])
            continue
        device_rows.append([BACKEND_NAMES[backend], ", ".join(record["devices"])])
        if gpus and not record["gpu"]:
            # The point of the check is the GPU: a backend on the CPU beside one did not check it.
            failures.append(f"devices ({backend}: no GPU)")
            hint = 'pip install -U "jax[cuda12]"' if backend == "jax" else 'pip install "tensorflow[and-cuda]"'
            device_notes.append(
                f"- **{BACKEND_NAMES[backend]} sees no GPU** although nvidia-smi lists one: its tests and "
                f"timings below ran on the CPU. Install its CUDA build ({hint})."
            )

    # Tests.
    test_rows, test_notes = [], []
    for backend in BACKENDS:
        parts = [Part(outdir, f"tests-{backend}-{kind}") for kind in ("xla", "other")]
        parts = [p for p in parts if p.ran or p.skipped or os.path.exists(p.log_path)]
        total = {}
        for part in parts:
            counts = test_counts(part)
            for key, value in counts.items():
                total[key] = total.get(key, 0) + value
            kind = "XLA tests (`jit_compile=True`)" if part.name.endswith("xla") else "other tests"
            described = ", ".join(f"{v} {k}" for k, v in counts.items()) or "no results"
            test_notes.append(f"- {BACKEND_NAMES[backend]}, {kind}: {described}; {part.describe()}.")
            for node in failed_tests(part):
                test_notes.append(f"  - failed: `{node}`")
            # pytest's 1 is "some tests failed"; 5 is "no tests collected", a failure here too.
            if not part.ok:
                failures.append(f"tests ({backend}, {part.name.rsplit('-', 1)[1]})")
        if not parts:
            failures.append(f"tests ({backend})")
        seconds_spent = sum(p.seconds or 0 for p in parts)
        test_rows.append([
            BACKEND_NAMES[backend], total.get("passed", 0), total.get("failed", 0) + total.get("errors", 0),
            total.get("skipped", 0) + total.get("xfailed", 0), f"{seconds_spent} s",
            "passed" if parts and all(p.ok for p in parts) else "FAILED",
        ])  # fmt: skip

    # Timings.
    timing_sections = []
    names = " ".join(os.listdir(outdir))
    lengths = sorted({int(m) for m in re.findall(r"throughput-\w+-(\d+)\.(?:status|skipped|log)", names)})
    for backend in BACKENDS:
        rows = {kind: [label] for kind, label in MODELS.items()}
        notes, settings, rounds = [], None, []
        for length in lengths:
            part = Part(outdir, f"throughput-{backend}-{length}")
            path = os.path.join(outdir, f"throughput-{backend}-{length}.json")
            results = {}
            if part.ok and os.path.exists(path):
                with open(path) as f:
                    recorded = json.load(f)
                settings = recorded["args"]
                rounds.append(
                    f"T={length}: median of {settings['repeats']} round(s) of {settings['steps']} steps, "
                    f"after {settings['warmup']} warm-up step(s)"
                )
                if recorded["backend"] != backend:
                    failures.append(f"timing ({backend}, T={length}: ran on {recorded['backend']})")
                # Labels are "stack (XLA)"; `MODELS` are the names before the parenthesis.
                results = {label.split(" ")[0]: r for label, r in recorded["results"].items()}
            else:
                failures.append(f"timing ({backend}, T={length})")
                notes.append(f"- T={length}: {part.describe()}.")
            base = results.get("lstm2", {}).get("batches_per_s")
            for kind in MODELS:
                result = results.get(kind)
                if result is None:
                    rows[kind] += ["n/a", "n/a"]
                    continue
                ratio = f"{result['batches_per_s'] / base:.2f}x" if base else "n/a"
                rows[kind] += [f"{result['batches_per_s']:.2f}", ratio]
            if "Model doesn't support `jit_compile=True`" in part.log:
                notes.append(
                    f"- T={length}: Keras ran the 2-layer LSTM on cuDNN without XLA (it turns XLA off for "
                    "a TensorFlow model with a cuDNN LSTM); the memory models ran under XLA."
                )
        header = ["model"]
        for length in lengths:
            header += [f"T={length} batches/s", f"T={length} vs 2-layer LSTM"]
        section = [f"### {BACKEND_NAMES[backend]}", ""]
        if settings:
            section += [
                f"Batch {settings['batch']}, hidden {settings['hidden']}, memory width {settings['width']}, "
                f"XLA (`jit_compile=True`); {'; '.join(rounds)}.",
                "",
            ]
        section += _table(header, rows.values()) + [""] + (notes + [""] if notes else [])
        timing_sections += section

    # Versions.
    versions = [
        ["python", platform.python_version()],
        ["keras", _version("keras")],
        ["tensorflow", device_records.get("tensorflow", {}).get("version") or _version("tensorflow")],
        ["jax", device_records.get("jax", {}).get("version") or _version("jax")],
        ["jaxlib", _version("jaxlib")],
        ["numpy", _version("numpy")],
        ["keras-neural-memory", _version("keras-neural-memory")],
    ]
    build = device_records.get("tensorflow", {}).get("build", {})
    if build:
        versions.append(["TensorFlow built for", ", ".join(f"{k.split('_')[0].upper()} {v}" for k, v in build.items())])

    lines += [
        f"- Date: {now}",
        f"- Host: {socket.gethostname()}, {os.cpu_count()} CPU cores",
        f"- Command: `{command}` ({mode} mode), {seconds} s in all",
        *(["- Quick mode: tiny settings and one test, a check of the script; its timings measure nothing."]
          if mode == "quick" else []),
        "- Result: " + ("every part passed" if not failures else "**FAILED**: " + ", ".join(failures)),
        "",
        "## Devices",
        "",
        *_table(["backend", "devices"], device_rows),
        "",
        "nvidia-smi: " + ("; ".join(gpus) if gpus else "no GPU listed (or no nvidia-smi)"),
        *([""] + device_notes if device_notes else []),
        "",
        "## Versions",
        "",
        *_table(["package", "version"], versions),
        "",
        "## Tests",
        "",
        "`tests/core/test_cells.py` and `tests/core/test_fused_scan.py` on each backend; the XLA tests first.",
        "",
        *_table(["backend", "passed", "failed", "skipped", "time", "result"], test_rows),
        "",
        *test_notes,
        "",
        "## Training speed",
        "",
        "Training batches per second (`benchmarks/throughput.py`), and the ratio to the 2-layer LSTM measured "
        "in the same process (above 1: faster than it).",
        "",
        *timing_sections,
    ]
    with open(os.path.join(outdir, "gpu_check.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("devices", help="list a backend's devices into a JSON file")
    listing.add_argument("backend", choices=BACKENDS)
    listing.add_argument("path")
    writing = commands.add_parser("report", help="write OUTDIR/gpu_check.md; exit 1 if a part failed")
    writing.add_argument("outdir")
    writing.add_argument("--mode", default="full")
    writing.add_argument("--seconds", type=int, default=0)
    writing.add_argument("--command", default="bash benchmarks/gpu_check.sh")
    args = parser.parse_args()
    if args.command == "devices":
        devices(args.backend, args.path)
        return 0
    failures = report(args.outdir, args.mode, args.seconds, args.command)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
