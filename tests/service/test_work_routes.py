"""The rank, fill and runs routes over HTTP: what each refuses (no credential, a missing
scope, another tenant's or user's ids, an over-limit body, a number that is not finite, a
workbook that is not one, a name that is a path), that fill artifacts stay in the service's
folder and with their owner, and that real bodies match their OpenAPI schemas."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml

from pincite.service.scopes import Scope
from tests.corpus import EXAMPLES
from tests.service.serving import ANA, build_store, running

WORKBOOK = EXAMPLES / "workbook" / "operating-model.xlsx"
PROFILE = yaml.safe_load((EXAMPLES / "calls" / "profile-constructora.yaml").read_text("utf-8"))
PROFILE["as_of"] = PROFILE["as_of"].isoformat()
TENDER = ["tender/pliego.pdf"]
OCTETS = {"Content-Type": "application/octet-stream"}


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    root = tmp_path_factory.mktemp("work")
    lib = build_store(root)
    with running(root, lib=lib, artifact_dir=root / "artifacts") as service:
        service.keys["demo-review"], _ = service.ring.create(ANA, (Scope.REVIEW,))
        yield service
    lib.close()


def _fill(c: httpx.Client, svc, who: str = "demo", **params) -> httpx.Response:
    return c.post("/fill", params={"docs": TENDER, "name": "model.xlsx", **params},
                  content=WORKBOOK.read_bytes(), headers={**svc.auth(who), **OCTETS})


def _fills(root: Path) -> list[Path]:
    """Every fill folder under the service's artifact folder."""
    return sorted(p for p in root.glob("*/fill-*") if p.is_dir())


def test_no_credential_is_401_and_a_missing_scope_is_403(svc):
    run = "run-0000000000000-000000000000"
    fid = "fill-" + "0" * 24
    routes = [("POST", "/rank", {"json": PROFILE}, Scope.READ),
              ("POST", "/fill", {"params": {"docs": TENDER}, "content": b"x"}, Scope.INGEST),
              ("GET", f"/fills/{fid}", {}, Scope.READ),
              ("GET", f"/fills/{fid}/files/audit.json", {}, Scope.READ),
              ("DELETE", f"/fills/{fid}", {}, Scope.INGEST),
              ("GET", "/runs", {}, Scope.READ), ("GET", f"/runs/{run}", {}, Scope.READ)]
    with httpx.Client(base_url=svc.base, timeout=60) as c:
        for method, path, kw, scope in routes:
            r = c.request(method, path, **kw)
            assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"
            bad = c.request(method, path, headers={"Authorization": "Bearer pck_nope_nope"},
                            **kw)
            assert bad.status_code == 401, (path, bad.text)
            # a review-only key holds neither read nor ingest; a read-only key lacks ingest
            who = "demo-review" if scope == Scope.READ else "demo-read"
            r = c.request(method, path, headers=svc.auth(who), **kw)
            assert r.status_code == 403, (path, r.text)
            assert r.json()["error"]["message"] == (
                f"this credential lacks the {scope.value!r} scope; ask an admin for a key "
                f"with --scope {scope.value}")


def test_another_tenants_or_users_fill_is_not_found_as_a_missing_one(svc):
    root = svc_root(svc)
    with httpx.Client(base_url=svc.base, timeout=120) as c:
        r = _fill(c, svc)
        assert r.status_code == 200, r.text
        fid = r.json()["out"]
        mine = c.get(f"/fills/{fid}", headers=svc.auth("demo")).json()
        assert "model.filled.xlsx" in mine["files"] and "audit.json" in mine["files"]
        never = "fill-" + "f" * 24
        for path in ("/fills/{}", "/fills/{}/files/model.filled.xlsx"):
            missing = c.get(path.format(never), headers=svc.auth("demo"))
            assert missing.status_code == 404
            # globex (another tenant) and lea (another user of demo) get the same answer
            for who in ("globex", "globex-admin", "demo-admin"):
                r = c.get(path.format(fid), headers=svc.auth(who))
                assert r.status_code == 404
                assert r.json() == json.loads(missing.text.replace(never, fid))
        r = c.delete(f"/fills/{fid}", headers=svc.auth("globex"))
        assert r.status_code == 404
        assert c.get(f"/fills/{fid}", headers=svc.auth("demo")).status_code == 200
        # names that are not one of the fill's files are not found, paths included
        for name in ("..%2Fcheckpoints.json", "nope.json", "%2E%2E%2Faudit.json", "%2E%2E"):
            r = c.get(f"/fills/{fid}/files/{name}", headers=svc.auth("demo"))
            assert r.status_code == 404, name
        for bad in ("..", "fill-../../x", "FILL-" + "0" * 24):
            assert c.get(f"/fills/{bad}", headers=svc.auth("demo")).status_code == 404
        assert c.delete(f"/fills/{fid}", headers=svc.auth("demo")).json() == {"deleted": fid}
        assert c.get(f"/fills/{fid}", headers=svc.auth("demo")).status_code == 404
    assert fid not in {p.name for p in _fills(root)}


def _enqueue(svc, tmp_path: Path) -> str:
    """Enqueue an ingest run of ana's (no worker takes it); return its id."""
    (tmp_path / "later.md").write_text("# Later\n\nFor a worker.\n", "utf-8")
    book = svc.lib.runs(str(svc.store))
    try:
        return str(book.submit_ingest(ANA, [tmp_path / "later.md"], tenant="demo",
                                      acl=["group:analysts"]))
    finally:
        book.close()


def test_another_tenants_or_users_run_is_not_found_as_a_missing_one(svc, tmp_path):
    run_id = _enqueue(svc, tmp_path)
    with httpx.Client(base_url=svc.base, timeout=60) as c:
        mine = c.get(f"/runs/{run_id}", headers=svc.auth("demo"))
        assert mine.status_code == 200 and mine.json()["status"] == "ENQUEUED"
        assert run_id in [r["run_id"] for r in c.get("/runs", headers=svc.auth("demo")).json()]
        never = "run-0000000000000-000000000000"
        missing = c.get(f"/runs/{never}", headers=svc.auth("demo"))
        assert missing.status_code == 404
        for who in ("globex", "globex-admin", "demo-admin"):
            r = c.get(f"/runs/{run_id}", headers=svc.auth(who))
            assert r.status_code == 404
            assert r.json() == json.loads(missing.text.replace(never, run_id))
            assert c.get("/runs", headers=svc.auth(who)).json() == []
        for limit in ("0", "1001", "nan", "inf", "1e400", "-1"):
            r = c.get("/runs", params={"limit": limit}, headers=svc.auth("demo"))
            assert r.status_code == 400 and r.json()["error"]["code"] == "usage", limit


@pytest.mark.parametrize("body", [
    b'{"name": "x", "turnover": {"amount": NaN, "currency": "EUR"}}',
    b'{"name": "x", "turnover": {"amount": Infinity, "currency": "EUR"}}',
    b'{"name": "x", "turnover": {"amount": -Infinity, "currency": "EUR"}}',
    b'{"name": "x", "turnover": {"amount": 1e400, "currency": "EUR"}}',
    b'{"name": "x", "similar_contracts": 1e999}',
])
def test_a_profile_with_a_number_that_is_not_finite_is_refused(svc, body):
    r = httpx.post(svc.base + "/rank", content=body,
                   headers={**svc.auth("demo"), "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_profile", r.text


def test_a_profile_over_its_limits_or_malformed_is_refused(svc):
    h = {**svc.auth("demo"), "Content-Type": "application/json"}
    with httpx.Client(base_url=svc.base, headers=h, timeout=60) as c:
        big = json.dumps({**PROFILE, "name": "x" * 70_000}).encode()
        r = c.post("/rank", content=big)  # past the profile's 64 KiB, under the JSON cap
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
        huge = json.dumps({**PROFILE, "name": "x" * 1_100_000}).encode()
        r = c.post("/rank", content=huge)  # past the service's JSON cap: the front door
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
        deep = b'{"name": "x", "regions": ' + b"[" * 40 + b"]" * 40 + b"}"
        r = c.post("/rank", content=deep)
        assert r.status_code == 400 and "nests deeper" in r.json()["error"]["message"]
        for body, words in ((b"[1, 2]", "must be a mapping"), (b"not json", "not usable JSON"),
                            (json.dumps({**PROFILE, "tenant": "globex"}).encode(), "tenant"),
                            (json.dumps({**PROFILE, "regions": ["../etc"]}).encode(),
                             "not a NUTS code")):
            r = c.post("/rank", content=body)
            assert r.status_code == 400 and words in r.json()["error"]["message"], r.text


def test_a_workbook_name_that_is_a_path_writes_nothing_outside_the_artifacts(svc, tmp_path):
    root = svc_root(svc)
    before = _fills(root)
    with httpx.Client(base_url=svc.base, timeout=60) as c:
        for name in ("../../escape.xlsx", "sub/model.xlsx", "..\\escape.xlsx", "/tmp/x.xlsx",
                     "model.xlsm", ".hidden.xlsx", "model..xlsx", "model.xlsx\x00.txt"):
            r = _fill(c, svc, name=name)
            assert r.status_code == 400, (name, r.text)
            assert r.json()["error"]["code"] == "usage"
            assert "bare file name" in r.json()["error"]["message"]
        r = _fill(c, svc, name="Q3 model (draft).xlsx")
        assert r.status_code == 200, r.text
        fid = r.json()["out"]
    assert not (root.parent / "escape.xlsx").exists() and not (root / "escape.xlsx").exists()
    after = _fills(root)
    assert {p.name for p in after} == {p.name for p in before} | {fid}
    made = next(p for p in after if p.name == fid)
    assert (made / "Q3 model (draft).filled.xlsx").is_file()
    assert made.parent.parent == root  # <artifacts>/<owner>/<fill id>


def _zip(entries: dict[str, bytes], level: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", level) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_what_is_not_a_workbook_is_refused_as_ingest_refuses_it(svc):
    root = svc_root(svc)
    before = _fills(root)
    docx = (EXAMPLES / "tender" / "anexo-tecnico.docx").read_bytes()
    bomb = _zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>",
                 "xl/worksheets/sheet1.xml": b"\0" * (20 * 1024 * 1024)})
    pdf = (EXAMPLES / "tender" / "pliego.pdf").read_bytes()
    polyglot = pdf + WORKBOOK.read_bytes()  # a ZIP behind a %PDF header
    with httpx.Client(base_url=svc.base, headers={**svc.auth("demo"), **OCTETS},
                      timeout=120) as c:
        for what, data in (("docx", docx), ("bomb", bomb), ("pdf", pdf), ("text", b"a,b\n1,2\n"),
                           ("empty", b""), ("polyglot", polyglot)):
            r = c.post("/fill", params={"docs": TENDER, "name": "model.xlsx"}, content=data)
            assert r.status_code == 400, (what, r.text)
            assert r.json()["error"]["code"] == "invalid_target", (what, r.text)
        r = c.post("/fill", params={"docs": ["globex/supply.md"], "name": "model.xlsx"},
                   content=WORKBOOK.read_bytes())
        assert r.status_code == 404 and "globex/supply.md" in r.json()["error"]["message"]
    assert _fills(root) == before  # a refused fill leaves no folder behind


def test_a_workbook_over_the_cap_is_413_before_anything_is_kept(tmp_path):
    lib = build_store(tmp_path)
    try:
        with running(tmp_path, lib=lib, max_upload=4096,
                     artifact_dir=tmp_path / "artifacts") as svc, \
                httpx.Client(base_url=svc.base, headers=svc.auth("demo"), timeout=60) as c:
            params = {"docs": TENDER, "name": "model.xlsx"}
            r = c.post("/fill", params=params, content=WORKBOOK.read_bytes())
            assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"

            def chunks():  # no Content-Length: counted as it arrives
                yield WORKBOOK.read_bytes()

            r = c.post("/fill", params=params, content=chunks())
            assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
            assert _fills(tmp_path / "artifacts") == []
    finally:
        lib.close()


def test_real_bodies_match_their_openapi_schemas(svc, tmp_path):
    with httpx.Client(base_url=svc.base, headers=svc.auth("demo"), timeout=120) as c:
        spec = c.get("/openapi.json").json()
        comps = spec["components"]["schemas"]

        def check(body, name: str) -> None:
            jsonschema.validate(body, {**comps[name], "components": {"schemas": comps}})

        check(c.post("/rank", json=PROFILE).json(), "FitRanking")
        filled = _fill(c, svc).json()
        check(filled, "FillSummary")
        check(c.get(f"/fills/{filled['out']}").json(), "FillFiles")
        _enqueue(svc, tmp_path)
        runs = c.get("/runs").json()
        assert runs
        for run in runs:
            check(run, "Run")
            check(c.get(f"/runs/{run['run_id']}").json(), "Run")
        check(PROFILE, "CompanyProfile")
        body = spec["paths"]["/rank"]["post"]["requestBody"]["content"]["application/json"]
        assert body["schema"] == {"$ref": "#/components/schemas/CompanyProfile"}
        for path in ("/rank", "/fill", "/fills/{fill_id}", "/fills/{fill_id}/files/{name}",
                     "/runs", "/runs/{run_id}"):
            for op in spec["paths"][path].values():
                assert op["responses"]["401"]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/ErrorEnvelope"}


def svc_root(svc) -> Path:
    """The service's artifact folder (the fixture gave it)."""
    return svc.store.parent / "artifacts"


def test_a_fill_is_not_served_once_a_document_it_read_is_gone(svc):
    with httpx.Client(base_url=svc.base, headers=svc.auth("demo"), timeout=120) as c:
        r = c.post("/ingest", params={"source_id": "scratch.md", "acl": "group:analysts",
                                      "publish": "false"},
                   content=b"# Scratch\n\nRevenue 2024: 10.\n")
        assert r.status_code == 200, r.text
        r = c.post("/fill", params={"docs": ["scratch.md", "tender/pliego.pdf@r1"],
                                    "name": "model.xlsx"},
                   content=WORKBOOK.read_bytes(), headers=OCTETS)
        assert r.status_code == 200, r.text
        fid = r.json()["out"]
        assert c.get(f"/fills/{fid}").status_code == 200
        assert c.delete("/sources", params={"source_id": "scratch.md"}).status_code == 200
        for path in (f"/fills/{fid}", f"/fills/{fid}/files/model.filled.xlsx"):
            r = c.get(path)
            assert r.status_code == 404 and r.json()["error"]["message"] == (
                f"fill {fid!r} not found")
        assert c.delete(f"/fills/{fid}").json() == {"deleted": fid}  # its owner may drop it
