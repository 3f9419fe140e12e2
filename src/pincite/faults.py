"""Named fault points: do nothing unless `PINCITE_FAULTS` asks them to fail.

`PINCITE_FAULTS="blob.fsync=kill,ingest.before_commit=raise"`; actions are `kill`
(SIGKILL this process), `raise` (raise `FaultInjected`), `enospc` (raise OSError ENOSPC)
and `delay:SECONDS`. Tests use them to prove that an ingest commits wholly or not at all.
"""

from __future__ import annotations

import errno
import os
import signal
import time

from .errors import FaultInjected

POINTS = (
    "blob.write",
    "blob.fsync",
    "blob.rename",
    "ingest.after_blob",
    "ingest.before_commit",
    "ingest.after_commit",
    "gen.vectors_write",
    "gen.vectors_fsync",
    "gen.fts_written",
    "gen.before_pointer_swap",
    "gen.pointer_swap",
    "gen.after_pointer_swap",
    "delete.tombstone",
)


def hit(point: str) -> None:
    """Fail at `point` if the environment asks for it; otherwise return at once."""
    spec = os.environ.get("PINCITE_FAULTS")
    if not spec:
        return
    for item in spec.split(","):
        name, _, action = item.strip().partition("=")
        if name != point:
            continue
        if action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif action == "raise":
            raise FaultInjected(f"fault injected at {point}")
        elif action == "enospc":
            raise OSError(errno.ENOSPC, f"No space left on device (fault at {point})")
        elif action.startswith("delay:"):
            time.sleep(float(action.split(":", 1)[1]))
