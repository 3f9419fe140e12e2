"""`pincite release …`: a scripted release on examples/calls, the record, requalification,
and what the steps refuse."""

from __future__ import annotations

import json
import shutil

import pytest

from pincite.errors import UsageError
from pincite.index import segment
from pincite.release.record import REQUIRED_ITEMS, releases_dir
from tests.commands import invoke
from tests.release.conftest import CONTRACT, ok


def test_no_release_yet_is_a_state(released):
    assert released["before"]["state"] == "no_release"
    assert released["before"]["published_generation"] == "g000001"
    assert released["before"]["release"] is None


def test_the_scripted_release_holds_every_required_item_measured(released):
    rec = released["promote"]
    assert rec["state"] == "promoted" and rec["candidate"] == "g000002"
    assert [s["step"] for s in rec["steps"]] == ["shadow", "diff", "canary", "promote_refused",
                                                 "promote"]
    assert rec["required_items"] == {item: True for item in REQUIRED_ITEMS}
    assert rec["rollback_target"] == "g000001" and rec["approval"]["approved_by"] == "lucia"
    assert rec["owner"] == "ana" and rec["manifest"]["gen_id"] == "g000002"
    ev = rec["evaluation"]
    assert set(ev["classes"]) == {"identifier", "topic", "requirement"}
    assert all(c["passes"] for c in ev["classes"].values())
    assert ev["authorization"]["unauthorized_items"] == 0
    assert ev["authorization"]["outsider_items"] == 0 and ev["authorization"]["queries"] == 11
    assert rec["security"]["ok"] and rec["security"]["bad"] == 0
    assert rec["security"]["groups"] == ["AUTHZ", "DELETION"]
    assert {f["group"] for f in rec["security"]["figures"]} == {"AUTHZ", "DELETION"}
    assert rec["security"]["tried"] > 10_000
    slas = rec["slas"]
    assert slas["freshness_found"] and slas["deletion_absent"] and slas["passes"]
    assert 0 < slas["freshness_seconds"] <= 60 and 0 <= slas["deletion_seconds"] <= 5
    assert rec["canary"]["decision"] == "pass"
    assert [p["principal"] for p in rec["canary"]["principals"]] == ["demo:ana:bids",
                                                                     "demo:luis:bids"]
    assert set(rec["diff"]["per_class"]) == set(ev["classes"])
    assert rec["diff"]["baseline"] == "g000001"
    assert set(rec["qualified"]) == {"parser", "segmenter", "embedding_space", "analyzer",
                                     "index_params", "reranker", "policy_schema",
                                     "corpus_boundary"}
    folder = released["store"] / "releases" / "R0001"
    assert sorted(p.name for p in folder.glob("record-v*.json")) == [
        f"record-v000{i}.json" for i in range(1, 6)]
    assert "promoted" in (folder / "record.html").read_text("utf-8")
    assert released["status"]["state"] == "qualified" and released["status"]["reasons"] == []


def test_the_canary_routes_its_cohort_only_until_promotion(released):
    assert released["routes_in_canary"] == {"demo:ana:bids": "g000002",
                                            "demo:luis:bids": "g000002",
                                            "demo:marta:bids": None}
    assert set(released["routes_after_promote"].values()) == {None}


def test_the_cli_serves_the_cohort_from_the_canary_and_the_others_from_the_published(released):
    assert released["served_in_canary"] == {
        ("search", "demo:ana:bids"): "g000002", ("search", "demo:marta:bids"): "g000001",
        ("ask", "demo:ana:bids"): "g000002", ("ask", "demo:marta:bids"): "g000001"}


def test_a_refused_promotion_switches_nothing(released):
    r = released["refused"]
    assert r.returncode == 1
    assert "'bob' is not an approver of the contract (lucia)" in r.stderr
    assert released["after_refusal"]["gen_id"] == "g000001"


def test_a_segmenter_change_marks_the_release_requalify(released, monkeypatch):
    monkeypatch.setattr(segment, "POLICY", "seg-2")  # this pincite now segments otherwise
    out = ok("release", "status", store=released["store"])
    assert out["state"] == "requalify"
    assert out["reasons"] == ["segmenter: qualified 'seg-1', this pincite builds 'seg-2'"]
    text = invoke("release", "status", store=released["store"])
    assert "requalify — release R0001 (g000002)" in text.stdout and "seg-2" in text.stdout


def test_a_corpus_boundary_change_marks_the_release_requalify(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    wider = tmp_path / "contract.yaml"
    wider.write_text(CONTRACT.read_text("utf-8").replace("source_prefixes: [es-, en-]",
                                                         "source_prefixes: [es-, en-, fr-]"))
    ok("release", "freeze", str(wider), store=store)
    out = ok("release", "status", store=store)
    assert out["state"] == "requalify"
    assert [r.split(":")[0] for r in out["reasons"]] == ["corpus_boundary"]


def test_rollback_returns_to_the_last_known_good_generation(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    rec = ok("release", "rollback", "--reason", "drill", store=store)
    assert rec["state"] == "rolled_back" and rec["rolled_back"]["to"] == "g000001"
    assert ok("index", "show", store=store)["gen_id"] == "g000001"
    out = ok("release", "status", store=store)
    assert out["state"] == "rolled_back" and out["reasons"] == ["rolled back to g000001: drill"]


def test_drift_sample_logs_digests_not_queries(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    line = ok("release", "sample", "--per-class", "2", store=store)
    assert line["drifted"] == [] and line["documents_by_stratum"] == {"text/html": 6}
    log = (store / "releases" / "drift.jsonl").read_text("utf-8")
    assert "TOL-2026-118" not in log and "alumbrado" not in log
    assert all(len(d) == 12 for ds in line["queries"].values() for d in ds)


@pytest.mark.parametrize(("edit", "message"), [
    (("window_hours: 72", "window_hours: .nan"), "rollback.window_hours must be a finite"),
    (("latency_p95_ms: 2000", "latency_p95_ms: -1"), "budgets.latency_p95_ms"),
    (("min_recall_at_k: 0.5", "min_recall_at_k: 1.5"), "min_recall_at_k"),
    (("outsider: rival:eve:bids", "outsider: demo:eve:bids"), "outside the boundary"),
    (("owner: ana", "owner: ana\nlicence: free"), "licence"),
])
def test_a_bad_contract_is_refused(released, tmp_path, edit, message):
    bad = tmp_path / "contract.yaml"
    bad.write_text(CONTRACT.read_text("utf-8").replace(*edit), "utf-8")
    r = invoke("release", "freeze", str(bad), store=released["store"])
    assert r.returncode == 2 and message in r.stderr, r.stderr
    r = invoke("release", "freeze", str(tmp_path), store=released["store"])
    assert r.returncode == 2 and "is not a file" in r.stderr


def test_steps_refuse_what_the_contract_does_not_name(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    assert invoke("index", "build", store=store).returncode == 0
    ok("release", "shadow", "g000003", store=store)
    r = invoke("release", "canary", "g000003", "--cohort", "everyone", store=store)
    assert r.returncode == 2 and "cohort 'everyone' is not in the contract" in r.stderr
    r = invoke("release", "canary", "g000001", "--cohort", "bid-team", store=store)
    assert r.returncode == 2 and "is for g000003, not g000001" in r.stderr
    r = invoke("release", "shadow", "g999999", store=store)
    assert r.returncode == 1 and "g999999" in r.stderr
    bad = tmp_path / "acc.json"
    bad.write_text(json.dumps({"schema_name": "something-else"}), "utf-8")
    r = invoke("release", "promote", "--approved-by", "lucia", "--acceptance", str(bad),
               store=store)
    assert r.returncode == 2 and "is not a report of `pincite eval acceptance`" in r.stderr
    r = invoke("release", "sample", "--per-class", "0", store=store)
    assert r.returncode == 2 and "--per-class must be an integer from 1 to 1000" in r.stderr


def test_a_url_store_needs_a_releases_folder(tmp_path):
    with pytest.raises(UsageError, match="give the folder of release records with --releases"):
        releases_dir("postgresql://app@localhost/pincite", None)
    assert releases_dir("postgresql://app@localhost/pincite", tmp_path) == tmp_path
    assert releases_dir(str(tmp_path / "s"), None) == tmp_path / "s" / "releases"


def test_status_works_on_a_postgresql_store(pg_url, tmp_path):
    out = ok("release", "status", "--store", pg_url, "--releases", str(tmp_path), store=None)
    assert out["state"] == "no_release" and out["release"] is None
    r = invoke("release", "status", "--store", pg_url)
    assert r.returncode == 2 and "give the folder of release records with --releases" in r.stderr


def test_status_warns_when_the_rollback_target_was_pruned(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    assert "warnings" not in ok("release", "status", store=store)
    for args in (("build",), ("build",), ("publish", "g000003"), ("publish", "g000004"),
                 ("publish", "g000002"), ("prune", "--keep", "1")):
        r = invoke("index", *args, store=store)  # g000001 is neither current nor previous
        assert r.returncode == 0, r.stderr
    out = ok("release", "status", store=store)
    assert out["state"] == "qualified"
    assert out["warnings"][0].startswith("the rollback target g000001 is no longer kept")


def test_a_contract_with_yaml_aliases_is_refused(released, tmp_path):
    bad = tmp_path / "contract.yaml"
    bad.write_text(CONTRACT.read_text("utf-8").replace("approvers: [lucia]",
                                                       "approvers: &who [lucia]\nx: *who"))
    r = invoke("release", "freeze", str(bad), store=released["store"])
    assert r.returncode == 2 and "YAML aliases (*name) are refused" in r.stderr
