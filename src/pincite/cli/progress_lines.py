"""Progress of long commands, on stderr only: a Rich display when stderr is a terminal,
plain lines when it is not, nothing with `PINCITE_PROGRESS=off`.

Library code reports through a callback (`model.progress_report.Report`) and never
renders; a command opens `shown(title)` and hands its `report` down:

    with shown("ingest") as bar:
        lib.ingest(paths, ..., report=bar.report)

On a terminal each unit has a line of its own (documents, then the pages of the one in
hand, then its pages read by OCR; steps; cases) with its count, bar and elapsed time; the
display is cleared when the command ends. Piped, a line is written as each document or
step starts, and for cases at each tenth done; pages write none. `PINCITE_PROGRESS=plain`
asks for the lines on a terminal too. stdout never receives progress, so `--json` output
is the same with it or without it.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from ..vocab import ProgressUnit

if TYPE_CHECKING:
    from rich.console import Console

ENV = "PINCITE_PROGRESS"
MODES = ("auto", "plain", "off")
_PLURAL = {ProgressUnit.DOCUMENT: "documents", ProgressUnit.PAGE: "pages",
           ProgressUnit.OCR_PAGE: "pages read by OCR", ProgressUnit.STEP: "steps",
           ProgressUnit.CASE: "cases"}
_INNER = (ProgressUnit.PAGE, ProgressUnit.OCR_PAGE)  # a document's own: reset per document
_LABEL_MAX = 80


def progress_mode() -> str:
    """Return the mode `$PINCITE_PROGRESS` asks for (auto when unset); raise UsageError for
    any other value."""
    mode = (os.environ.get(ENV) or "auto").strip().lower()
    if mode not in MODES:
        from ..errors import UsageError

        raise UsageError(f"{ENV}={os.environ.get(ENV)!r} is not a progress mode: use "
                         f"{', '.join(MODES)}")
    return mode


def _printable(label: str) -> str:
    """Return `label` with no control or format character and at most _LABEL_MAX long."""
    text = "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in label)
    return text if len(text) <= _LABEL_MAX else text[:_LABEL_MAX - 1] + "…"


class Progress:
    """The progress of one command: `report` is the callback for library code; `total`,
    `advance` and `describe` count what the command does itself."""

    def __init__(self, title: str, *, mode: str = "plain", stream: TextIO | None = None,
                 console: Console | None = None) -> None:
        self.title = title
        self.mode = mode
        self._stream = stream if stream is not None else sys.stderr  # pinned: see `shown`
        self._console = console
        self._done: dict[ProgressUnit, int] = {}
        self._totals: dict[ProgressUnit, int | None] = {}
        self._tenth: dict[ProgressUnit, int] = {}
        self._rich: Any = None
        self._tasks: dict[ProgressUnit, Any] = {}

    @property
    def live(self) -> bool:
        """True while the Rich display is shown (a terminal, mode auto)."""
        return self._rich is not None

    @property
    def stdout_free(self) -> bool:
        """True when a line written to stdout now cannot break into the display (none is
        shown, or stdout is not the terminal): else print results after it ends."""
        return self._rich is None or not _is_terminal(sys.stdout)

    def __enter__(self) -> Progress:
        if self.mode == "rich":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as RichProgress

            console = self._console or Console(file=self._stream)
            self._rich = RichProgress(
                SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(),
                MofNCompleteColumn(), TextColumn("{task.fields[unit]}", markup=False),
                TimeElapsedColumn(), console=console, transient=True,
                redirect_stdout=False, redirect_stderr=False)
            self._rich.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._rich is not None:
            self._rich.stop()
            self._rich = None

    # ---- the tiny API -------------------------------------------------------------------

    def total(self, unit: ProgressUnit, n: int | None) -> None:
        """Say how many `unit`s there are to do (None: not known)."""
        self.report(unit, self._done.get(unit, 0), n)

    def advance(self, unit: ProgressUnit, n: int = 1) -> None:
        """Count `n` more `unit`s done."""
        self.report(unit, self._done.get(unit, 0) + n, self._totals.get(unit))

    def describe(self, unit: ProgressUnit, label: str) -> None:
        """Say which `unit` is in hand now (a document's name, a step)."""
        self.report(unit, self._done.get(unit, 0), self._totals.get(unit), label)

    def report(self, unit: ProgressUnit, done: int, total: int | None,
               label: str = "", /) -> None:
        """The callback library code reports to (`model.progress_report.Report`)."""
        self._done[unit], self._totals[unit] = done, total
        if self.mode == "off":
            return
        label = _printable(label)
        if self._rich is not None:
            self._show(unit, done, total, label)
        elif unit in (ProgressUnit.DOCUMENT, ProgressUnit.STEP) and label:
            count = f"{done + 1}/{total}" if total is not None else f"{done + 1}"
            self._line(f"{self.title}: {unit.value} {count} {label}")
        elif unit == ProgressUnit.CASE and total and done:
            tenth = done * 10 // total
            if tenth > self._tenth.get(unit, 0):
                self._tenth[unit] = tenth
                self._line(f"{self.title}: {done}/{total} {_PLURAL[unit]}")

    def part(self, unit: ProgressUnit, first: int, total: int, prefix: str = "") -> Any:
        """Return a callback for work that is units `first`… of `total`: it counts its own
        from 0, and they are shown counted from `first`, labelled after `prefix`."""

        def report(u: ProgressUnit, done: int, _total: int | None, label: str = "", /) -> None:
            if u != unit:
                self.report(u, done, _total, label)
            else:
                self.report(u, first + done, total, prefix + label if label else "")

        return report

    # ---- rendering ----------------------------------------------------------------------

    def _line(self, text: str) -> None:
        self._stream.write(text + "\n")
        self._stream.flush()

    def _show(self, unit: ProgressUnit, done: int, total: int | None, label: str) -> None:
        rich = self._rich
        description = f"  {label}" if unit in _INNER else f"{self.title} {label}".rstrip()
        if unit == ProgressUnit.DOCUMENT and (total is None or done < total):  # a new one:
            for k in _INNER:  # its pages start afresh (after the last, its pages stay shown)
                if k in self._tasks:
                    rich.reset(self._tasks[k], visible=False)
        if unit not in self._tasks:
            self._tasks[unit] = rich.add_task(description, total=total, unit=_PLURAL[unit])
        rich.update(self._tasks[unit], completed=done, total=total, visible=True,
                    description=description)


@contextmanager
def shown(title: str, *, console: Console | None = None) -> Iterator[Progress]:
    """Yield the progress of the command `title` on stderr as `$PINCITE_PROGRESS` asks:
    Rich on a terminal (auto), plain lines when stderr is not one (or with plain), or
    nothing (off). `console` stands in for the terminal (tests: `force_terminal=True`).

    The stream is the stderr of the moment the command starts: a command run in process
    while it is shown (the acceptance suite's) writes to its own captured streams."""
    mode = progress_mode()
    stream = sys.stderr
    if mode == "auto":
        terminal = console.is_terminal if console is not None else _is_terminal(stream)
        mode = "rich" if terminal else "plain"
    with Progress(title, mode=mode, stream=stream, console=console) as bar:
        yield bar


def bars_wanted() -> bool:
    """Return True when a Rich bar of library code (the embedder's) may be shown: mode auto
    and stderr a terminal."""
    return progress_mode() == "auto" and _is_terminal(sys.stderr)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
