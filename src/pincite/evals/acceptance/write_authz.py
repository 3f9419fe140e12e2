"""WRITE AUTHZ: no write changes a source its writer cannot read; an ACL changes only by its
owner or an `acl:admin`; a refused write answers exactly like one on a missing source.

Each tenant holds canary documents of three owners under three ACL shapes. Intruders —
a user of the tenant who cannot read them, a reader who is not the owner, the owner's name
in another tenant — try every write path through the CLI (the surface the HTTP routes and
MCP tools share through the facade): `ingest --id` with and without `--acl`, with the
same bytes and with others, a directory holding a file of that name, `ingest --async`,
`acl --set`, `delete` and `delete --purge`. After each attempt the source's row, its
revisions and the tenant's quarantine must be as they were (readers' attempts to revise
content are allowed and checked apart), and every refusal of an unreadable source must
read, word for word, as the same command on a missing id.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .canaries import TokenMint
from .harness import Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "WRITE AUTHZ"
F_CHANGED = "writes by a principal who cannot read the source that changed it"
F_ACL = "ACL changes by a reader who is neither the owner nor an acl:admin"
F_ORACLE = "refusals that differ from the reply for a missing source"
F_ALLOWED = "writes the rule allows that were refused (not vacuous)"

ACLS = (("user", "user:{owner}"), ("group", "group:board"), ("both", "group:board,user:{owner}"))


def _state(lib: Any, tenant: str, sid: str) -> tuple:
    """Return what an intruder's write must leave as it was."""
    src = lib.store.source(tenant, sid)
    revs = tuple((r.revision_id, r.sha256) for r in lib.store.revisions(tenant, sid))
    return src, revs, tuple(lib.store.quarantined(tenant))


def _attempts(evil: Path, folder: Path) -> list[tuple[str, Callable[[str], list[str]]]]:
    """Return the write commands an intruder tries, each as argv for a source id."""
    return [
        ("ingest --id --acl", lambda sid: ["ingest", str(evil), "--id", sid, "--acl",
                                           "user:mallory", "--no-publish"]),
        ("ingest --id", lambda sid: ["ingest", str(evil), "--id", sid, "--no-publish"]),
        ("ingest --id --acl *", lambda sid: ["ingest", str(evil), "--id", sid, "--acl", "*",
                                             "--no-publish"]),
        ("ingest folder", lambda sid: ["ingest", str(folder / sid), "--no-publish"]),
        ("ingest --async", lambda sid: ["ingest", str(evil), "--id", sid, "--async"]),
        ("acl --set", lambda sid: ["acl", sid, "--set", "user:mallory"]),
        ("delete", lambda sid: ["delete", sid]),
        ("delete --purge", lambda sid: ["delete", sid, "--purge"]),
    ]


def run_write_authz(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                    seed: int) -> None:
    """Run the WRITE AUTHZ group into `board`."""
    rng, mint = random.Random(seed), TokenMint(seed)
    f = {n: board.figure(GROUP, n) for n in (F_CHANGED, F_ACL, F_ORACLE, F_ALLOWED)}
    store, files = ws.path("write-authz-store"), ws.folder("write-authz-files")
    evil = files / "evil.txt"
    evil.write_text(f"# Memo\n\nPay the supplier {mint.new()} one euro.\n", "utf-8")
    folder = files / "drop"
    tenants = [f"t{i}" for i in range(max(2, size.tenants - 1))]
    docs: list[tuple[str, str, str]] = []  # (tenant, source id, owner)
    for t in tenants:
        for shape, acl in ACLS:
            owner = rng.choice(("olga", "omar"))
            sid = f"{t}-memo-{shape}.txt"  # ids unique across tenants
            path = files / t / sid
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# Memo {shape}\n\nBudget {mint.new()} is 450,000 euros.\n", "utf-8")
            run = run_cli(drivers, store, "ingest", str(path), "--tenant", t, "--as",
                          f"{t}:{owner}:board", "--no-publish", *[
                              x for a in acl.format(owner=owner).split(",") for x in ("--acl", a)])
            f[F_ALLOWED].attempt(run.returncode == 0, f"setup ingest: {run.stderr[:160]}")
            docs.append((t, sid, owner))
    for sid in {s for _t, s, _o in docs}:
        (folder / sid).parent.mkdir(parents=True, exist_ok=True)
        (folder / sid).write_bytes(evil.read_bytes())
    with drivers.open_library(store) as lib:
        for t, sid, owner in docs:
            other = tenants[(tenants.index(t) + 1) % len(tenants)]
            # in the tenant: a user who cannot read it (a group member where only the owner
            # may read); from another tenant, the owner's own name (acl, delete, purge: an
            # ingest there writes that tenant's own id space)
            inside = f"{t}:rita:board" if sid.endswith("-user.txt") else f"{t}:mallory"
            for who in (inside, f"{other}:{owner}:board"):
                for name, argv in _attempts(evil, folder):
                    is_ingest = name.startswith("ingest")
                    if is_ingest and not who.startswith(f"{t}:"):
                        continue
                    before = _state(lib, t, sid)
                    where = ["--tenant", t] if is_ingest else []
                    tried = run_cli(drivers, store, *argv(sid), *where, "--as", who)
                    f[F_CHANGED].attempt(_state(lib, t, sid) == before,
                                         f"{who} {name} {t}/{sid}: the source changed")
                    f[F_ORACLE].attempt(tried.returncode != 0 and "not found" in tried.stderr,
                                        f"{who} {name} {t}/{sid}: exit {tried.returncode} "
                                        f"{tried.stderr.strip()[:120]}")
                    if not is_ingest:
                        missing = run_cli(drivers, store, *argv("missing.txt"), "--as", who)
                        f[F_ORACLE].attempt(
                            tried.stderr.replace(sid, "missing.txt") == missing.stderr,
                            f"{who} {name}: {tried.stderr.strip()[:80]} vs "
                            f"{missing.stderr.strip()[:80]}")
            if sid.endswith("-user.txt") or lib.store.source(t, sid) is None:
                continue  # only the owner reads it, or an intruder's write deleted it
            # a reader who is not the owner: may revise, may not change the ACL
            reader, before_acl = f"{t}:rita:board", lib.store.source(t, sid).acl
            for cmd in (["ingest", str(evil), "--id", sid, "--acl", "*", "--tenant", t,
                         "--no-publish"], ["acl", sid, "--set", "*"]):
                run_cli(drivers, store, *cmd, "--as", reader)
                f[F_ACL].attempt(lib.store.source(t, sid).acl == before_acl,
                                 f"{reader} {cmd[0]} widened {t}/{sid}")
            revised = run_cli(drivers, store, "ingest", str(evil), "--id", sid, "--tenant", t,
                              "--as", reader, "--no-publish")
            f[F_ALLOWED].attempt(revised.returncode == 0 and len(lib.store.revisions(t, sid)) == 2,
                                 f"a reader's revision refused: {revised.stderr[:160]}")
    board.note(GROUP, f"{len(docs)} sources in {len(tenants)} tenants; 8 write paths tried by "
               "a user of the tenant who cannot read them and the owner's name in another "
               "tenant; a reader's ACL changes and revisions")
