"""`pincite rank`: cited score parts, unknowns never met, the label, and what it refuses."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import pincite
from pincite.errors import InvalidProfile
from pincite.evals.fit_ranking import ndcg, run_rank_eval
from pincite.model import Citation
from pincite.rank.fit import LABEL
from pincite.rank.profile import load_profile
from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]
CALLS = ROOT / "examples" / "calls"
CONSTRUCTORA = CALLS / "profile-constructora.yaml"
SERVICIOS = CALLS / "profile-servicios.yaml"


@pytest.fixture(scope="module")
def calls_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with the example calls (tenant acme, group bids) and one call of another
    tenant and one of another group, both with requirements the profile meets."""
    store = tmp_path_factory.mktemp("calls") / "store"
    rival = tmp_path_factory.mktemp("rival") / "es-rival-secreto"
    rival.mkdir()
    text = (CALLS / "docs" / "es-pavimentacion-toledo" / "anuncio.html").read_text("utf-8")
    (rival / "anuncio.html").write_text(text.replace("TOL-2026-118", "RIVAL-77"), "utf-8")
    board = tmp_path_factory.mktemp("board") / "es-consejo-reservado"
    board.mkdir()
    (board / "anuncio.html").write_text(text.replace("TOL-2026-118", "BOARD-12"), "utf-8")
    with pincite.open(store, create=True) as lib:
        lib.ingest([CALLS / "docs"], tenant="acme", acl=["group:bids"])
        lib.ingest([rival.parent], tenant="rival", acl=["group:bids"])
        lib.ingest([board.parent], tenant="acme", acl=["group:board"])
    return store


def _rank(store: Path, profile: Path, who: str = "acme:ana:bids") -> dict:
    r = invoke("rank", "--profile", str(profile), "--as", who, "--json", store=store)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_result_has_cited_parts_the_label_and_an_official_record(calls_store):
    out = _rank(calls_store, CONSTRUCTORA)
    assert out["label"] == "prioritisation signal — not an eligibility decision" == LABEL
    assert [r["call"] for r in out["results"]] == [
        "es-pavimentacion-toledo", "en-roads-leeds", "es-limpieza-sevilla",
        "en-school-catering", "es-alumbrado-valencia", "es-mantenimiento-madrid"]
    for r in out["results"]:
        assert r["label"] == LABEL
        assert r["official_record"]["url"].startswith("https://")
        assert r["official_record"]["citation"]["quote_verified"] is True
        assert r["score"] == sum(p["points"] for p in r["parts"])
        assert isinstance(r["score"], int)  # points, never a probability
        assert [p["part"] for p in r["parts"]] == [
            "sector", "region", "classification", "turnover", "similar_contracts", "deadline"]
        for p in r["parts"]:
            if p["status"] in ("met", "not_met"):  # a comparison always cites its clause
                assert p["citation"]["quote_verified"] is True, (r["call"], p)
    top = out["results"][0]
    assert top["score"] == top["max_score"] == 10
    assert top["parts"][2]["required"] == {"group": "G", "subgroup": 6, "category": 3}
    assert top["parts"][2]["citation"]["quote"] == \
        "Clasificación empresarial: grupo G, subgrupo 6, categoría 3."


def test_every_score_part_citation_verifies_again(calls_store):
    """Each cited entry, re-read from the JSON, verifies against the stored bytes."""
    entries = []
    for profile in (CONSTRUCTORA, SERVICIOS):
        for r in _rank(calls_store, profile)["results"]:
            entries += [c for p in r["parts"] for c in p["citations"]]
    assert len(entries) >= 50
    with pincite.open(calls_store) as lib:
        checked = lib.verify(pincite.Principal.parse("acme:ana:bids"),
                             [Citation.from_dict(c) for c in entries])
    assert [c.quote_verified for c in checked] == [True] * len(entries)


def test_an_unstated_requirement_is_unknown_never_met(calls_store):
    by = {r["call"]: {p["part"]: p for p in r["parts"]}
          for r in _rank(calls_store, CONSTRUCTORA)["results"]}
    catering_turnover = by["en-school-catering"]["turnover"]
    assert catering_turnover["status"] == "unknown" and catering_turnover["points"] == 0
    assert catering_turnover["citation"] is None
    assert "not stated in the documents" in catering_turnover["detail"]
    assert by["es-alumbrado-valencia"]["similar_contracts"]["status"] == "unknown"
    assert by["es-limpieza-sevilla"]["classification"]["status"] == "unknown"
    leeds = by["en-roads-leeds"]["turnover"]  # stated in GBP, held in EUR: not converted
    assert leeds["status"] == "unknown" and leeds["citation"]["quote_verified"] is True
    assert by["es-mantenimiento-madrid"]["deadline"]["status"] == "not_met"
    assert by["es-mantenimiento-madrid"]["deadline"]["required"]["days_left"] == -21
    assert by["es-alumbrado-valencia"]["classification"]["status"] == "not_met"


def test_another_tenants_calls_are_never_ranked(calls_store):
    ours = _rank(calls_store, CONSTRUCTORA)
    assert "es-rival-secreto" not in {r["call"] for r in ours["results"]}
    assert "RIVAL-77" not in json.dumps(ours) and "BOARD-12" not in json.dumps(ours)
    theirs = _rank(calls_store, CONSTRUCTORA, who="rival:eve:bids")
    assert [r["call"] for r in theirs["results"]] == ["es-rival-secreto"]
    nobody = _rank(calls_store, CONSTRUCTORA, who="acme:bob:catering")  # not in group bids
    assert nobody["results"] == []


@pytest.mark.parametrize(("body", "message"), [
    ("name: X\nturnover: {amount: .nan, currency: EUR}\n", "turnover.amount must be a finite"),
    ("name: X\nturnover: {amount: .inf, currency: EUR}\n", "turnover.amount must be a finite"),
    ("name: X\nsimilar_contracts: -1\n", "similar_contracts"),
    ("name: X\nturnover: {amount: 1e20, currency: EUR}\n", "turnover.amount"),
    ("name: X\nclassifications: [{group: G, subgroup: 6, category: 9}]\n", "category"),
    ("name: X\nmin_days_to_prepare: 100000\n", "min_days_to_prepare"),
    ("name: X\nsector_codes: [45233252]\n", "sector_codes"),
    ("name: X\nregions: [spain]\n", "regions"),
    ("name: X\neligible: true\n", "eligible"),
    ("- a list\n", "must be a mapping"),
])
def test_a_bad_profile_is_refused_naming_the_key(tmp_path, calls_store, body, message):
    bad = tmp_path / "profile-bad.yaml"
    bad.write_text(body, "utf-8")
    with pytest.raises(InvalidProfile) as exc:
        load_profile(bad)
    assert message in exc.value.message
    r = invoke("rank", "--profile", str(bad), "--as", "acme:ana:bids", store=calls_store)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: profile-bad.yaml")


def test_a_profile_path_that_is_not_a_file_is_refused(tmp_path, calls_store):
    big = tmp_path / "profile-big.yaml"
    big.write_text("name: X\n" + "#" * 70_000, "utf-8")
    deep = tmp_path / "profile-deep.yaml"
    deep.write_text("name: X\nextra: " + "[" * 30_000 + "]" * 30_000 + "\n", "utf-8")
    latin = tmp_path / "profile-latin1.yaml"
    latin.write_bytes("name: Construcción\n".encode("latin-1"))
    for path, message in ((tmp_path, "is not a file"), (tmp_path / "none.yaml", "is not a file"),
                          (big, "past the 65536-byte limit"), (deep, "nests too deeply"),
                          (latin, "is not UTF-8 YAML")):
        r = invoke("rank", "--profile", str(path), "--as", "acme:ana:bids", store=calls_store)
        assert r.returncode == 2, r.stderr
        assert message in r.stderr


def test_eval_rank_prints_ndcg_at_5():
    result = run_rank_eval(CALLS)
    assert result["citations_unverified"] == 0
    assert result["parts"] == 72 and result["parts_unknown"] == 14
    assert result["profiles"]["profile-constructora.yaml"]["ndcg@5"] == 0.925
    assert result["profiles"]["profile-servicios.yaml"]["ndcg@5"] == 0.9832
    assert result["ndcg@5"] == 0.9541
    r = invoke("eval", "rank")
    assert r.returncode == 0, r.stderr
    assert "mean nDCG@5 0.9541; 72 score parts, 14 unknown, 0 with a citation" in r.stdout
    r = invoke("eval", "rank", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ndcg@5"] == 0.9541
    r = invoke("eval", "rank", "--data", str(CALLS / "docs"))
    assert r.returncode == 2 and "has no relevance.yaml" in r.stderr


def test_ndcg_agrees_with_trec_eval_ndcg_cut():
    ir = pytest.importorskip("ir_measures")
    grades = {"a": 3, "b": 2, "c": 1, "d": 0, "e": 0, "f": 1}
    ranked = ["d", "a", "c", "e", "b", "f"]
    run = {"q": {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}}
    want = ir.calc_aggregate([ir.nDCG @ 5], {"q": grades}, run)[ir.nDCG @ 5]
    assert math.isclose(ndcg(ranked, grades), want, rel_tol=1e-9)
    assert ndcg(ranked, {"x": 0}) == 0.0


def test_a_yaml_alias_bomb_is_refused_before_it_is_walked(tmp_path, calls_store):
    lines = ["a0: &a0 [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, "
              f"*a{i-1}, *a{i-1}]" for i in range(1, 12)]
    bomb = tmp_path / "profile-bomb.yaml"
    bomb.write_text("name: X\nextra:\n" + "\n".join("  " + x for x in lines) + "\n", "utf-8")
    r = invoke("rank", "--profile", str(bomb), "--as", "acme:ana:bids", store=calls_store)
    assert r.returncode == 2
    assert "YAML aliases (*name) are refused" in r.stderr


def _toledo_records(store: Path) -> list:
    from pincite.evals.fit_ranking import default_tender_schema
    from pincite.extract.run import run_extraction
    from pincite.rank.fit import fit_schema

    with pincite.open(store) as lib:
        run = run_extraction(lib.store, pincite.Principal.parse("acme:ana:bids"),
                             fit_schema(default_tender_schema()),
                             ["es-pavimentacion-toledo/anuncio.html"], route=False,
                             persist=False)
    return list(run.records)


@pytest.mark.parametrize("mutation", ["conflicting", "unverified", "review", "absent"])
def test_a_requirement_that_is_not_usable_evidence_is_unknown_never_met(calls_store, mutation):
    from dataclasses import replace
    from datetime import date

    from pincite.rank.fit import fit_call

    records = _toledo_records(calls_store)
    prof = load_profile(CONSTRUCTORA)
    today = date(2026, 12, 1)
    assert {p["status"] for p in fit_call(records, prof, today)} == {"met"}
    changed = []
    for r in records:
        if mutation == "conflicting":
            r = r.with_(status="conflicting")
        elif mutation == "unverified":
            r = r.with_(provenance=tuple(replace(c, quote_verified=False) for c in r.provenance))
        elif mutation == "review":
            r = r.with_(outcome="review", reason="low_confidence")
        else:
            r = r.with_(status="absent", value=None, provenance=())
        changed.append(r)
    parts = fit_call(changed, prof, today)
    assert [(p["status"], p["points"]) for p in parts] == [("unknown", 0)] * 6
    if mutation != "absent":  # what was stated stays cited, as evidence a person can read
        assert all(p["citation"] is not None for p in parts)


def test_a_schema_without_the_fields_the_ranking_reads_is_refused(tmp_path, calls_store):
    r = invoke("rank", "--profile", str(CONSTRUCTORA), "--schema", str(tmp_path),
               "--as", "acme:ana:bids", store=calls_store)
    assert r.returncode == 2 and "cannot read the tender schema" in r.stderr
    other = tmp_path / "schema.yaml"
    other.write_text((ROOT / "examples" / "contracts" / "cuad.yaml").read_text("utf-8"))
    r = invoke("rank", "--profile", str(CONSTRUCTORA), "--schema", str(other),
               "--as", "acme:ana:bids", store=calls_store)
    assert r.returncode == 2 and "the fit ranking reads the field 'object'" in r.stderr
