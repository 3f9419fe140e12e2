"""SYMLINKS: a directory ingest never follows a link out of the folder it was given.

A folder holds plain files and links: relative and absolute links to a secret file beside
it, to `/etc/passwd` and `/proc/self/environ`, to a folder outside, a chain of two links
that ends outside, a dangling link, a loop, the parent folder, and links that stay inside
(relative and absolute). It is ingested through the CLI without and with
`--follow-links`, and each outside link is also named as an argument. No link may be
followed without the flag; with it, only links that stay inside; and no byte of a target
outside the folder may reach the store.
"""

from __future__ import annotations

import os
from pathlib import Path

from .canaries import TokenMint
from .harness import Drivers, Size, Workspace, files_under, run_cli
from .scoreboard import Scoreboard

GROUP = "SYMLINKS"
F_FOLLOWED = "links followed out of the root (or followed at all without --follow-links)"
F_BYTES = "bytes of targets outside the root found in the store"
F_INSIDE = "links inside the root followed with --follow-links (not vacuous)"


def _layout(ws: Workspace, secret: str) -> tuple[Path, dict[str, bool]]:
    """Make the folder and its links; return it and {link: stays inside the root}."""
    base = ws.folder("links")
    (base / "outside").mkdir()
    (base / "outside" / "secret.md").write_text(f"# Secret\n\n{secret} payroll.\n", "utf-8")
    root = base / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# A\n\nPlain file inside the root.\n", "utf-8")
    (root / "sub" / "b.md").write_text("# B\n\nAnother plain file.\n", "utf-8")
    links = {
        "out.md": (Path("../outside/secret.md"), False),
        "abs-out.md": (base / "outside" / "secret.md", False),
        "passwd": (Path("/etc/passwd"), False),
        "environ": (Path("/proc/self/environ"), False),
        "outdir": (Path("../outside"), False),
        "hop.md": (Path("../outside/secret.md"), False),
        "chain.md": (Path("hop.md"), False),
        "dangling.md": (Path("nowhere.md"), False),
        "loop": (Path("."), True),
        "up": (Path(".."), False),
        "sub/in.md": (Path("../a.md"), True),
        "abs-in.md": (root / "a.md", True),
    }
    for name, (target, _inside) in links.items():
        os.symlink(target, root / name)
    return root, {name: inside for name, (_t, inside) in links.items()}


def run_symlinks(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                 seed: int) -> None:
    """Run the SYMLINKS group into `board`."""
    secret = TokenMint(seed).new()
    root, links = _layout(ws, secret)
    store = ws.path("symlinks-store")
    f = {n: board.figure(GROUP, n) for n in (F_FOLLOWED, F_BYTES, F_INSIDE)}
    file_links = {n for n in links if n not in ("outdir", "loop", "up")}
    for follow in (False, True):
        flag = ["--follow-links"] if follow else []
        run = run_cli(drivers, store, "ingest", str(root), "--tenant", "acme", "--acl", "*",
                      "--no-publish", "--json", *flag)
        got = {o.get("source_id"): o for o in run.json_lines() if isinstance(o, dict)}
        f[F_FOLLOWED].attempt(run.returncode == 0 and run.traceback is None,
                              f"ingest {'--follow-links ' if follow else ''}failed: "
                              f"{run.stderr.strip()[:160]}")
        for name in sorted(file_links):
            r = got.get(name, {})
            took = r.get("status") in ("new", "unchanged", "revised")
            if follow and links[name]:
                f[F_INSIDE].attempt(took, f"{name}: {r.get('status')} {r.get('reason')}")
            else:
                f[F_FOLLOWED].attempt(not took and r.get("reason") == "symlink",
                                      f"{'--follow-links ' if follow else ''}{name}: "
                                      f"{r.get('status')} {r.get('reason')}")
        leaked = [k for k in got if k and (k.startswith(("outdir/", "up/")))]
        f[F_FOLLOWED].attempt(not leaked, f"walked into a linked folder: {leaked[:3]}")
    for name in sorted(n for n in file_links if not links[n]):
        run = run_cli(drivers, store, "ingest", str(root / name), "--tenant", "acme", "--acl",
                      "*", "--no-publish", "--json", "--follow-links")
        r = (run.json_lines() or [{}])[0]
        f[F_FOLLOWED].attempt(r.get("status") == "quarantined" and r.get("reason") == "symlink",
                              f"argument {name}: {r.get('status')} {r.get('reason')} "
                              f"{run.stderr.strip()[:120]}")
    data = b"".join(p.read_bytes() for p in files_under(store))
    outside = {"secret token": secret.encode(), "secret token utf-16": secret.encode("utf-16-le")}
    if Path("/etc/passwd").is_file():
        outside["/etc/passwd"] = Path("/etc/passwd").read_bytes()[:64]
    for what, needle in outside.items():
        f[F_BYTES].attempt(needle not in data, f"{what} is in the store")
    board.note(GROUP, f"{len(links)} links ({sum(links.values())} inside the root), ingested "
               "through the CLI without and with --follow-links, and outside ones as arguments")
