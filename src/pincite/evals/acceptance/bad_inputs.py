"""HOSTILE (inputs): bad values through the CLI end in one clean error, never a traceback.

Each case is a `pincite` command line run in process against a store holding a document
and a review queue: numbers that are huge, `1e400`, `nan`, `inf` or negative where a
count, a lease, a grace time or a port is meant; provenance JSON with non-finite numbers,
boxes that are not boxes, offsets past 64 bits, 100,000 levels of nesting, bytes that are
not UTF-8 or a file over the JSON limit; names with a newline, a bidi override, a zero-width
or an empty part (tenants, principals, source ids, ACL entries); a read against a store
that does not exist or is a file; outputs that cannot be written. Every one must exit
non-zero with one `error: …` line (or the option parser's own usage error) and no
traceback. (`ingest` says what it is about to do on stderr first, so the error is the
last line there; `verify` of a well-formed entry that does not verify is an outcome, exit 1
with a `BAD` line, not an error.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...extract.schema import schema_from_dict
from ...model import Principal
from .builders import Spec, render
from .harness import CliRun, Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "HOSTILE"
F_TRACEBACK = "tracebacks on bad input through the CLI"
F_CLEAN = "bad inputs not refused with one clean typed error"
ANA = Principal.parse("acme:ana:legal")
AS = ("--as", str(ANA))
HUGE = "9" * 30
SCHEMA = {"name": "strict", "fields": [{"name": "fee", "type": "money", "synonyms": {
    "en": ["annual fee"]}, "tau_show": 0.99, "tau_flag": 0.99}]}


def _clean(run: CliRun) -> bool:
    """One `error:` line (pincite's, the last on stderr) or the option parser's usage
    error, a non-zero exit, and no traceback; or a verification outcome (exit 1, `BAD`)."""
    if run.traceback is not None or "Traceback (most recent call last)" in run.output:
        return False
    if run.returncode in (0, None):
        return False
    lines = run.stderr.strip().splitlines()
    if run.returncode == 1 and not lines and run.stdout.startswith("BAD "):
        return True
    ours = (bool(lines) and lines[-1].startswith("error: ")
            and sum(ln.startswith("error: ") for ln in lines) == 1)
    parser = run.returncode == 2 and any(ln.strip().startswith(("Error:", "│ Error"))
                                         or "Invalid value" in ln for ln in lines)
    return ours or parser


def _setup(ws: Workspace, drivers: Drivers) -> tuple[Path, Path, dict]:
    """A store with one document, a review queue and a citation; return it, a folder for
    input files and the citation."""
    store = ws.path("hostile-store")
    with drivers.open_library(store, create=True) as lib:
        spec = Spec("Terms", ("1.1 The annual fee is 45,000 EUR.", "1.2 Payment within 30 days."))
        lib.ingest_bytes(render(spec, "md"), source_id="doc.md", tenant="acme",
                         acl=["group:legal"], sandbox=False)
        lib.extract(ANA, schema_from_dict(SCHEMA), ["doc.md"])
        citation = lib.cite(ANA, "doc.md", "Payment within 30 days.").to_dict()
    return store, ws.folder("hostile-inputs"), citation


def _verify_inputs(folder: Path, c: dict) -> list[Path]:
    """Provenance files that are not usable provenance."""
    text = json.dumps(c)
    raws: dict[str, bytes | str] = {
        "bbox-int": json.dumps({**c, "bbox": 5}), "bbox-str": json.dumps({**c, "bbox": "abcd"}),
        "bbox-short": json.dumps({**c, "bbox": [1, 2]}),
        "bbox-dict": json.dumps({**c, "bbox": {"x0": 1}}),
        "bbox-nan": json.dumps({**c, "bbox": [1, 2, 3, "x"]}),
        "start-huge": json.dumps({**c, "char_start": 10**30}),
        "end-negative": json.dumps({**c, "char_end": -1}),
        "page-huge": json.dumps({**c, "page": 10**30}), "page-str": json.dumps({**c, "page": "x"}),
        "start-float": json.dumps({**c, "char_start": 1.5}),
        "start-1e400": text.replace(f'"char_start": {c["char_start"]}', '"char_start": 1e400'),
        "end-nan": text.replace(f'"char_end": {c["char_end"]}', '"char_end": NaN'),
        "end-inf": text.replace(f'"char_end": {c["char_end"]}', '"char_end": -Infinity'),
        "int-5000-digits": text.replace(f'"char_start": {c["char_start"]}',
                                        '"char_start": ' + "9" * 5000),
        "deep-list": "[" * 100_000 + "]" * 100_000, "deep-open": "[" * 100_000,
        "deep-object": '{"a":' * 100_000 + "1" + "}" * 100_000,
        "not-utf8": b"\xff\xfe" + text.encode("utf-16-le"), "empty": "", "not-json": "{oops",
        "a-string": json.dumps("just text"), "doc-id-bidi": json.dumps(
            {**c, "doc_id": "doc.md\u202e@r1"}),
    }
    out = []
    for name, raw in raws.items():
        p = folder / f"{name}.json"
        p.write_bytes(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
        out.append(p)
    big = folder / "over-64-mib.json"
    big.touch()
    os.truncate(big, 65 * 1024 * 1024)
    return out + [big]


def _cases(store: Path, folder: Path, citation: dict, ws: Workspace) -> list[tuple[Path, tuple[str, ...]]]:
    """Every bad command line, with the store it runs against."""
    doc = folder / "doc.md"
    doc.write_text("# Doc\n\n1.1 A clause.\n", "utf-8")
    schema = folder / "schema.json"
    schema.write_text(json.dumps(SCHEMA), "utf-8")
    a_file = folder / "a-file.txt"
    a_file.write_text("not a store", "utf-8")
    deep = folder / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n", "utf-8")
    missing = ws.path("no-such-store")
    c: list[tuple[str, ...]] = []
    for v in ("1e400", "nan", "inf", "-1", "1e300", "0"):
        c.append(("review", "next", "--lease", v, *AS))
    for v in (HUGE, "-5", "0"):
        c += [("review", "decide", v, "--decision", "accept", *AS), ("review", "release", v, *AS),
              ("review", "incidents", "--clear", v, *AS)]
    c += [("review", "settings", "--stamp-seconds", v, *AS) for v in ("nan", "inf", "-1")]
    c += [("review", "settings", "--audit-fraction", v, *AS) for v in ("nan", "2", "-0.5")]
    c += [("review", "settings", "--stamp-run", HUGE, *AS), ("fsck", "--grace", "1e400"),
          ("fsck", "--grace", "nan"), ("index", "prune", "--keep", HUGE),
          ("index", "prune", "--keep", "-1"), ("review", "serve", "--port", HUGE, *AS),
          ("review", "serve", "--port", "70000", *AS),
          ("search", "fee", "--k", "0", *AS), ("search", "fee", "--k", HUGE, *AS),
          ("search", "fee", "--k", "nan", *AS), ("search", "fee", "--as-of", "yesterday", *AS),
          ("search", "", *AS), ("search", "x" * 5000, *AS), ("ask", " ", *AS),
          ("show", "doc.md", "--chars", "5:1e400", *AS), ("show", "doc.md", "--chars", "a:b", *AS),
          ("review", "decide", "1", "--decision", "correct", "--value", "[" * 100_000, "--quote",
           "fee", *AS),
          ("review", "decide", "1", "--decision", "correct", "--value", "1e400", "--quote",
           "fee", *AS),
          ("cite", "doc.md", "--quotes", str(deep), *AS),
          ("cite", "doc.md", "--quotes", str(folder / "not-utf8.json"), *AS),
          ("index", "diff", "g000001", "g000001", "--queries", str(folder / "not-utf8.json"),
           *AS)]
    c += [("verify", str(p), *AS) for p in _verify_inputs(folder, citation)]
    for bad in ("ta\n", "t\u202eb", "t\u200bb", "", "../x", "t" * 300, "t\x00"):
        c.append(("ingest", str(doc), "--tenant", bad, "--no-publish"))
    for bad in ("acme:ana\n", "acme:an\u200ba", "acme", "acme:ana:g\u202e", "acme::legal",
                ":ana", "acme:ana:legal:x"):
        c.append(("sources", "--as", bad))
    for bad in ("x\u202egnp.md", "x\n.md", "x.md@r1", " x.md", "x\u200b.md", "x" * 2000):
        c.append(("ingest", str(doc), "--id", bad, "--tenant", "acme", "--no-publish"))
    for bad in ("group:\u200blegal", "user:", "role:admin", "group:legal\n", "*x"):
        c.append(("acl", "doc.md", "--set", bad, *AS))
    cases = [(store, x) for x in c]
    for read in (("sources",), ("show", "doc.md"), ("search", "fee"), ("ask", "fee?"),
                 ("fsck",), ("review", "list"), ("calibrate",), ("index", "list"),
                 ("cite", "doc.md", "--quote", "fee")):
        cases += [(missing, (*read, *AS)), (a_file, (*read, *AS))]
    for out in (a_file, Path("/proc/version/out"), a_file / "sub"):
        cases.append((store, ("extract", "--schema", str(schema), "doc.md", "--out", str(out), *AS)))
    return cases


def run_bad_inputs(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                   seed: int) -> None:
    """Run the CLI half of the HOSTILE group into `board`."""
    store, folder, citation = _setup(ws, drivers)
    tb, clean = board.figure(GROUP, F_TRACEBACK), board.figure(GROUP, F_CLEAN)
    cases = _cases(store, folder, citation, ws)
    for where, argv in cases:
        run = run_cli(drivers, where, *argv)
        shown = " ".join(a[:24] for a in argv[:5])
        tb.attempt(run.traceback is None and "Traceback (most recent" not in run.output,
                   f"{shown!r}: {(run.traceback or run.output)[-200:]!r}")
        clean.attempt(_clean(run), f"{shown!r} -> exit {run.returncode}: "
                      f"{run.stderr.strip()[:160]!r}")
    missing = [p for p, _a in cases if "no-such-store" in str(p)]
    if missing and missing[0].exists():
        clean.attempt(False, f"a read created the store {missing[0]}")
    board.note(GROUP, f"{len(cases)} bad command lines (numbers, JSON, names, store paths, "
               "outputs)")
