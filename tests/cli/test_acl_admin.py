"""Who may change an ACL (issue 14, class 12) and who sees a refused file (class 6).

An ACL change needs the source's owner (the user who first ingested it) or the
`acl:admin` role (group `acl.admin`); a reader gets `Forbidden`, anyone else "not found".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import Forbidden, NotFound
from pincite.model import Principal
from tests.commands import invoke

TEXT = b"The contract runs for twelve months.\n"


def test_a_reader_cannot_widen_an_acl_the_owner_and_an_admin_can(lib):
    lib.ingest_bytes(TEXT, source_id="c.txt", tenant="acme", acl=["group:legal"], sandbox=False,
                     owner="olga")
    reader = Principal.parse("acme:rita:legal")
    with pytest.raises(Forbidden, match="acl:admin"):
        lib.set_acl(reader, "c.txt", ["*"])
    assert lib.store.source("acme", "c.txt").acl == ("group:legal",)  # unchanged
    with pytest.raises(NotFound):  # cannot read it: not found, not forbidden
        lib.set_acl(Principal.parse("acme:eve"), "c.txt", ["*"])
    with pytest.raises(NotFound):  # an admin who cannot read it does not learn it exists
        lib.set_acl(Principal.parse("acme:adam:acl.admin"), "c.txt", ["*"])
    with pytest.raises(NotFound):  # the owner's name in another tenant is nobody
        lib.set_acl(Principal.parse("evil:olga:legal"), "c.txt", ["*"])
    owner = Principal.parse("acme:olga:legal")
    assert lib.set_acl(owner, "c.txt", ["group:legal", "user:olga"]).acl_epoch == 2
    admin = Principal.parse("acme:adam:legal,acl.admin")
    assert lib.set_acl(admin, "c.txt", ["group:legal"]).acl == ("group:legal",)
    assert lib.store.source("acme", "c.txt").owner == "olga"  # a revision keeps the owner
    lib.ingest_bytes(TEXT + b"v2", source_id="c.txt", tenant="acme", acl=None, sandbox=False,
                     principal=reader)  # a reader may revise; the source keeps its owner
    assert lib.store.source("acme", "c.txt").owner == "olga"


def test_acl_command_refuses_a_reader_with_a_clear_error(tmp_path: Path):
    store = tmp_path / "s"
    f = tmp_path / "a.txt"
    f.write_bytes(TEXT)
    assert invoke("ingest", str(f), "--tenant", "acme", "--acl", "group:legal",
                  "--as", "acme:olga", "--no-publish", store=store).returncode == 0
    widened = invoke("acl", "a.txt", "--set", "*", "--as", "acme:rita:legal", store=store)
    assert widened.returncode == 1 and "not change its ACL" in widened.stderr
    assert "Traceback" not in widened.stderr
    hidden = invoke("acl", "a.txt", "--set", "*", "--as", "acme:eve", store=store)
    assert hidden.returncode == 1 and "not found" in hidden.stderr
    listed = invoke("sources", "--as", "acme:rita:legal", "--json", store=store)
    assert json.loads(listed.stdout)["acl"] == ["group:legal"]
    ok = invoke("acl", "a.txt", "--set", "group:legal", "user:rita", "--as", "acme:olga:legal",
                "--json", store=store)
    assert ok.returncode == 0 and json.loads(ok.stdout)["acl"] == ["group:legal", "user:rita"]
    other = invoke("ingest", str(f), "--tenant", "acme", "--as", "other:olga", store=store)
    assert other.returncode == 2 and "--tenant other" in other.stderr


def test_quarantine_listing_follows_the_read_rule(lib, tmp_path: Path):
    lib.ingest_bytes(TEXT, source_id="secret.txt", tenant="acme", acl=["group:legal"],
                     sandbox=False, owner="olga")
    # a later revision of the secret source is refused; so is a file that never became one
    bad = b"%PDF-1.4 not really a pdf"
    lib.ingest_bytes(bad, source_id="secret.txt", tenant="acme", acl=None, sandbox=False,
                     name="secret.pdf", principal=Principal.parse("acme:olga:legal"))
    lib.ingest_bytes(bad, source_id="draft.pdf", tenant="acme", acl=["*"], sandbox=False,
                     name="draft.pdf", owner="olga")
    ids = lambda p: sorted(q.source_id for q in lib.quarantined(Principal.parse(p)))  # noqa: E731
    assert ids("acme:olga:legal") == ["draft.pdf", "secret.txt"]
    assert ids("acme:rita:legal") == ["secret.txt"]      # reads the source, not olga's draft
    assert ids("acme:eve") == []                          # reads neither
    assert ids("acme:adam:acl.admin") == ["draft.pdf"]   # admin: refused files, not the secret
    assert ids("other:olga:legal") == []
