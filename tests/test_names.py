"""Names (issue 14, class 8): tenants, users, groups, ACL entries and source ids are checked
over the whole string and against one Unicode policy, wherever they enter.

The policy is written once, above `check_name` in `pincite.model`: NFC required, no control,
format (bidi, zero-width, tag), other invisible, surrogate, private-use or unassigned
characters, no space but U+0020. Legitimate names in any script are accepted.
"""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from pincite.errors import UsageError
from pincite.extract.typed import is_valid
from pincite.model import Principal, parse_acl_entry
from pincite.model.names import check_name, check_source_id
from pincite.store.sqlite.index_sql import lex_table
from tests.commands import invoke

# One example of each character class the policy refuses, with the word the message uses.
REFUSED = {
    "trailing newline": "ta\n",
    "carriage return": "t\ra",
    "NUL": "t\x00a",
    "DEL": "t\x7fa",
    "right-to-left override": "ana\u202egpj",
    "left-to-right embedding": "a\u202ab",
    "first strong isolate": "a\u2068b",
    "right-to-left isolate": "a\u2067b",
    "pop directional isolate": "a\u2069b",
    "left-to-right mark": "ana\u200e",
    "right-to-left mark": "\u200fana",
    "zero-width space": "an\u200ba",
    "zero-width non-joiner": "an\u200ca",
    "zero-width joiner": "an\u200da",
    "word joiner": "an\u2060a",
    "byte order mark": "\ufeffana",
    "soft hyphen": "an\u00ada",
    "tag character": "ana\U000e0041",
    "no-break space": "an\u00a0a",
    "line separator": "an\u2028a",
    "Hangul filler": "an\u3164a",
    "variation selector": "an\ufe0fa",
    "combining grapheme joiner": "an\u034fa",
    "private use": "an\ue000a",
    "unassigned": "an\U000effffa",
    "lone surrogate": "an\udcffa",
    "decomposed (NFD)": "Mu\u0308ller",
}
LEGITIMATE = ["Müller", "José", "北京", "Ελένη", "Анна", "محمد", "नमस्ते", "ana.b-c_1", "x",
              "東京タワー", "서울", "ventas-москва", "İstanbul", "Straße"]
# Words that mix the letters of two scripts, each a look-alike of a one-script name.
MIXED_SCRIPT = {"Cyrillic a in paypal": ("p\u0430ypal", "U+0430 is CYRILLIC"),
                "Greek omicron in root": ("r\u03bfot", "U+03BF is GREEK"),
                "Latin o in a Cyrillic word": ("\u0434\u043eo\u0440", "U+006F is LATIN"),
                "fullwidth t": ("\uff54est", "U+0065 is LATIN")}


@pytest.mark.parametrize("value", REFUSED.values(), ids=REFUSED.keys())
@pytest.mark.parametrize("kind", ["tenant", "user", "group"])
def test_names_refuse_every_class_of_look_alike_character(kind, value):
    with pytest.raises(UsageError, match=f"invalid {kind} name"):
        check_name(kind, value)


@pytest.mark.parametrize("value", REFUSED.values(), ids=REFUSED.keys())
def test_principals_acl_entries_and_source_ids_refuse_them_too(value):
    with pytest.raises(UsageError):
        Principal.parse(f"{value}:ana")
    with pytest.raises(UsageError):
        Principal.parse(f"acme:{value}:legal")
    with pytest.raises(UsageError):
        Principal.parse(f"acme:ana:legal,{value}")
    with pytest.raises(UsageError):
        Principal("acme", value)  # constructing one directly is checked as well
    with pytest.raises(UsageError):
        parse_acl_entry(f"group:{value}")
    with pytest.raises(UsageError, match="invalid source id"):
        check_source_id(f"dir/{value}.pdf")


@pytest.mark.parametrize("value,odd", MIXED_SCRIPT.values(), ids=MIXED_SCRIPT.keys())
def test_a_word_mixing_the_letters_of_two_scripts_is_refused(value, odd):
    with pytest.raises(UsageError, match=r"mixes .* letters in one word \(" + re.escape(odd)):
        check_name("group", value)
    with pytest.raises(UsageError, match="invalid source id"):
        check_source_id(f"contracts/{value}.pdf")
    with pytest.raises(UsageError):
        Principal.parse(f"acme:{value}")


def test_messages_escape_what_they_refuse_and_say_the_nfc_spelling():
    with pytest.raises(UsageError) as exc:
        check_name("user", "ana\u202egpj")
    assert "\u202e" not in exc.value.message and "U+202E" in exc.value.message
    with pytest.raises(UsageError) as exc:
        check_name("tenant", "Mu\u0308ller")
    assert "NFC" in exc.value.message and "'Müller'" in exc.value.message


@pytest.mark.parametrize("name", LEGITIMATE)
def test_names_in_any_script_are_accepted(name):
    assert unicodedata.is_normalized("NFC", name)
    assert check_name("tenant", name) == name
    p = Principal.parse(f"{name}:{name}:{name}")
    assert (p.tenant, p.subject, p.groups) == (name, name, (name,))
    assert parse_acl_entry(f"user:{name}") == f"user:{name}"
    assert check_source_id(f"{name}/{name} v2.pdf") == f"{name}/{name} v2.pdf"


@pytest.mark.parametrize("value", ["", "-ana", ".ana", "_ana", "a" * 65, "a b", "a/b", "a:b"])
def test_name_shape_is_checked_over_the_whole_string(value):
    with pytest.raises(UsageError):
        check_name("tenant", value)


@pytest.mark.parametrize("value", ["", " a.pdf", "a.pdf ", "a.pdf@r1", "a" * 513])
def test_source_id_shape(value):
    with pytest.raises(UsageError, match="invalid source id"):
        check_source_id(value)


def test_other_whole_string_checks_do_not_stop_at_a_trailing_newline():
    with pytest.raises(ValueError):
        lex_table("g000001\n")
    assert lex_table("g000001") == "lex_g000001"
    assert is_valid("date", "2024-01-01") and not is_valid("date", "2024-01-01\n")


# ---- through the CLI -----------------------------------------------------------------------


def _no_traceback(res) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in res.stderr + res.stdout


def test_cli_refuses_a_tenant_with_a_trailing_newline_and_makes_no_directory(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "a.txt"
    f.write_text("hello world")
    res = invoke("ingest", str(f), "--tenant", "ta\n", store=store)
    assert res.returncode == 2 and "invalid tenant name 'ta\\n'" in res.stderr
    _no_traceback(res)
    # nothing echoes the raw name before it is refused (a control or bidi character would
    # reach the terminal)
    res = invoke("ingest", str(f), "--tenant", "ev\u202eil", store=store)
    assert res.returncode == 2 and "\u202e" not in res.stderr + res.stdout
    assert not any(line.startswith("tenant ") for line in res.stderr.splitlines())
    assert not any("\n" in p.name for p in tmp_path.rglob("*"))
    res = invoke("ingest", str(f), "--tenant", "acme", "--acl", "user:ana\u200b", store=store)
    assert res.returncode == 2 and "invalid user name" in res.stderr
    res = invoke("sources", "--as", "acme:ana\u202e", store=store)
    assert res.returncode == 2 and "invalid user name" in res.stderr
    res = invoke("ingest", str(f), "--tenant", "acme", "--id", "a\u202etxt.exe", store=store)
    assert res.returncode == 2 and "invalid source id" in res.stderr
    _no_traceback(res)


def test_cli_directory_ingest_refuses_a_spoofing_file_name_before_storing_anything(tmp_path):
    store = tmp_path / "s"
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.txt").write_text("first file")
    (d / "invoice\u202etxt.exe").write_text("second file")
    res = invoke("ingest", str(d), "--json", store=store)
    assert res.returncode == 2 and "invalid source id" in res.stderr and "U+202E" in res.stderr
    assert "\u202e" not in res.stderr
    _no_traceback(res)
    listed = invoke("sources", "--json", store=store)
    assert listed.stdout.strip() == ""


def test_cli_accepts_non_ascii_names_end_to_end_and_keeps_the_blob_tree_ascii(tmp_path):
    store = tmp_path / "s"
    d = tmp_path / "in"
    (d / "José").mkdir(parents=True)
    (d / "José" / "Mu\u0308ller.txt").write_text("Der Vertrag gilt in 北京.")  # NFD on disk
    res = invoke("ingest", str(d), "--tenant", "北京", "--acl", "group:Müller", "--json",
                 store=store)
    assert res.returncode == 0, res.stderr
    row = json.loads(res.stdout.splitlines()[0])
    assert row["source_id"] == "José/Müller.txt" and row["status"] == "new"
    listed = invoke("sources", "--as", "北京:José:Müller", "--json", store=store)
    assert [json.loads(x)["source_id"] for x in listed.stdout.splitlines()] == ["José/Müller.txt"]
    hidden = invoke("sources", "--as", "北京:José", "--json", store=store)
    assert hidden.returncode == 0 and hidden.stdout.strip() == ""
    shown = invoke("show", "José/Müller.txt", "--as", "北京:José:Müller", store=store)
    assert shown.returncode == 0 and "北京" in shown.stdout
    assert all(p.name.isascii() for p in (store / "blobs").rglob("*"))
    fsck = invoke("fsck", "--json", store=store)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert "unreferenced" not in fsck.stdout
