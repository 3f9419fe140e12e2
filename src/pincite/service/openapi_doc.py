"""The OpenAPI document (`GET /openapi.json`): the routes FastAPI describes, the record
JSON Schemas pincite generates (`src/pincite/schemas/*.json`, from the record models) and
those of the rank, fill and runs bodies (`work_schemas`) as components, the error envelope
on every route, and the bearer scheme."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .envelope import ERROR_SCHEMA

# generated schema file → component name
_FILES = {"evidence-bundle.json": "EvidenceBundle", "records.json": "RecordsDocument",
          "review-item.json": "ReviewItem", "field-record.json": "FieldRecord",
          "company-profile.json": "CompanyProfile"}
LIST: dict[str, Any] = {"type": "array", "items": {"type": "object"}}
OBJECT: dict[str, Any] = {"type": "object"}
_ERRORS = {400: "malformed request", 401: "no valid credentials", 403: "not allowed",
           404: "not found (or not visible to the caller)", 413: "body too large",
           429: "tenant over its limits (see Retry-After)"}


def ref(name: str, *, many: bool = False, nullable: bool = False) -> dict[str, Any]:
    """Return a schema referring to a component (a list of them with `many`)."""
    one: dict[str, Any] = {"$ref": f"#/components/schemas/{name}"}
    if nullable:
        one = {"anyOf": [one, {"type": "null"}]}
    return {"type": "array", "items": one} if many else one


def returns(schema: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    """Return a route's `responses`: 200 with `schema`, and the error envelopes."""
    out: dict[int | str, dict[str, Any]] = {
        200: {"description": "the CLI's --json body",
              "content": {"application/json": {"schema": schema}}}}
    for status, what in _ERRORS.items():
        out[status] = {"description": what, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}}
    return out


def _rewrite(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (v.replace("#/$defs/", "#/components/schemas/") if k == "$ref"
                    and isinstance(v, str) else _rewrite(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite(x) for x in node]
    return node


def record_schemas() -> dict[str, Any]:
    """Return the generated record schemas as OpenAPI components (their `$defs` too)."""
    from .work_schemas import COMPONENTS

    out: dict[str, Any] = {"ErrorEnvelope": ERROR_SCHEMA, **COMPONENTS}
    base = resources.files("pincite").joinpath("schemas")
    for fname, name in _FILES.items():
        doc = json.loads(base.joinpath(fname).read_text(encoding="utf-8"))
        for dname, d in (doc.pop("$defs", None) or {}).items():
            d = _rewrite(d)
            if out.setdefault(dname, d) != d:
                raise AssertionError(f"{fname}: ${dname} differs from another schema's")
        doc.pop("$schema", None)
        out[name] = _rewrite(doc)
    return out


def attach_openapi(app: Any) -> None:
    """Make `app.openapi()` add the record schemas and drop FastAPI's 422 entries."""
    from fastapi.openapi.utils import get_openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return dict(app.openapi_schema)
        spec = get_openapi(title=app.title, version=app.version, description=app.description,
                           routes=app.routes)
        comps = spec.setdefault("components", {}).setdefault("schemas", {})
        comps.update(record_schemas())
        for name in ("HTTPValidationError", "ValidationError"):
            comps.pop(name, None)
        for path_item in spec.get("paths", {}).values():
            for op in path_item.values():
                if isinstance(op, dict):
                    op.get("responses", {}).pop("422", None)
        app.openapi_schema = spec
        return spec

    app.openapi = openapi
