"""The files `POST /fill` leaves behind (the filled workbook, audit.json, report.html, …),
kept by the service in a folder it owns: `<root>/<owner>/<fill id>/<file>`.

`owner` is a digest of the caller's tenant and user, so a fill belongs to the principal
that ran it, as a durable run does: another user's or another tenant's fill id is "not
found", exactly as an id that never existed. Fill ids are random (96 bits); no name a
caller gives becomes part of a path: a file is served only when it is listed in the fill's
own folder (a regular file, not a link). Beside each folder, `<fill id>.json` records the
documents the fill read, so the routes can stop serving a fill once one of them is no
longer visible to its owner (deleted, or its ACL changed).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import tempfile
from pathlib import Path

from ..errors import NotFound
from ..model import Principal

FILL_ID = re.compile(r"fill-[0-9a-f]{24}")
# media types of the artifacts a fill writes; anything else is served as bytes
MEDIA = {".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
         ".json": "application/json", ".jsonl": "application/x-ndjson",
         ".csv": "text/csv", ".html": "text/html"}


class Artifacts:
    """The service's folder of fill artifacts (see the module docstring)."""

    def __init__(self, root: Path | None) -> None:
        self._root = Path(root).resolve() if root is not None else None

    @property
    def root(self) -> Path:
        """Return the folder, made on first use (None given: a private temporary one)."""
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="pincite-artifacts-")).resolve()
        self._root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self._root

    def _owner(self, p: Principal) -> Path:
        digest = hashlib.sha256(f"{p.tenant}\0{p.subject}".encode()).hexdigest()[:32]
        return self.root / digest

    def new(self, p: Principal, docs: list[str]) -> tuple[str, Path]:
        """Return a fresh fill id of `p` reading `docs`, and its empty folder."""
        owner = self._owner(p)
        owner.mkdir(exist_ok=True, mode=0o700)
        fill_id = f"fill-{secrets.token_hex(12)}"
        folder = owner / fill_id
        folder.mkdir(mode=0o700)
        (owner / f"{fill_id}.json").write_text(json.dumps({"docs": docs}), "utf-8")
        return fill_id, folder

    def docs(self, p: Principal, fill_id: str) -> list[str]:
        """Return the documents one of `p`'s fills read."""
        folder = self.folder(p, fill_id)
        try:
            return list(json.loads((folder.parent / f"{fill_id}.json").read_text("utf-8"))["docs"])
        except (OSError, ValueError, KeyError, TypeError):
            raise NotFound("fill", fill_id) from None

    def folder(self, p: Principal, fill_id: str) -> Path:
        """Return the folder of one of `p`'s fills; NotFound for any other id."""
        if not isinstance(fill_id, str) or not FILL_ID.fullmatch(fill_id):
            raise NotFound("fill", str(fill_id)[:80])
        folder = self._owner(p) / fill_id
        if folder.is_symlink() or not folder.is_dir():
            raise NotFound("fill", fill_id)
        return folder

    def files(self, p: Principal, fill_id: str) -> list[str]:
        """Return the names of a fill's files, sorted."""
        folder = self.folder(p, fill_id)
        return sorted(f.name for f in folder.iterdir() if f.is_file() and not f.is_symlink())

    def file(self, p: Principal, fill_id: str, name: str) -> Path:
        """Return the path of one listed file of a fill; NotFound for any other name."""
        if name not in self.files(p, fill_id):
            raise NotFound("file", f"{fill_id}/{str(name)[:200]}")
        return self.folder(p, fill_id) / name

    def drop(self, p: Principal, fill_id: str) -> None:
        """Delete a fill's folder, every file in it and its record."""
        folder = self.folder(p, fill_id)
        shutil.rmtree(folder)
        (folder.parent / f"{fill_id}.json").unlink(missing_ok=True)

    def discard(self, folder: Path) -> None:
        """Delete a folder `new` made for a fill that failed, and its record."""
        if folder.parent.parent == self.root:
            shutil.rmtree(folder, ignore_errors=True)
            (folder.parent / f"{folder.name}.json").unlink(missing_ok=True)
