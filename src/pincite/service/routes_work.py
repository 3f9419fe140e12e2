"""Work routes: the fit ranking (`POST /rank`), workbook fill (`POST /fill` and its
artifacts under `/fills/{fill_id}`) and durable runs (`GET /runs`, `GET /runs/{run_id}`).
Bodies are the CLI's `--json` ones (`contracts`; the fill's `out` is the fill id).

The ranking reads the profile from the JSON body with the profile file's checks (size,
depth, finite numbers, the profile's own keys and bounds). The fill takes the workbook as
the raw body, capped and sniffed as an ingest upload is; its artifacts go to the service's
own folder (`artifacts`), never to a path a caller names, and belong to the caller.
"""

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import BodyTooLarge, NotFound, UsageError
from ..model import Principal, split_doc_id
from . import contracts
from .openapi_doc import ref, returns
from .scopes import Scope

if TYPE_CHECKING:
    from .served import Served

FILL_PATH = "/fill"
MAX_DOCS = 100
_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def fill_cap(served: "Served") -> int:
    """Return the largest workbook `POST /fill` takes: the upload cap, at most the fill's."""
    from ..library import MAX_TARGET_BYTES

    return min(served.config.max_upload, int(MAX_TARGET_BYTES))


def register(app: Any, served: "Served", caller: Any) -> None:
    """Add the rank, fill and runs routes to `app`."""
    from fastapi import Depends, Query, Request
    from fastapi import Path as PathParam
    from fastapi.responses import FileResponse
    from starlette.concurrency import run_in_threadpool

    from .served import need

    lib = served.lib
    read = Depends(need(caller, Scope.READ))
    write = Depends(need(caller, Scope.INGEST))
    fill_id_t = Annotated[str, PathParam(max_length=64)]

    @app.post("/rank", tags=["ranking"], summary="`pincite rank --profile FILE --json`: the "
              "profile file's content as the JSON body", responses=returns(ref("FitRanking")),
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {
                      "$ref": "#/components/schemas/CompanyProfile"}}}}})
    async def rank(request: Request, p: Principal = read) -> Any:
        body = await request.body()
        out = await run_in_threadpool(contracts.rank, lib, p, body,
                                      served.config.tender_schema)
        served.metrics.count_unverified("/rank", [
            part["citation"] for r in out["results"] for part in r["parts"]
            if part.get("citation")])
        return out

    @app.post(FILL_PATH, tags=["fill"], responses=returns(ref("FillSummary")),
              summary="`pincite fill DOCS --target NAME --json`: the workbook as the raw "
              "body; `out` is the fill id its artifacts are kept under",
              openapi_extra={"requestBody": {"required": True, "content": {
                  _XLSX: {"schema": {"type": "string", "format": "binary"}},
                  "application/octet-stream": {"schema": {"type": "string",
                                                          "format": "binary"}}}}})
    async def fill(request: Request,
                   docs: Annotated[list[str], Query(min_length=1, max_length=MAX_DOCS)],
                   name: Annotated[str, Query(min_length=1, max_length=160)] = "target.xlsx",
                   review: bool = False, p: Principal = write) -> Any:
        from ..library import check_target_name, fill_summary, fill_upload
        from .routes_documents import spool_body

        check_target_name(name)
        if any(not d or len(d) > 2000 for d in docs):
            raise UsageError("each document is SOURCE_ID or SOURCE_ID@rN (1-2000 characters)")
        cap = fill_cap(served)
        spool = Path(tempfile.mkdtemp(prefix="pincite-fill-", dir=served.config.upload_dir))
        try:
            if await spool_body(request, spool / name, cap) > cap:
                raise BodyTooLarge(cap, "workbook")
            fill_id, out = served.artifacts.new(p, list(docs))
            try:
                result = await run_in_threadpool(fill_upload, lib, p, spool / name, docs,
                                                 out=out, review=review)
            except BaseException:
                served.artifacts.discard(out)
                raise
        finally:
            shutil.rmtree(spool, ignore_errors=True)
        return fill_summary(result, fill_id)

    def visible(p: Principal, fill_id: str) -> None:
        """Refuse a fill whose documents are not all visible to its owner any more: it is
        not found, as a fill that never was."""
        for doc in served.artifacts.docs(p, fill_id):
            source_id, rev = split_doc_id(doc)
            try:
                revs = lib.revisions(p, source_id)
            except NotFound:
                raise NotFound("fill", fill_id) from None
            if rev is not None and rev not in {r.revision_id for r in revs}:
                raise NotFound("fill", fill_id)

    @app.get("/fills/{fill_id}", tags=["fill"], summary="The files a fill of yours left "
             "(while every document it read is still visible to you)",
             responses=returns(ref("FillFiles")))
    def fill_files(fill_id: fill_id_t, p: Principal = read) -> Any:
        visible(p, fill_id)
        return {"fill_id": fill_id, "files": served.artifacts.files(p, fill_id)}

    @app.get("/fills/{fill_id}/files/{name}", tags=["fill"],
             summary="Download one file of a fill of yours (the filled workbook: "
             "`<name>.filled.xlsx`)",
             responses={**returns({"type": "string", "format": "binary"}),
                        200: {"description": "the file, as an attachment", "content": {
                            "application/octet-stream": {"schema": {
                                "type": "string", "format": "binary"}}}}})
    def fill_file(fill_id: fill_id_t, name: Annotated[str, PathParam(max_length=200)],
                  p: Principal = read) -> Any:
        from .artifacts import MEDIA

        visible(p, fill_id)
        path = served.artifacts.file(p, fill_id, name)
        return FileResponse(path, media_type=MEDIA.get(path.suffix, "application/octet-stream"),
                            filename=path.name, headers={
                                "X-Content-Type-Options": "nosniff",
                                "Content-Security-Policy": "sandbox; default-src 'none'"})

    @app.delete("/fills/{fill_id}", tags=["fill"], summary="Delete a fill of yours and its "
                "files", responses=returns({"type": "object", "required": ["deleted"],
                                            "properties": {"deleted": {"type": "string"}}}))
    def drop_fill(fill_id: fill_id_t, p: Principal = write) -> Any:
        served.artifacts.drop(p, fill_id)
        return {"deleted": fill_id}

    @app.get("/runs", tags=["runs"], summary="`pincite runs --json`: your durable runs, "
             "newest first (the JSON lines as a list)",
             responses=returns(ref("Run", many=True)))
    def list_runs(p: Principal = read,
                  limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> Any:
        return contracts.runs(served.runs(), p, limit=limit)

    @app.get("/runs/{run_id}", tags=["runs"], summary="`pincite runs ID --json`: one of your "
             "runs with its step history", responses=returns(ref("Run")))
    def one_run(run_id: Annotated[str, PathParam(max_length=200)], p: Principal = read) -> Any:
        return contracts.run(served.runs(), p, run_id)
