"""The part of a results page that a benchmark script writes, between two marker lines.

A script owns the text between its markers and rewrites it on every run;
the hand-written text around them is kept. A page without the markers gets
the part appended; a new page gets `title` and the part.
"""

from keras_neural_memory.experiments.run_folder import write_atomically


def markers(writer):
    """The lines that open and close the part `writer` (e.g. "benchmarks/deque_study.py") writes."""
    return (
        f"<!-- Written by {writer} down to the closing marker; the text around it is kept. -->",
        f"<!-- End of the part written by {writer}. -->",
    )


def write_part(output, writer, part, title):
    """Writes `part` between `writer`'s markers in the page `output` (a `pathlib.Path`), atomically.

    Example:

    >>> import pathlib, tempfile
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "page.md"
    >>> write_part(page, "benchmarks/x.py", "| a |", "# X")
    >>> _ = page.write_text(page.read_text() + "Kept.\\n")
    >>> write_part(page, "benchmarks/x.py", "| b |", "# X")
    >>> print(page.read_text())
    # X
    <BLANKLINE>
    <!-- Written by benchmarks/x.py down to the closing marker; the text around it is kept. -->
    <BLANKLINE>
    | b |
    <!-- End of the part written by benchmarks/x.py. -->
    Kept.
    <BLANKLINE>
    """
    begin, end = markers(writer)
    block = f"{begin}\n\n{part.rstrip()}\n{end}\n"
    text = output.read_text() if output.exists() else ""
    if begin in text and end in text.split(begin, 1)[1]:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1].removeprefix("\n")
    elif text:
        text = text.rstrip("\n") + "\n\n" + block
    else:
        text = f"{title}\n\n{block}"
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, text)
