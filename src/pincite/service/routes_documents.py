"""Document routes: ingest (a streamed upload), sources, show, cite, verify, tables, facts,
ACLs and delete. Bodies are the CLI's `--json` ones (`contracts`)."""

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import BodyTooLarge
from ..model import Principal
from . import contracts
from .openapi_doc import LIST, OBJECT, ref, returns
from .scopes import Scope

if TYPE_CHECKING:
    from .served import Served

_CHUNK_DRAIN_LIMIT = 64 * 1024 * 1024  # read past the cap at most this much, then close


class CiteBody(BaseModel):
    """What `POST /cite` takes: `pincite cite DOC --quote Q…` as JSON."""

    model_config = ConfigDict(extra="forbid")
    doc: str = Field(min_length=1, max_length=2000)
    quotes: list[str] = Field(min_length=1, max_length=1000)
    occurrence: int | None = Field(default=None, ge=1, le=10_000)
    locator: str | None = Field(default=None, max_length=2000)


class VerifyBody(BaseModel):
    """What `POST /verify` takes: any JSON holding provenance entries, and a form."""

    model_config = ConfigDict(extra="forbid")
    entries: Any
    form: str | None = Field(default=None, pattern="^cmp-[0-9]+$")


class AclBody(BaseModel):
    """What `PUT /acl` takes: the source and its new ACL."""

    model_config = ConfigDict(extra="forbid")
    source_id: str = Field(min_length=1, max_length=1024)
    acl: list[str] = Field(min_length=1, max_length=1000)


def register(app: Any, served: "Served", caller: Any) -> None:
    """Add the document routes to `app`."""
    from fastapi import Depends, Query, Request

    from .served import need

    lib = served.lib
    read = Depends(need(caller, Scope.READ))
    write = Depends(need(caller, Scope.INGEST))

    @app.get("/sources", tags=["documents"], summary="`pincite sources --json`",
             responses=returns(LIST))
    def list_sources(p: Principal = read, quarantined: bool = False) -> Any:
        return contracts.sources(lib, p, quarantined=quarantined)

    @app.get("/show", tags=["documents"], summary="`pincite show DOC --json`",
             responses=returns(OBJECT))
    def show(doc: Annotated[str, Query(min_length=1, max_length=2000)], p: Principal = read,
             locator: str | None = None,
             chars: Annotated[str | None, Query(pattern="^[0-9]{1,12}:[0-9]{1,12}$")] = None
             ) -> Any:
        return contracts.show(lib, p, doc, locator=locator, chars=chars)

    @app.post("/cite", tags=["citations"], summary="`pincite cite DOC --quote Q… --json`",
              responses=returns(ref("CitationJSON", many=True)))
    def cite(body: CiteBody, p: Principal = read) -> Any:
        out = contracts.cite(lib, p, body.doc, body.quotes, occurrence=body.occurrence,
                             locator=body.locator)
        served.metrics.count_unverified("/cite", out)
        return out

    @app.post("/verify", tags=["citations"], summary="`pincite verify FILE --json`",
              responses=returns(LIST))
    def verify(body: VerifyBody, p: Principal = read) -> Any:
        out = contracts.verify(lib, p, body.entries, form=body.form)
        served.metrics.count_unverified("/verify", out)
        return out

    @app.get("/tables", tags=["documents"], summary="`pincite tables DOC --json`",
             responses=returns(LIST))
    def tables(doc: Annotated[str, Query(min_length=1, max_length=2000)],
               p: Principal = read) -> Any:
        return contracts.tables(lib, p, doc)

    @app.get("/facts", tags=["documents"], summary="`pincite facts DOC --json`",
             responses=returns(LIST))
    def facts(doc: Annotated[str, Query(min_length=1, max_length=2000)], p: Principal = read,
              type: Annotated[list[str] | None, Query(max_length=20)] = None) -> Any:
        return contracts.facts(lib, p, doc, type or ())

    @app.put("/acl", tags=["documents"], summary="`pincite acl SOURCE --set E… --json`",
             responses=returns(OBJECT))
    def set_acl(body: AclBody, p: Principal = write) -> Any:
        return contracts.set_acl(lib, p, body.source_id, body.acl)

    @app.delete("/sources", tags=["documents"], summary="`pincite delete SOURCE --json`; "
                "purge needs the admin scope", responses=returns(OBJECT))
    def delete(source_id: Annotated[str, Query(min_length=1, max_length=1024)],
               purge: bool = False, p: Principal = write,
               c: Annotated[Any, Depends(caller)] = None) -> Any:
        if purge:
            c.require(Scope.ADMIN)
        return contracts.delete(lib, p, source_id, purge=purge)

    @app.post("/ingest", tags=["documents"], responses=returns(LIST),
              summary="Upload one file (the raw body) as SOURCE_ID: `pincite ingest --json`",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/octet-stream": {"schema": {"type": "string",
                                                          "format": "binary"}}}}})
    async def ingest(request: Request,
                     source_id: Annotated[str, Query(min_length=1, max_length=1024)],
                     acl: Annotated[list[str] | None, Query(max_length=100)] = None,
                     publish: bool = True, p: Principal = write) -> Any:
        from starlette.concurrency import run_in_threadpool

        from ..library import check_source_id
        from ..model import parse_acl_entry

        check_source_id(source_id)
        acl_given = [parse_acl_entry(a) for a in acl] if acl else None
        # the write rule before the body is read (and again when the upload is stored)
        await run_in_threadpool(lib.check_write, p, source_id, acl=acl_given)
        name = os.path.basename(source_id) or "upload"
        spool = Path(tempfile.mkdtemp(prefix="pincite-upload-", dir=served.config.upload_dir))
        try:
            size = await spool_body(request, spool / name, served.config.max_upload)
            result = await run_in_threadpool(
                lib.ingest_upload, spool / name, name=source_id, source_id=source_id,
                tenant=p.tenant, acl=acl_given, new_acl=None if acl_given else ["*"],
                principal=p)
        finally:
            shutil.rmtree(spool, ignore_errors=True)
        if publish and result.status != "quarantined":
            await run_in_threadpool(lib.update_index, served.config.embedder)
        if size > served.config.max_upload:
            raise BodyTooLarge(served.config.max_upload, "upload")
        return [result.to_dict()]


async def spool_body(request: Any, path: Path, cap: int) -> int:
    """Write the request body to `path` as it arrives, keeping at most `cap + 1` bytes;
    return the bytes received (past the cap, the rest is read and dropped up to a bound)."""
    n = 0
    with open(path, "wb") as f:
        async for chunk in request.stream():
            if n <= cap:
                f.write(chunk[: cap + 1 - n])
            n += len(chunk)
            if n > cap + _CHUNK_DRAIN_LIMIT:
                break
    return n
