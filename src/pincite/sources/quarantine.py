"""The exception the inspection step raises for bytes it will not pass to a parser."""

from __future__ import annotations

from ..model import QUARANTINE_REASONS


class Quarantined(Exception):
    """Bad input: `reason` is one of `model.QUARANTINE_REASONS`, `detail` a sentence saying
    what is wrong and, where it helps, what to do."""

    def __init__(self, reason: str, detail: str) -> None:
        if reason not in QUARANTINE_REASONS:
            raise ValueError(f"unknown quarantine reason {reason!r}")
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.reason, self.detail))
