"""The acceptance suite (`pincite eval acceptance`): the small run passes with the counts it
promises, and each group catches a leak planted in the code it watches — so the suite
cannot pass vacuously."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import typer.main

from pincite import faults
from pincite.cli import app
from pincite.cli.evaluation import acceptance_drivers
from pincite.errors import ParseFailure
from pincite.evals.acceptance import (
    GROUPS,
    SIZES,
    authz,
    bad_inputs,
    durability,
    erasure,
    hostile_files,
    interleavings,
    noninterference,
    origin,
    prompt_injection,
    retrieval_faults,
    revisions,
    size_limits,
    symlinks,
)
from pincite.evals.acceptance.harness import Workspace
from pincite.evals.acceptance.scoreboard import Scoreboard
from pincite.store import SQLiteStore
from tests.commands import invoke

# the least each figure of each group's small run must have tried (a figure not listed: at
# least 1)
MINIMUMS = {
    "AUTHZ": {authz.F_ITEMS: 2000, authz.F_CANDS: 10000, authz.F_CROSS: 10000,
              authz.F_CANARY: 2000, authz.F_A1: 1000, authz.F_REVOKE: 500},
    "NONINTERF": {noninterference.F_SAME: 24},
    "DELETION": {erasure.F_GONE: 40, erasure.F_BYTES: 18, erasure.F_BEFORE: 36},
    "REVISIONS": {revisions.F_STALE: 25},
    "RETRIEVAL": {retrieval_faults.F_FAULT: 32, retrieval_faults.F_UNDERFILL: 12},
    "INJECTION": {prompt_injection.F_CITED: 48, prompt_injection.F_HIDDEN: 20,
                  prompt_injection.F_OBEYED: 48},
    "CSRF/ORIGIN": {origin.F_STATE: 55, origin.F_HOST: 24},
    "SYMLINKS": {symlinks.F_FOLLOWED: 25},
    "LIMITS": {size_limits.F_READ: 5},
    "HOSTILE": {bad_inputs.F_TRACEBACK: 100, bad_inputs.F_CLEAN: 100,
                hostile_files.F_TYPED: 17},
    "DURABILITY": {durability.F_REACHED: len(faults.POINTS), durability.F_LOST: 40,
                   durability.F_TORN: 26},
    "REVIEW": {interleavings.F_DOUBLE: 270, interleavings.F_LOST: 270},
}
TINY = replace(SIZES["small"], name="tiny", tenants=2, queries=80, asks=15, cli_calls=6,
               hidden_docs=8, deletions=1, revise_cycles=1, payloads=4, bipia=None,
               kills_per_point=1, random_kills=0, review_ops="ND")


def _small_run(root: Path, *groups: str) -> tuple[Any, dict[str, Any], Path, Path]:
    out, user_store = root / "reports" / "acceptance.json", root / "my-store"
    selection = [arg for g in groups for arg in ("--group", g)]
    run = invoke("eval", "acceptance", "--size", "small", *selection, "--json", "--out",
                 str(out), env={"PINCITE_STORE": str(user_store)})
    return run, json.loads(run.stdout), out, user_store


# The small run, one group per test so that `pytest -n` spreads the groups over its workers;
# what only a run of every group adds is the next test's.
@pytest.mark.slow
@pytest.mark.parametrize("group", list(GROUPS))
def test_the_small_run_passes_with_every_figure_tried(group, tmp_path):
    run, report, out, user_store = _small_run(tmp_path, group)
    assert run.returncode == 0, run.stderr
    assert report["schema_name"] == "pincite.acceptance" and report["size"] == "small"
    assert report["ok"] is True and report["bad"] == 0
    assert json.loads(out.read_text("utf-8")) == report
    assert not user_store.exists()  # fresh temporary stores only, never the user's
    assert [g["group"] for g in report["groups"]] == [group]
    seen = set()
    for f in report["groups"][0]["figures"]:
        if f["status"] == "not_applicable":
            continue
        seen.add(f["figure"])
        assert f["bad"] == 0, (group, f)
        assert f["tried"] >= MINIMUMS.get(group, {}).get(f["figure"], 1), (group, f)
    assert set(MINIMUMS.get(group, {})) <= seen
    if group == "INJECTION":
        assert any("BIPIA not run" in n for n in report["groups"][0]["notes"])


def test_a_full_run_lists_every_group_then_the_cases_not_applicable(tmp_path, monkeypatch):
    # Each group's own work is the test above; here each is a stand-in that counts one clean
    # attempt and records how the suite called it.
    calls: list[tuple[str, str, dict[str, Any]]] = []

    def stand_in(name: str) -> Any:
        def run(board: Scoreboard, ws: Workspace, drivers: Any, size: Any, seed: int,
                **options: Any) -> None:
            calls.append((name, size.name, options))
            board.figure(name, f"{name} stand-in").attempt(True)
        return run

    for name in GROUPS:
        monkeypatch.setitem(GROUPS, name, stand_in(name))
    run, report, out, user_store = _small_run(tmp_path)
    assert run.returncode == 0, run.stderr
    assert report["ok"] is True and report["bad"] == 0 and report["groups_run"] == list(GROUPS)
    assert json.loads(out.read_text("utf-8")) == report
    assert not user_store.exists()
    assert [(name, size) for name, size, _ in calls] == [(name, "small") for name in GROUPS]
    assert {n: o for n, _, o in calls if o} == {"INJECTION": {"bipia": None},
                                                "HOSTILE": {"pdfs": None}}
    assert [g["group"] for g in report["groups"]] == [*GROUPS, "POISONING", "API"]
    assert {"WRITE AUTHZ", "DURABLE-RUN COPIES", "YAML BOMBS", "TOKEN DOS", "MCP SCOPES",
            "SESSIONS", "FAIRNESS", "FORMULA INJECTION"} <= set(GROUPS)  # issue 25's classes
    assert set(MINIMUMS) <= set(GROUPS)
    na = {f["figure"]: f["note"] for g in report["groups"] for f in g["figures"]
          if f["status"] == "not_applicable"}
    assert set(na) == {"PostgreSQL row-level security as a second wall (A8)",
                       "poisoned chunks winning silently (C6, I9)",
                       "schemathesis cases over the HTTP API (F)"}


def test_the_table_has_one_row_per_figure_and_the_report_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    run = invoke("eval", "acceptance", "--group", "limits", "--group", "SYMLINKS", "--out",
                 str(out))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["group", "figure", "tried", "bad"]
    rows = [ln for ln in lines if ln.startswith(("LIMITS ", "SYMLINKS "))]
    assert len(rows) == 6 and all(ln.split()[-1] == "0" for ln in rows)
    assert lines[-2].startswith("PASS: ") and lines[-1] == f"report: {out / 'acceptance.json'}"
    report = json.loads((out / "acceptance.json").read_text("utf-8"))
    assert report["groups_run"] == ["SYMLINKS", "LIMITS"] and report["ok"]


@pytest.mark.parametrize("args,message", [
    (("--size", "huge"), "unknown size 'huge'"),
    (("--group", "NOPE"), "unknown group(s) NOPE"),
    (("--seed", "-1"), "--seed must be an integer"),
    (("--bipia", "/nonexistent/bipia"), "--bipia /nonexistent/bipia is not a folder"),
    (("--pdfs", "/etc/passwd"), "--pdfs /etc/passwd is not a folder"),
    (("--out", "/etc/passwd/acceptance.json"), "a folder on its path is a file"),
])
def test_bad_options_are_refused_before_anything_runs(args, message):
    run = invoke("eval", "acceptance", *args)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: ") and message in run.stderr, run.stderr


def test_a_bad_figure_exits_1_and_says_fail(tmp_path, monkeypatch):
    from pincite.sources import acquire

    monkeypatch.setattr(acquire, "_link", _follow_every_link)
    run = invoke("eval", "acceptance", "--group", "SYMLINKS", "--out", str(tmp_path / "a.json"))
    assert run.returncode == 1
    assert "FAIL: " in run.stdout and json.loads((tmp_path / "a.json").read_text())["ok"] is False


# ---- planted leaks: each group must see them --------------------------------------------------


def _drivers() -> Any:
    return acceptance_drivers(typer.main.get_command(app))


def _run(group: Any, **options: Any) -> dict[str, tuple[int, int]]:
    board = Scoreboard()
    with Workspace() as ws:
        group(board, ws, _drivers(), TINY, 14, **options)
    return {f.name: (f.tried, f.bad) for f in board.figures()}


def _bad(figures: dict[str, tuple[int, int]], name: str) -> int:
    tried, bad = figures[name]
    assert tried > 0
    return bad


def test_the_tiny_runs_are_clean_without_a_plant():
    for group in (authz.run_authz, symlinks.run_symlinks, revisions.run_revisions):
        assert all(bad == 0 for _t, bad in _run(group).values()), group


def test_authz_sees_a_widened_universe(monkeypatch):
    from pincite.retrieve import search

    real = search.principal_entries
    monkeypatch.setattr(search, "principal_entries", lambda p: (
        *real(p), "group:legal", "group:ops", "group:hr", "user:ana", "user:bob"))
    got = _run(authz.run_authz)
    for name in (authz.F_ITEMS, authz.F_CANDS, authz.F_CANARY, authz.F_REVOKE):
        assert _bad(got, name) > 0, name
    assert _bad(got, authz.F_CROSS) == 0  # the plant stays inside the tenant


def test_authz_sees_show_cite_and_sources_without_their_acl_check(monkeypatch):
    from pincite.cite import resolve

    monkeypatch.setattr(resolve, "acl_allows", lambda acl, p: True)
    got = _run(authz.run_authz)
    assert _bad(got, authz.F_ITEMS) > 0 and _bad(got, authz.F_CANARY) > 0


def test_noninterference_sees_hidden_documents_in_the_universe(monkeypatch):
    from pincite.retrieve import search

    real = search.principal_entries
    monkeypatch.setattr(search, "principal_entries",
                        lambda p: (*real(p), "user:bob", "group:ops"))
    assert _bad(_run(noninterference.run_noninterference), noninterference.F_SAME) > 0


def test_deletion_sees_bytes_a_purge_left(monkeypatch):
    monkeypatch.setattr(SQLiteStore, "scrub_source", lambda self, *a, **k: 0)
    monkeypatch.setattr(SQLiteStore, "secure_vacuum", lambda self: None)
    got = _run(erasure.run_erasure)
    assert _bad(got, erasure.F_BYTES) > 0 and _bad(got, erasure.F_BEFORE) == 0


def test_revisions_see_a_superseded_citation_called_current(monkeypatch):
    from pincite.cite.verifier import Verifier

    real = Verifier.check
    monkeypatch.setattr(Verifier, "check", lambda self, c: "ok" if real(self, c) == "superseded"
                        else real(self, c))
    assert _bad(_run(revisions.run_revisions), revisions.F_STALE) > 0


def test_retrieval_sees_a_search_that_trusts_its_reranker(monkeypatch):
    from pincite.retrieve import search
    from pincite.retrieve.rerank import RerankOutcome

    def trusting(reranker, query, candidates, deadline):  # type: ignore[no-untyped-def]
        try:
            out = list(reranker(query, tuple(candidates)) or ())
        except Exception:  # noqa: BLE001
            out = [c.evidence_id for c in candidates]
        return RerankOutcome([x[0] if isinstance(x, tuple) else x for x in out], {}, None)

    monkeypatch.setattr(search, "run_reranker", trusting)
    got = _run(retrieval_faults.run_retrieval_faults)
    assert _bad(got, retrieval_faults.F_FAULT) + _bad(got, retrieval_faults.F_RAISED) > 0


def test_injection_sees_instructions_no_longer_detected(monkeypatch):
    from pincite.ask import answer, units
    from pincite.extract import validate

    monkeypatch.setattr(units, "instruction_spans", lambda text: [])
    monkeypatch.setattr(validate, "instruction_spans", lambda text: [])
    # `ask`'s tie rule is a second guard here: a payload naming the guarantee ties with the
    # clause that states it, and `ask` abstains. Broken ties (the older rule: the higher
    # cosine wins) let an undetected payload through, which the suite must see.
    monkeypatch.setattr(answer, "_tied", lambda ranked: False)
    got = _run(prompt_injection.run_injection)
    assert _bad(got, prompt_injection.F_CITED) > 0 and _bad(got, prompt_injection.F_OBEYED) > 0


def test_origin_sees_a_page_without_its_guard(monkeypatch):
    pytest.importorskip("fastapi")
    from pincite.service.guard import Guard

    for name in ("check_origin", "check_token", "check_host"):
        monkeypatch.setattr(Guard, name, lambda self, *a: None)
    got = _run(origin.run_origin)
    assert _bad(got, origin.F_STATE) > 0 and _bad(got, origin.F_HOST) > 0


def _follow_every_link(path: Path, source_id: str, root: Path, follow_links: bool) -> Any:
    from pincite.sources.acquire import Input

    target = Path(os.path.realpath(path))
    return Input(path, source_id, target if target.is_file() else None, None if
                 target.is_file() else "symlink", None)


def test_symlinks_sees_a_walk_that_follows_links_out(monkeypatch):
    from pincite.sources import acquire

    monkeypatch.setattr(acquire, "_link", _follow_every_link)
    got = _run(symlinks.run_symlinks)
    assert _bad(got, symlinks.F_FOLLOWED) > 0 and _bad(got, symlinks.F_BYTES) > 0


def test_limits_sees_a_file_read_past_its_limit(monkeypatch):
    from pincite.sources import ingest

    def greedy(path: Path, max_bytes: int) -> Any:
        with open(path, "rb") as fh:
            fh.read(4 * 1024 * 1024)  # reads well past the limit before refusing
        raise ParseFailure("over_limit", "read first, refused after")

    monkeypatch.setattr(ingest, "open_bounded", greedy)
    assert _bad(_run(size_limits.run_limits), size_limits.F_READ) > 0


def test_hostile_inputs_see_a_traceback(monkeypatch):
    import pincite.limits

    def crash(*a: Any, **k: Any) -> None:
        raise RuntimeError("planted")

    monkeypatch.setattr(pincite.limits, "check_number", crash)
    got = _run(bad_inputs.run_bad_inputs)
    assert _bad(got, bad_inputs.F_TRACEBACK) > 0 and _bad(got, bad_inputs.F_CLEAN) > 0


def test_review_sees_a_claim_that_ignores_live_leases(monkeypatch):
    real = SQLiteStore.claim_review_item

    def steal(self, tenant, reviewer, visible, *, now, lease_until, **kw):  # type: ignore[no-untyped-def]
        # every other claim looks expired to this claimant
        return real(self, tenant, reviewer, visible, now="9999" + now[4:],
                    lease_until=lease_until, **kw)

    monkeypatch.setattr(SQLiteStore, "claim_review_item", steal)
    assert _bad(_run(interleavings.run_interleavings), interleavings.F_DOUBLE) > 0


def test_durability_checks_see_a_lost_blob_and_a_torn_pointer(tmp_path):
    drivers = _drivers()
    with Workspace() as ws:
        store, _folder, acked = durability._template(ws, drivers)
        board = Scoreboard()
        f = {n: board.figure("D", n) for n in (durability.F_LOST, durability.F_DAMAGE,
                                               durability.F_TORN)}
        durability._check(drivers, store, acked, f, "clean")
        assert all(x.bad == 0 and x.tried > 0 for x in f.values())
        shutil.rmtree(store / "blobs")
        with drivers.open_library(store) as lib:
            lib.store.conn.execute("UPDATE generations SET state='retired'")
            lib.store.conn.commit()
        durability._check(drivers, store, acked, f, "planted")
        assert f[durability.F_LOST].bad > 0 and f[durability.F_DAMAGE].bad > 0
        assert f[durability.F_TORN].bad > 0
