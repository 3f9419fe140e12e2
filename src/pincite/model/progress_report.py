"""What long work reports as it goes: one callback, `Report`, that library code calls and
never renders (no printing, no Rich below the CLI). The CLI supplies it
(`cli.progress_lines`); a caller that wants nothing passes none.

`report(unit, done, total, label)` says that `done` of `total` units are finished (total
None: not known) and, with a label, which one is in hand now: a document's name, a
step's description. Counts are absolute, so a report may be dropped or repeated safely.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, TypeVar

from ..vocab import ProgressUnit

__all__ = ["ProgressUnit", "Report", "counted", "report_to"]

T = TypeVar("T")


class Report(Protocol):
    """The progress callback: `report(unit, done, total, label="")`."""

    def __call__(self, unit: ProgressUnit, done: int, total: int | None,
                 label: str = "", /) -> None: ...


def report_to(report: Report | None, unit: ProgressUnit, done: int, total: int | None,
              label: str = "") -> None:
    """Call `report` when there is one (return None either way)."""
    if report is not None:
        report(unit, done, total, label)


def counted(items: Sequence[T], unit: ProgressUnit, report: Report | None,
            label: Callable[[T], str] | None = None) -> Iterator[T]:
    """Yield `items` in order, reporting each to `report` as it starts (with `label(item)`)
    and all of them done at the end."""
    for k, item in enumerate(items):
        report_to(report, unit, k, len(items), label(item) if label is not None else "")
        yield item
    report_to(report, unit, len(items), len(items))
