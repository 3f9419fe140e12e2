"""Case records are authorized per document (issue 14, class 3): a principal that names a
stored case holding a document it may not read gets "not found" and overwrites nothing,
however guessable the case id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import NotFound, UsageError
from pincite.extract.case import case_id_for
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.model import Principal
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS, tender_library
from tests.review.queues import ANA

LIA = Principal.parse("demo:lia:legal")
SCHEMA = EXAMPLES / "tender" / "schema.yaml"
SECRET = "legal/pliego-reservado.pdf"


def _two_groups(tmp_path: Path):
    """The tender readable by analysts, and a copy of its pliego only legal may read,
    extracted by legal under the default (guessable) case id."""
    lib = tender_library(tmp_path / "s")
    lib.ingest([EXAMPLES / TENDER_DOCS[0]], tenant="demo", acl=["group:legal"],
               source_id=SECRET, sandbox=False)
    legal = lib.extract(LIA, SCHEMA, [SECRET])
    case = legal.run["case_id"]
    assert case == case_id_for([d.rev for d in legal.case.docs])  # anyone can compute it
    return lib, case


def _records(lib, case: str) -> list[dict]:
    return sorted((r for r in lib.store.field_records("demo", case)), key=lambda r: r["field"])


def test_naming_a_case_with_an_unreadable_document_is_not_found(tmp_path):
    lib, case = _two_groups(tmp_path)
    before = _records(lib, case)
    assert before and all(p["doc_id"].startswith(SECRET) for r in before
                          for p in r["provenance"])
    # another case's default id is claimable by no one (issue 25): refused before any
    # lookup, the same for a case that exists and one that does not
    for named in (case, "case-000000000000"):
        with pytest.raises(UsageError, match="choose another case id"):
            lib.extract(ANA, SCHEMA, [TENDER_DOCS[0]], case_id=named)
    # an id of legal's own choosing, holding a document analysts may not read: not found
    lib.extract(LIA, SCHEMA, [SECRET], case_id="legal-own")
    with pytest.raises(NotFound, match="not found"):
        lib.extract(ANA, SCHEMA, [TENDER_DOCS[0]], case_id="legal-own")
    with pytest.raises(NotFound):  # the stage itself, without the facade
        run_extraction(lib.store, ANA, load_schema(SCHEMA), [TENDER_DOCS[0]],
                       case_id="legal-own", route=False, persist=False)
    assert _records(lib, case) == before
    # legal, who reads every document of the case, may run it again
    lib.extract(LIA, SCHEMA, [SECRET], case_id=case)
    lib.close()


def test_extract_case_through_the_cli_overwrites_nothing(tmp_path):
    lib, case = _two_groups(tmp_path)
    before = _records(lib, case)
    lib.close()
    res = invoke("extract", TENDER_DOCS[0], "--schema", str(SCHEMA), "--case", case,
                 "--as", "demo:ana:analysts", store=tmp_path / "s")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "choose another case id" in res.stderr  # a default id is nobody else's
    import pincite

    with pincite.open(tmp_path / "s") as lib2:
        assert _records(lib2, case) == before
    ok = invoke("extract", TENDER_DOCS[0], "--schema", str(SCHEMA), "--case", "ana-own-case",
                "--as", "demo:ana:analysts", "--json", store=tmp_path / "s")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["run"]["case_id"] == "ana-own-case"


def test_the_write_itself_refuses_a_case_that_became_unreadable(tmp_path):
    """The check runs again inside the transaction that writes the case: records legal
    stores under an id between analysts' load and their write are not overwritten."""
    from pincite.extract.case import case_guard

    lib, _case = _two_groups(tmp_path)
    schema = load_schema(SCHEMA)
    mine = run_extraction(lib.store, ANA, schema, [TENDER_DOCS[0]], case_id="raced",
                          route=False, persist=False)  # loaded: the case is empty yet
    run_extraction(lib.store, LIA, schema, [SECRET], case_id="raced", route=False)
    before = _records(lib, "raced")
    with pytest.raises(NotFound):
        lib.store.save_extraction("demo", mine.run, [r.to_dict() for r in mine.records], [],
                                  "2026-03-02T09:00:00+00:00",
                                  guard=case_guard(lib.store, ANA, "raced"))
    assert _records(lib, "raced") == before
    lib.close()
