"""YAML BOMBS: every YAML or JSON input is refused cleanly when it is hostile.

Hostile values of several shapes — alias bombs (nested lists, nested mappings, block
style, merge keys, one long string aliased many times), nesting 5,000 deep in block and
flow style, numbers that are not finite (`.nan`, `-.inf`, `1e400`), non-plain types
(`!!binary`, `!!set`, a Python object tag) and files past the size cap — are placed inside
an otherwise valid file and fed through the CLI to each loader: the extraction schema
(`extract --schema`), the company profile (`rank --profile`), the keys file
(`keys list --keys`, JSON) and the release contract (`release freeze`). Each must end as a
clean one-line error that names the file given, with no traceback, and with the Python
heap's peak (tracemalloc) under `MEMORY_BOUND`. The same files with a benign value are
accepted, so the figures cannot pass vacuously.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .harness import CliRun, Drivers, Size, Workspace, clean_error, run_cli
from .scoreboard import Scoreboard

GROUP = "YAML BOMBS"
F_REFUSED = "hostile YAML/JSON inputs: not refused cleanly (naming the file given)"
F_MEMORY = "hostile YAML/JSON inputs: peak memory over bound"
F_BENIGN = "benign inputs of the same files refused (the group is not vacuous)"
MEMORY_BOUND = 16 * 1024 * 1024  # a refusal costs 2 MiB at most (a capped read)
AS = ("--as", "acme:ana:bids")
WIDTH, LEVELS = 9, 6  # each bomb would expand to WIDTH**LEVELS leaves: bounded, were it read
DEEP = 5000
HUGE = 17 * 1024 * 1024  # past every loader's cap (the keys file's, 16 MiB, is the largest)


def _leveled(open_: str, close: str, item: Callable[[int, int], str]) -> str:
    levels = [f"&a0 {open_}{', '.join(item(0, j) for j in range(WIDTH))}{close}"]
    levels += [f"&a{i} {open_}{', '.join(item(i, j) for j in range(WIDTH))}{close}"
               for i in range(1, LEVELS)]
    return f"[{', '.join(levels)}]"


def yaml_payloads() -> dict[str, str]:
    """Return the hostile YAML values by name (each a block or flow node, unindented)."""
    block = "\n".join(f"a{i}: &a{i}\n" + "\n".join(
        f"  - {'lol' if i == 0 else f'*a{i - 1}'}" for _ in range(WIDTH))
        for i in range(LEVELS))
    return {
        "alias bomb, nested lists": _leveled("[", "]", lambda i, j: "lol" if i == 0
                                             else f"*a{i - 1}"),
        "alias bomb, nested mappings": _leveled("{", "}", lambda i, j: f"k{j}: lol" if i == 0
                                                else f"k{j}: *a{i - 1}"),
        "alias bomb, block style": block,
        "alias bomb, merge keys": "{base: &b {x: 1, y: 2}, one: {<<: *b, z: 3}, "
                                  "two: {<<: [*b, *b], w: 4}}",
        "alias bomb, one long string": f"[&s {'x' * 4000}, "
                                       + ", ".join(["*s"] * 2000) + "]",
        "nested 5,000 deep, block sequences": "- " * DEEP + "x",
        "nested 300 deep, block mappings": "\n".join(" " * i + f"k{i}:" for i in range(300))
                                           + " v",
        "nested 5,000 deep, flow sequences": "[" * DEEP + "]" * DEEP,
        "nested 5,000 deep, flow mappings": "{a: " * DEEP + "1" + "}" * DEEP,
        "not finite: .nan": "[1, .nan]",
        "not finite: -.inf": "{v: -.inf}",
        "not finite: 1e400": "[1e400]",
        "not finite: 1.0e+400": "[1.0e+400]",
        "not plain: !!binary": "!!binary aGVsbG8=",
        "not plain: !!set": "!!set {a, b}",
        "not plain: a Python object": "!!python/object/apply:os.getcwd []",
    }


def json_payloads() -> dict[str, str]:
    """Return the hostile JSON values by name (the keys file is JSON)."""
    return {
        "nested 5,000 deep, arrays": "[" * DEEP + "]" * DEEP,
        "nested 5,000 deep, objects": '{"a": ' * DEEP + "1" + "}" * DEEP,
        "not finite: NaN": "NaN",
        "not finite: -Infinity": "-Infinity",
        "not finite: 1e400": "1e400",
        "a YAML alias bomb in a JSON file": _leveled("[", "]", lambda i, j: "lol" if i == 0
                                                     else f"*a{i - 1}"),
    }


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


@dataclass(frozen=True)
class Entry:
    """One loader reached through the CLI: how a file holding `value` is written, the
    benign value it accepts, and the command that reads the file."""

    name: str
    file_name: str
    benign: str
    write: Callable[[str], str]
    argv: Callable[[Path, Path, Path], list[str]]  # (file, store, folder) -> CLI args
    json: bool = False


def _schema(value: str) -> str:
    return ("name: bombs\nfields:\n  - name: fee\n    type: money\n"
            "    synonyms: {en: [fee]}\n    value_patterns:\n"
            "      - pattern: 'zzqx-never-stated'\n        value:\n"
            + _indent(value, 10) + "\n")


def _profile(value: str) -> str:
    return "name: Bombs S.L.\nregions: [ES61]\nsector_codes:\n" + _indent(value, 2) + "\n"


def _contract(value: str) -> str:
    return ("name: bombs\nowner: ana\nprincipal: acme:ana:bids\noutsider: rival:eve:bids\n"
            "boundary: {tenants: [acme]}\npolicy_schema: acl-v1\n"
            "query_classes:\n  - name: topic\n    queries:\n"
            "      - {query: fee, relevant: [a.md]}\n"
            "service_levels: {freshness_seconds: 60, deletion_seconds: 5}\n"
            "budgets: {latency_p95_ms: 2000, cpu_ms_per_query: 1000}\n"
            "cohorts: {team: [acme:ana:bids]}\n"
            "rollback: {window_hours: 72, criteria: [any class below its threshold]}\n"
            "approvers:\n" + _indent(value, 2) + "\n")


def _keys(value: str) -> str:
    entry = {"key_id": "0123456789ab", "tenant": "acme", "user": "ana", "groups": [],
             "scopes": ["read"], "secret_sha256": "0" * 64,
             "created_at": "2026-01-01T00:00:00+00:00", "revoked_at": None}
    head = json.dumps({"schema_name": "pincite.keys", "version": 1, "keys": [entry]})
    return head[:-3] + ', "note": ' + value + "}]}"


ENTRIES = (
    Entry("extraction schema (extract --schema)", "schema.yaml", "[1, 2]", _schema,
          lambda f, s, d: ["extract", "--schema", str(f), "a.md", *AS, "--json"]),
    Entry("company profile (rank --profile)", "profile.yaml", "['909']", _profile,
          lambda f, s, d: ["rank", "--profile", str(f), *AS, "--json"]),
    Entry("release contract (release freeze)", "contract.yaml", "[lucia]", _contract,
          lambda f, s, d: ["release", "freeze", str(f), "--releases", str(d / "releases"),
                           *AS, "--json"]),
    Entry("keys file (keys list --keys)", "keys.json", '"a note"', _keys,
          lambda f, s, d: ["keys", "list", "--keys", str(f), "--json"], json=True),
)


def hostile_files(entry: Entry) -> dict[str, str]:
    """Return the hostile files of one loader by name: each payload in its place, and the
    benign file padded past the size cap."""
    payloads = json_payloads() if entry.json else yaml_payloads()
    out = {what: entry.write(value) for what, value in payloads.items()}
    pad = "\n" + " " * HUGE if entry.json else "\n#" + "x" * HUGE
    out["past the size cap"] = entry.write(entry.benign) + pad
    return out


def _measured(drivers: Drivers, store: Path, args: list[str]) -> tuple[CliRun, int]:
    """Return the run of one command and the peak of the Python heap while it ran."""
    tracemalloc.start()
    try:
        run = run_cli(drivers, store, *args)
        return run, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _store(ws: Workspace, drivers: Drivers) -> tuple[Path, Path]:
    """Return (a store holding one small document of tenant acme, its folder)."""
    folder = ws.folder("yaml-bombs")
    (folder / "a.md").write_text("# Fees\n\nThe annual fee is EUR 100.\n", "utf-8")
    store = folder / "store"
    run = run_cli(drivers, store, "ingest", str(folder / "a.md"), "--id", "a.md",
                  "--tenant", "acme", "--acl", "*", "--json")
    if run.returncode != 0:
        raise RuntimeError(f"YAML BOMBS could not ingest its document: {run.stderr[:200]}")
    return store, folder


def run_yaml_bombs(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                   seed: int) -> None:
    """Run the YAML BOMBS group into `board`."""
    store, folder = _store(ws, drivers)
    f = {n: board.figure(GROUP, n) for n in (F_REFUSED, F_MEMORY, F_BENIGN)}
    tried = 0
    for entry in ENTRIES:
        path = folder / entry.file_name
        path.write_text(entry.write(entry.benign), "utf-8")
        run = run_cli(drivers, store, *entry.argv(path, store, folder))  # also warms imports
        f[F_BENIGN].attempt(run.returncode == 0 and run.traceback is None,
                            f"{entry.name}: a benign file was refused: "
                            f"{run.stderr.strip()[:160]}")
        for what, text in hostile_files(entry).items():
            path.write_text(text, "utf-8")
            run, peak = _measured(drivers, store, entry.argv(path, store, folder))
            tried += 1
            f[F_REFUSED].attempt(clean_error(run) and path.name in run.stderr,
                                 f"{entry.name}, {what}: exit {run.returncode}, "
                                 f"{(run.traceback or run.stderr).strip()[-160:]}")
            f[F_MEMORY].attempt(peak <= MEMORY_BOUND,
                                f"{entry.name}, {what}: peak {peak / 2**20:.1f} MiB")
        path.unlink()
    board.note(GROUP, f"{tried} hostile files through {len(ENTRIES)} loaders "
               f"(alias bombs of {WIDTH}**{LEVELS} leaves, {DEEP}-deep nesting, non-finite "
               f"numbers, non-plain tags, {HUGE // 2**20} MiB files); peak heap bound "
               f"{MEMORY_BOUND // 2**20} MiB")
