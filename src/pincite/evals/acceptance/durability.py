"""DURABILITY: `kill -9` anywhere loses nothing acknowledged and tears nothing.

A store holds an acknowledged document and a published generation. For each named fault
point (`pincite.faults.POINTS`), a copy of it is handed to the `pincite` command run as its
own process with `PINCITE_FAULTS=<point>=kill`: an ingest (blob, commit and publish
points) or a delete (the tombstone point). The process must die by SIGKILL at the point.
Then `pincite fsck` (in this process) must report no damage; everything acknowledged — the document before, and every line the
killed command had printed — must be there with bytes that hash to its sha256; exactly one generation is published and it passes its integrity check; and
the same command run again succeeds. Also, a long ingest is killed at random moments.
`kill -9` is not power loss: unsynced writes the kernel still holds survive it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ... import faults
from ...errors import PinciteError
from ...index.generations import check_generation
from ...model import Principal
from .builders import Spec, render
from .harness import CLI_ENV, Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "DURABILITY"
F_REACHED = "fault points reached and killed by SIGKILL (not vacuous)"
F_LOST = "acknowledged data lost after kill -9"
F_DAMAGE = "integrity violations reported by fsck after kill -9"
F_TORN = "torn generations (not exactly one sound published generation)"
F_RETRY = "commands that fail when run again after kill -9"
ANA = Principal.parse("acme:ana:legal")
TIMEOUT = 120


def _doc(name: str, n: int) -> bytes:
    return render(Spec(f"Note {name}", (f"1.1 Delivery {n} of the invoices is due in {n} days.",
                                        f"1.2 Reference {name} for the payment terms.")), "md")


def _env(point: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLI_ENV}
    env.update({k: v for k, v in CLI_ENV.items() if v is not None})
    if point:
        env["PINCITE_FAULTS"] = f"{point}=kill"
    return env


def _command(point: str, folder: Path) -> list[str]:
    """The command that passes `point`: a delete for the tombstone, a build and publish for
    the generation points (b.md is committed, not yet indexed), else an ingest of b.md."""
    if point.startswith("delete."):
        return ["delete", "a.md", "--as", str(ANA), "--json"]
    if point.startswith("gen."):
        return ["index", "build", "--embedder", "hash", "--publish", "--json"]
    return ["ingest", str(folder / "b.md"), "--tenant", "acme", "--acl", "group:legal",
            "--embedder", "hash", "--as", str(ANA), "--json"]


def _spawn(drivers: Drivers, jobs: Sequence[tuple[Path, list[str], str | None]]
           ) -> list[subprocess.CompletedProcess[str]]:
    """Run `pincite --store S ARGV` processes (with a fault point, or none), two at a time."""
    def one(job: tuple[Path, list[str], str | None]) -> subprocess.CompletedProcess[str]:
        store, argv, point = job
        return subprocess.run([*drivers.process, "--store", str(store), *argv],
                              capture_output=True, text=True, env=_env(point),
                              timeout=TIMEOUT, check=False)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, jobs))


def _acked(out: str, into: dict[str, str]) -> dict[str, str]:
    """`into` with every ingest line printed in `out` (a line cut by a kill was never
    acknowledged)."""
    now = dict(into)
    for line in out.splitlines():
        try:
            got = json.loads(line)
        except ValueError:
            continue
        if isinstance(got, dict) and got.get("doc_sha256") and got.get("status") != "quarantined":
            now[got["source_id"]] = got["doc_sha256"]
    return now


def _template(ws: Workspace, drivers: Drivers) -> tuple[Path, Path, dict[str, str]]:
    """A store with documents a.md and c.md acknowledged and published; the files to
    ingest."""
    folder = ws.folder("durability-files")
    (folder / "a.md").write_bytes(_doc("alpha", 10))
    (folder / "b.md").write_bytes(_doc("beta", 20))
    (folder / "c.md").write_bytes(_doc("gamma", 30))
    for i in range(20):
        (folder / "many" / f"m{i:02d}.md").parent.mkdir(exist_ok=True)
        (folder / "many" / f"m{i:02d}.md").write_bytes(_doc(f"m{i}", i))
    store = ws.path("durability-template")
    run = run_cli(drivers, store, "ingest", str(folder / "a.md"), str(folder / "c.md"),
                  "--tenant", "acme", "--acl", "group:legal", "--embedder", "hash", "--as",
                  str(ANA), "--json")
    acked = {r["source_id"]: r["doc_sha256"] for r in run.json_lines() if r.get("doc_sha256")}
    return store, folder, acked


def _unindexed(ws: Workspace, drivers: Drivers, template: Path, folder: Path,
               acked: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """The template with b.md committed and not yet in a generation."""
    store = ws.path("durability-unindexed")
    shutil.copytree(template, store)
    run = run_cli(drivers, store, "ingest", str(folder / "b.md"), "--tenant", "acme", "--acl",
                  "group:legal", "--no-publish", "--as", str(ANA), "--json")
    return store, _acked(run.stdout, acked)


def _check(drivers: Drivers, store: Path, acked: dict[str, str], f: dict[str, Any],
           what: str, deleting: str | None = None) -> None:
    """After a kill: `pincite fsck` finds no damage; acknowledged data present; one sound
    published generation."""
    fsck = run_cli(drivers, store, "fsck", "--grace", "0", "--json")
    report = fsck.json() if fsck.traceback is None else None
    damage = list(report.get("damage", ())) if isinstance(report, dict) else [fsck.output[-160:]]
    f[F_DAMAGE].attempt(isinstance(report, dict) and report.get("ok") is True and not damage,
                        f"{what}: {damage[:2]}")
    with drivers.open_library(store) as lib:
        for sid, sha in acked.items():
            revs = [r for r in lib.store.revisions("acme", sid) if r.sha256 == sha]
            try:
                ok = bool(revs) and hashlib.sha256(lib.store.blobs.get("acme", sha)).hexdigest() == sha
            except OSError:  # the blob is gone
                ok = False
            gone = sid == deleting and lib.store.deleted_through("acme", sid) > 0
            f[F_LOST].attempt(ok or gone, f"{what}: acknowledged {sid} ({sha[:12]}) missing")
        cur = lib.pointer()[0]
        published = [g.gen_id for g in lib.generations() if g.state == "published"]
        problems = list(check_generation(lib.store, cur)) if cur else ["no published generation"]
        try:
            served = bool(lib.search(ANA, "invoices delivery").items) if cur else False
        except PinciteError as exc:
            served, problems = False, [*problems, exc.message]
        f[F_TORN].attempt(published == [cur] and not problems and served,
                          f"{what}: published {published}, pointer {cur}, {problems[:2]}")


def run_durability(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                   seed: int) -> None:
    """Run the DURABILITY group into `board`."""
    f = {n: board.figure(GROUP, n) for n in (F_REACHED, F_LOST, F_DAMAGE, F_TORN, F_RETRY)}
    template, folder, acked = _template(ws, drivers)
    unindexed, acked_b = _unindexed(ws, drivers, template, folder, acked)
    jobs, base = [], []
    for point in faults.POINTS:
        for k in range(size.kills_per_point):
            store = ws.path(f"kill-{point}-{k}")
            src, known = (unindexed, acked_b) if point.startswith("gen.") else (template, acked)
            shutil.copytree(src, store)
            jobs.append((store, _command(point, folder), point))
            base.append(known)
    killed_runs = _spawn(drivers, jobs)
    kills = 0
    for (store, _argv, point), proc, known in zip(jobs, killed_runs, base, strict=True):
        killed = proc.returncode == -signal.SIGKILL
        f[F_REACHED].attempt(killed, f"{point}: exit {proc.returncode} "
                             f"{proc.stderr.strip()[-160:]!r}")
        kills += killed
        deleting = "a.md" if point and point.startswith("delete.") else None
        _check(drivers, store, _acked(proc.stdout, known), f, f"kill at {point}", deleting)
    retries = _spawn(drivers, [(store, argv, None) for store, argv, _p in jobs])
    for (store, _argv, point), proc, killed_proc, known in zip(jobs, retries, killed_runs, base,
                                                              strict=True):
        f[F_RETRY].attempt(proc.returncode == 0, f"{point}: again -> {proc.returncode} "
                           f"{proc.stderr.strip()[-160:]!r}")
        deleting = "a.md" if point and point.startswith("delete.") else None
        _check(drivers, store, _acked(proc.stdout, _acked(killed_proc.stdout, known)), f,
               f"after the retry of {point}", deleting)
    kills += _random_kills(drivers, ws, template, folder, acked, size, seed, f)
    board.note(GROUP, f"{kills} kills: {len(faults.POINTS)} fault points x "
               f"{size.kills_per_point}, and {size.random_kills} at random moments of a "
               "20-file ingest; kill -9 is not power loss")


def _random_kills(drivers: Drivers, ws: Workspace, template: Path, folder: Path,
                  acked: dict[str, str], size: Size, seed: int, f: dict[str, Any]) -> int:
    """Kill a long ingest at random moments; what it printed before is acknowledged."""
    rng = random.Random(seed)
    kills = 0
    for k in range(size.random_kills):
        store = ws.path(f"random-kill-{k}")
        shutil.copytree(template, store)
        argv = ["ingest", str(folder / "many"), "--tenant", "acme", "--acl", "group:legal",
                "--embedder", "hash", "--as", str(ANA), "--json"]
        proc = subprocess.Popen([*drivers.process, "--store", str(store), *argv],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env=_env())
        time.sleep(rng.uniform(0.3, 1.5))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=TIMEOUT)
        kills += proc.returncode == -signal.SIGKILL
        now = _acked(out, acked)
        _check(drivers, store, now, f, f"random kill {k} after {len(now) - len(acked)} acks")
        again = run_cli(drivers, store, *argv)
        f[F_RETRY].attempt(again.returncode == 0, f"random kill {k}: again -> "
                           f"{again.returncode} {again.stderr.strip()[-160:]!r}")
    return kills
