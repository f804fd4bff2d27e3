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


def with_part(text, writer, part, title):
    """The page `text` with `part` between `writer`'s markers, and the text around them kept.

    Args:
        text: The page as it is; "" for a page that does not exist yet.
        writer: Who writes the part, named in its markers (e.g. "benchmarks/deque_study.py").
        part: The markdown between the markers.
        title: The first line of a new page.

    Returns:
        The page's new text.

    Example:

    >>> print(with_part("# X\\n\\nKept.\\n", "benchmarks/x.py", "| a |", "# X"))
    # X
    <BLANKLINE>
    Kept.
    <BLANKLINE>
    <!-- Written by benchmarks/x.py down to the closing marker; the text around it is kept. -->
    <BLANKLINE>
    | a |
    <!-- End of the part written by benchmarks/x.py. -->
    <BLANKLINE>
    """
    begin, end = markers(writer)
    block = f"{begin}\n\n{part.rstrip()}\n{end}\n"
    if begin in text and end in text.split(begin, 1)[1]:
        head, rest = text.split(begin, 1)
        return head + block + rest.split(end, 1)[1].removeprefix("\n")
    if text:
        return text.rstrip("\n") + "\n\n" + block
    return f"{title}\n\n{block}"


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
    text = output.read_text() if output.exists() else ""
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, with_part(text, writer, part, title))
