"""Query routes: search, ask, extract, calibration, index generations (read-only: building,
publishing and rolling back act on every tenant's index, so they stay with the operator's
CLI). Bodies are the CLI's `--json` ones (`contracts`)."""

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..model import Principal
from . import contracts
from .openapi_doc import LIST, OBJECT, ref, returns
from .scopes import Scope

if TYPE_CHECKING:
    from .served import Served

MAX_K = 200
MAX_QUERY = 2000


class ExtractBody(BaseModel):
    """What `POST /extract` takes: the schema (the file's text, YAML or JSON, or its
    content as a JSON object), the case's documents and, optionally, the case id."""

    model_config = ConfigDict(extra="forbid")
    schema_: dict[str, Any] | str = Field(alias="schema")
    docs: list[str] = Field(min_length=1, max_length=100)
    case_id: str | None = Field(default=None, min_length=1, max_length=200)


def register(app: Any, served: "Served", caller: Any) -> None:
    """Add the query routes to `app`."""
    from fastapi import Depends, Query
    from fastapi import Path as PathParam

    from .served import need

    lib = served.lib
    read = Depends(need(caller, Scope.READ))
    write = Depends(need(caller, Scope.INGEST))
    operator = Depends(need(caller, Scope.OPERATOR))  # generations span every tenant
    text = Query(min_length=1, max_length=MAX_QUERY)

    @app.get("/search", tags=["retrieval"], summary="`pincite search Q --json`: the evidence "
             "bundle", responses=returns(ref("EvidenceBundle")))
    def search(q: Annotated[str, text], p: Principal = read,
               k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
               as_of: Annotated[str | None, Query(max_length=64)] = None,
               source: Annotated[list[str] | None, Query(max_length=100)] = None,
               source_prefix: Annotated[str | None, Query(max_length=1024)] = None) -> Any:
        return contracts.search(lib, p, q, k=k, as_of=as_of, source=source or (),
                                source_prefix=source_prefix, releases=served.config.releases)

    @app.get("/ask", tags=["retrieval"], summary="`pincite ask Q --json`: passages with "
             "verified citations, or not_found", responses=returns(OBJECT))
    def ask(q: Annotated[str, text], p: Principal = read,
            as_of: Annotated[str | None, Query(max_length=64)] = None,
            min_confidence: Annotated[float, Query(ge=0.0, le=1.0)] = 0.0) -> Any:
        out = contracts.ask(lib, p, q, as_of=as_of, releases=served.config.releases,
                            min_confidence=min_confidence)
        served.metrics.count_unverified("/ask", [i.get("citation") or {} for i in out["items"]])
        return out

    @app.post("/extract", tags=["extraction"], summary="`pincite extract DOCS --schema S "
              "--json` (synchronous)", responses=returns(ref("RecordsDocument")))
    def extract(body: ExtractBody, p: Principal = write) -> Any:
        return contracts.extract(lib, p, body.schema_, body.docs, case_id=body.case_id)

    @app.get("/calibration", tags=["review"], summary="`pincite calibrate --json`",
             responses=returns(OBJECT))
    def calibration(p: Principal = read,
                    field: Annotated[str | None, Query(max_length=200)] = None) -> Any:
        return contracts.calibration(lib, p, field)

    @app.get("/generations", tags=["index"], summary="`pincite index list --json` (scope "
             "operator)", responses=returns(LIST))
    def generations(p: Principal = operator) -> Any:
        return contracts.generations(lib)

    @app.get("/generations/{gen_id}", tags=["index"], summary="`pincite index show GEN "
             "--json` (scope operator; `published` names the published one)",
             responses=returns(OBJECT))
    def generation(gen_id: Annotated[str, PathParam(max_length=64)], p: Principal = operator,
                   check: bool = False) -> Any:
        return contracts.generation(lib, None if gen_id == "published" else gen_id,
                                    check=check)
