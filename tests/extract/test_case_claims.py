"""A default case id cannot be pre-claimed (issue 25): the id pincite derives from a
case's documents is refused as an explicit `--case-id` over other documents, so another
user can neither lock the case's readers out (denial) nor probe it (a 404/200 oracle).
Fails on 2a71066, where mallory's case took alice's default id."""

from __future__ import annotations

from pathlib import Path

import pytest

from pincite.errors import UsageError
from pincite.extract.case import case_id_for
from pincite.model import Principal

SCHEMA = Path(__file__).resolve().parents[2] / "examples" / "tender" / "schema.yaml"
ALICE, MALLORY = Principal.parse("acme:alice"), Principal.parse("acme:mallory")


def test_another_users_default_case_id_cannot_be_claimed(lib):
    lib.ingest_bytes(b"# Terms\n\nThe provisional guarantee is 3,000 euros.\n", source_id="a.md",
                     tenant="acme", acl=["user:alice"], sandbox=False, principal=ALICE)
    lib.ingest_bytes(b"# Mine\n\nThe provisional guarantee is 1 euro.\n", source_id="m.md",
                     tenant="acme", acl=["user:mallory"], sandbox=False, principal=MALLORY)
    theirs = case_id_for(lib.revisions(ALICE, "a.md"))
    with pytest.raises(UsageError, match="choose another case id"):
        lib.extract(MALLORY, SCHEMA, ["m.md"], case_id=theirs)
    assert lib.extract(ALICE, SCHEMA, ["a.md"]).case.case_id == theirs
    # an id of one's own choosing, and one's own default given explicitly, still work
    assert lib.extract(MALLORY, SCHEMA, ["m.md"], case_id="mallory-1").case.case_id == "mallory-1"
    mine = case_id_for(lib.revisions(MALLORY, "m.md"))
    assert lib.extract(MALLORY, SCHEMA, ["m.md"], case_id=mine).case.case_id == mine
