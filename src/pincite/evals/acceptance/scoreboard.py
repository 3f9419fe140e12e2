"""The scoreboard: named counters of attempts and failures, printed one row per figure.

Every figure counts attempts made through real code paths (`tried`) and the attempts that
broke the promise (`bad`); a few examples of the bad ones are kept for the report. A figure
whose machinery does not exist yet is `not_applicable` with its reason — never passed.
`write` saves the run as JSON (`schema_name` pincite.acceptance); `table` renders it.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import OutputUnwritable

SCHEMA_NAME = "pincite.acceptance"
VERSION = 1
MAX_EXAMPLES = 5
RAN = "ran"
NOT_APPLICABLE = "not_applicable"


@dataclass
class Figure:
    """One promise measured: how many attempts were made and how many broke it."""

    group: str
    name: str
    tried: int = 0
    bad: int = 0
    status: str = RAN
    note: str = ""
    examples: list[str] = field(default_factory=list)

    def attempt(self, ok: bool, example: str = "") -> bool:
        """Count one attempt; when it broke the promise, count it bad and keep `example`.
        Return `ok`."""
        self.tried += 1
        if not ok:
            self.bad += 1
            if example and len(self.examples) < MAX_EXAMPLES:
                self.examples.append(example[:300])
        return ok

    def add(self, tried: int, bad: int, example: str = "") -> None:
        """Count `tried` attempts of which `bad` broke the promise (keeping `example`)."""
        self.tried += tried
        self.bad += bad
        if bad and example and len(self.examples) < MAX_EXAMPLES:
            self.examples.append(example[:300])

    def to_dict(self) -> dict[str, Any]:
        """Return the figure as the JSON object of the report."""
        d: dict[str, Any] = {"figure": self.name, "status": self.status, "tried": self.tried,
                             "bad": self.bad}
        if self.note:
            d["note"] = self.note
        if self.examples:
            d["examples"] = list(self.examples)
        return d


class Scoreboard:
    """The figures of one acceptance run, in the order the groups made them."""

    def __init__(self) -> None:
        self._figures: dict[tuple[str, str], Figure] = {}
        self.notes: dict[str, list[str]] = {}
        self.seconds: dict[str, float] = {}

    def figure(self, group: str, name: str, note: str = "") -> Figure:
        """Return the figure `name` of `group`, created at zero the first time."""
        key = (group, name)
        if key not in self._figures:
            self._figures[key] = Figure(group, name, note=note)
        elif note and not self._figures[key].note:
            self._figures[key].note = note
        return self._figures[key]

    def not_applicable(self, group: str, name: str, reason: str) -> Figure:
        """Record a figure that cannot be measured here, with the reason (never a pass)."""
        f = self.figure(group, name)
        f.status, f.note = NOT_APPLICABLE, reason
        return f

    def note(self, group: str, text: str) -> None:
        """Attach a sentence to a group (what ran, what was missing)."""
        self.notes.setdefault(group, []).append(text)

    def figures(self) -> list[Figure]:
        """Every figure, in the order they were first named."""
        return list(self._figures.values())

    @property
    def ok(self) -> bool:
        """True when no figure that ran counted a bad attempt or ran without attempts."""
        return all(f.bad == 0 and f.tried > 0 for f in self.figures() if f.status == RAN)

    def to_dict(self, **meta: Any) -> dict[str, Any]:
        """Return the run as JSON: groups in order, each with its figures and notes."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for f in self.figures():
            groups.setdefault(f.group, []).append(f.to_dict())
        for g in self.notes:
            groups.setdefault(g, [])
        return {"schema_name": SCHEMA_NAME, "version": VERSION, **meta, "ok": self.ok,
                "tried": sum(f.tried for f in self.figures()),
                "bad": sum(f.bad for f in self.figures()),
                "platform": f"{platform.system()} {platform.machine()}, "
                            f"{os.cpu_count()} CPUs, Python {platform.python_version()}",
                "groups": [{"group": g, "seconds": round(self.seconds.get(g, 0.0), 2),
                            "figures": figs, "notes": self.notes.get(g, [])}
                           for g, figs in groups.items()]}


def table(report: dict[str, Any]) -> str:
    """Return the report as a text table: one row per figure, N tried and N bad."""
    rows = [("group", "figure", "tried", "bad", "")]
    for g in report["groups"]:
        for f in g["figures"]:
            if f["status"] == NOT_APPLICABLE:
                rows.append((g["group"], f["figure"], "-", "-", "not applicable: " + f["note"]))
            else:
                rows.append((g["group"], f["figure"], str(f["tried"]), str(f["bad"]),
                             "; ".join(f.get("examples", [])[:2])))
    wg = max(len(r[0]) for r in rows)
    wf = max(len(r[1]) for r in rows)
    wt = max(len(r[2]) for r in rows)
    wb = max(len(r[3]) for r in rows)
    lines = [f"{r[0]:<{wg}}  {r[1]:<{wf}}  {r[2]:>{wt}}  {r[3]:>{wb}}  {r[4]}".rstrip()
             for r in rows]
    for g in report["groups"]:
        for n in g["notes"]:
            lines.append(f"note {g['group']}: {n}")
    verdict = "PASS" if report["ok"] else "FAIL"
    lines.append(f"{verdict}: {report['tried']} tried, {report['bad']} bad "
                 f"({report['size']} size, {report['seconds']:.1f} s, {report['platform']})")
    return "\n".join(lines)


def write(report: dict[str, Any], path: Path) -> Path:
    """Write the report to `path` (a folder: `acceptance.json` in it; parents created) by
    write-then-rename; return the path written. One that cannot be written is an
    `OutputUnwritable` naming it."""
    try:
        if path.is_dir():
            path = path / "acceptance.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".acceptance-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(report, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise OutputUnwritable(path, exc.strerror or str(exc)) from None
    return path
