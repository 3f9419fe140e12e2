"""One guarded loader (`limits.load_guarded`) for every YAML/JSON input: size cap, depth
cap counted on the parser's events (block indentation as well as brackets), no YAML
anchors or aliases, finite numbers, plain data only. Checked on the loader itself and
through each input that had its own reader: the tender schema (`rank --schema`), the keys
file (`keys list --keys`), the release contract (`release freeze`), the OIDC
configuration and `eval rank --data`'s relevance.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import InvalidSchema, UsageError
from pincite.limits import load_guarded, load_json, read_yaml_file
from tests.commands import invoke
from tests.corpus import EXAMPLES, add

PROFILE = EXAMPLES / "calls" / "profile-constructora.yaml"
CONTRACT = EXAMPLES / "calls" / "release-contract.yaml"
BOMB = ("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 16)))
DEEP_BLOCK_SEQ = "- " * 5000 + "x\n"
DEEP_BLOCK_MAP = "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "v\n"
DEEP_FLOW = "[" * 5000 + "]" * 5000 + "\n"
DEEP_FLOW_MAP = "{a: " * 5000 + "1" + "}" * 5000 + "\n"


# ---- the loader -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "words"), [
    (BOMB, "YAML aliases (*name) are refused"),
    ("a: &x 1\nb: 2\n", "anchors (&name)"),
    ("base: &b {x: 1}\none: {<<: *b, y: 2}\n", "YAML aliases"),
    (DEEP_BLOCK_SEQ, "nests too deeply"),
    (DEEP_BLOCK_MAP, "nests too deeply"),
    (DEEP_FLOW, "nests too deeply"),
    (DEEP_FLOW_MAP, "nests too deeply"),
    ("a: .nan\n", "must be a finite number"),
    ("a: [1, -.Inf]\n", "must be a finite number"),
    ("a: 1e400\n", "is not finite"),
    ("a: 1.0e+400\n", "is not finite"),
    ("a: !!binary aGVsbG8=\n", "not plain data"),
    ("a: !!set {x, y}\n", "not plain data"),
    ("a: !!python/object/apply:os.getcwd []\n", "not valid YAML/JSON"),
    ("a: " + "9" * 5000 + "\n", "is not finite"),  # past any float, and int()'s 4300 digits
    ("a: 2026-13-45\n", "not valid YAML/JSON"),
    ("a: [unclosed\n", "not valid YAML/JSON"),
    ("a: 1\n---\nb: 2\n", "not valid YAML/JSON"),
])
def test_the_loader_refuses_hostile_yaml_with_the_given_class_and_name(text, words):
    with pytest.raises(InvalidSchema) as e:
        load_guarded(text, "the schema", refuse=InvalidSchema)
    assert e.value.message.startswith("the schema") and words in e.value.message, e.value
    assert "\n" not in e.value.message


def test_the_loader_reads_plain_yaml_and_json_and_caps_size():
    got = load_guarded("a: [1, 2.5, x, true, null, 2026-01-02]\nb: {c: '1e400'}\n", "f")
    assert got["a"][:5] == [1, 2.5, "x", True, None] and got["b"] == {"c": "1e400"}
    assert load_guarded(b'{"a": [1, {"b": null}]}', "f", syntax="json") == {"a": [1, {"b": None}]}
    with pytest.raises(UsageError, match="past the 10-byte limit"):
        load_guarded("a: 12345678901", "f", max_bytes=10)
    with pytest.raises(UsageError, match="past the 10-byte limit"):
        load_guarded("a: ñññññññ", "f", max_bytes=10)  # bytes, not characters, are counted
    with pytest.raises(UsageError, match="not UTF-8"):
        load_guarded("a: Construcción".encode("latin-1"), "f")
    for raw in (b"[NaN]", b"[-Infinity]", b"[1e400]"):
        with pytest.raises(UsageError, match="not usable JSON"):
            load_json(raw, "f")
    with pytest.raises(UsageError, match="nests deeper than 100"):
        load_json(b"[" * 5000 + b"]" * 5000, "f")


def test_a_file_is_read_no_further_than_its_cap(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (50 * 1024 * 1024))
    with pytest.raises(InvalidSchema, match="big.yaml: .* bytes is past the 1024-byte limit"):
        read_yaml_file(big, max_bytes=1024, refuse=InvalidSchema, what="a file")


# ---- through each input ------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    import pincite

    root = tmp_path_factory.mktemp("guarded-inputs") / "store"
    lib = pincite.open(root, create=True)
    add(lib, "call/anuncio.md", "# Call\n\nThe contract is for cleaning services.\n",
        tenant="acme", acl=("*",))
    lib.close()
    return root


def _clean(r, name: str, words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[:200], r.stderr[-600:])
    assert "Traceback" not in r.stderr and r.stderr.startswith("error: "), r.stderr[-600:]
    assert name in r.stderr and words in r.stderr, r.stderr


@pytest.mark.parametrize(("text", "words"), [
    (BOMB + "fields: []\n", "YAML aliases"),
    ("fields:\n  " + DEEP_BLOCK_SEQ, "nests too deeply"),
    ("fields: " + DEEP_FLOW, "nests too deeply"),
    ("- just\n- a list\n", "a tender schema is a mapping"),
])
def test_rank_refuses_a_hostile_tender_schema_cleanly(store, tmp_path, text, words):
    schema = tmp_path / "tender.yaml"
    schema.write_text(text, "utf-8")
    r = invoke("rank", "--profile", str(PROFILE), "--schema", str(schema), "--as", "acme:ana:x",
               store=store)
    _clean(r, "tender.yaml", words)


def _key(**extra: object) -> dict[str, object]:
    return {"key_id": "0123456789ab", "tenant": "acme", "user": "ana", "groups": [],
            "scopes": ["read"], "secret_sha256": "0" * 64,
            "created_at": "2026-01-01T00:00:00+00:00", "revoked_at": None, **extra}


@pytest.mark.parametrize(("body", "words"), [
    ('{"keys": ' + "[" * 5000 + "]" * 5000 + "}", "nests deeper"),
    ('{"keys": [{"note": NaN}]}', "not usable JSON"),
    ("[1, 2]", "not an object with a list of keys"),
    ('{"keys": {"a": 1}}', "not an object with a list of keys"),
    ('{"keys": [], "extra": 1}', "unknown key 'extra'"),
    (json.dumps({"keys": [_key(groups="analysts")]}), "keys[0].groups"),
    (json.dumps({"keys": [_key(tenant=7)]}), "keys[0].tenant"),
    (json.dumps({"keys": [_key(surprise=True)]}), "keys[0].surprise"),
    ("a: &x 1\nb: *x\n", "not usable JSON"),
])
def test_a_hostile_keys_file_is_refused_cleanly(tmp_path, body, words):
    keys = tmp_path / "keys.json"
    keys.write_text(body, "utf-8")
    r = invoke("keys", "list", "--keys", str(keys), "--json")
    _clean(r, "keys.json", words)


def test_a_keys_file_past_its_cap_is_refused_cleanly(tmp_path):
    keys = tmp_path / "keys.json"
    keys.write_text('{"keys": []}' + " " * (17 * 1024 * 1024), "utf-8")
    r = invoke("keys", "list", "--keys", str(keys), "--json")
    _clean(r, "keys.json", "-byte limit")


def test_a_contract_with_a_non_plain_value_is_refused(store, tmp_path):
    text = CONTRACT.read_text("utf-8").replace("approvers: [lucia]",
                                               "approvers: [!!binary bHVjaWE=]")
    assert "!!binary" in text
    contract = tmp_path / "contract.yaml"
    contract.write_text(text, "utf-8")
    r = invoke("release", "freeze", str(contract), "--releases", str(tmp_path / "rel"),
               "--as", "demo:ana", "--json", store=store)
    _clean(r, "contract.yaml", "not plain data")


@pytest.mark.parametrize(("body", "words"), [
    ('{"issuer": "https://id", "audience": "a", "jwks_file": "j.json", '
     '"leeway_seconds": NaN}', "not usable JSON"),
    ('{"issuer": ' + "[" * 5000 + "]" * 5000 + "}", "nests deeper"),
])
def test_a_hostile_oidc_configuration_is_refused(tmp_path, body, words):
    from pincite.service.oidc import OidcVerifier

    (tmp_path / "j.json").write_text('{"keys": []}', "utf-8")
    cfg = tmp_path / "oidc.json"
    cfg.write_text(body, "utf-8")
    with pytest.raises(UsageError) as e:
        OidcVerifier.from_file(cfg)
    assert "oidc.json" in e.value.message and words in e.value.message, e.value.message


def test_a_hostile_jwks_file_is_refused(tmp_path):
    from pincite.service.oidc import OidcVerifier

    (tmp_path / "j.json").write_text('{"keys": ' + "[" * 5000 + "]" * 5000 + "}", "utf-8")
    cfg = tmp_path / "oidc.json"
    cfg.write_text('{"issuer": "https://id", "audience": "a", "jwks_file": "j.json"}', "utf-8")
    with pytest.raises(UsageError, match="nests deeper"):
        OidcVerifier.from_file(cfg)


@pytest.mark.parametrize(("text", "words"), [
    (BOMB, "YAML aliases"), ("profiles:\n  " + DEEP_BLOCK_SEQ, "nests too deeply"),
    ("profiles: [1, 2]\nschema_name: pincite.rank-relevance\n", "profiles maps"),
    ("profiles: {p.yaml: [1]}\nschema_name: pincite.rank-relevance\n", "profiles maps")])
def test_eval_rank_refuses_a_hostile_relevance_file(tmp_path, text, words):
    (tmp_path / "docs").mkdir()
    (tmp_path / "relevance.yaml").write_text(text, "utf-8")
    r = invoke("eval", "rank", "--data", str(tmp_path))
    _clean(r, "relevance.yaml", words)
