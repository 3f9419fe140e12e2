"""A scripted release on examples/calls, shared by the release tests (built once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]
CALLS = ROOT / "examples" / "calls"
CONTRACT = CALLS / "release-contract.yaml"


def ok(*args: str, store: Path | None) -> dict:
    r = invoke(*args, "--json", store=store)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _routes(store: Path) -> dict[str, str | None]:
    """Return the generation the canary routes each principal to (None: the published)."""
    import pincite
    from pincite.library import canary_generation

    with pincite.open(store) as lib:
        return {who: canary_generation(lib, str(store), None, pincite.Principal.parse(who))
                for who in ("demo:ana:bids", "demo:luis:bids", "demo:marta:bids")}


@pytest.fixture(scope="package")
def released(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A store with the example calls, released freeze → shadow → diff → canary → promote."""
    tmp = tmp_path_factory.mktemp("release")
    store = tmp / "store"
    r = invoke("ingest", str(CALLS / "docs"), "--tenant", "demo", "--acl", "group:bids",
               store=store)
    assert r.returncode == 0, r.stderr
    before = ok("release", "status", store=store)
    acc = invoke("eval", "acceptance", "--group", "DELETION", "--out", str(tmp / "acc.json"))
    assert acc.returncode == 0, acc.stderr
    steps = {"before": before, "freeze": ok("release", "freeze", str(CONTRACT), store=store)}
    assert invoke("index", "build", store=store).returncode == 0
    steps["shadow"] = ok("release", "shadow", "g000002", store=store)
    steps["diff"] = ok("release", "diff", store=store)
    steps["canary"] = ok("release", "canary", "g000002", "--cohort", "bid-team", store=store)
    steps["routes_in_canary"] = _routes(store)
    # what the cohort's and the others' searches and asks are served from, through the CLI
    steps["served_in_canary"] = {
        (cmd, who): ok(cmd, "contrato", "--as", who, store=store).get("generation")
        for cmd in ("search", "ask") for who in ("demo:ana:bids", "demo:marta:bids")}
    refused = invoke("release", "promote", "--approved-by", "bob", "--acceptance",
                     str(tmp / "acc.json"), store=store)
    steps["refused"] = refused
    steps["after_refusal"] = ok("index", "show", store=store)
    # the default: the acceptance suite's AUTHZ and DELETION groups run now, in process
    promoted = invoke("release", "promote", "--approved-by", "lucia", "--json", store=store)
    assert promoted.returncode == 0, promoted.stderr
    steps["promote"], steps["promote_stderr"] = json.loads(promoted.stdout), promoted.stderr
    steps["status"] = ok("release", "status", store=store)
    steps["routes_after_promote"] = _routes(store)
    return {"store": store, "tmp": tmp, **steps}
