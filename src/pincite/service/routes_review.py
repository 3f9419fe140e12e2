"""Review routes: the queue as JSON (`pincite review … --json`): list, claim the next
item (`POST /review/next`), read one, decide, release; incidents and settings."""

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ..model import Principal
from ..vocab import ReviewDecision
from .openapi_doc import LIST, OBJECT, ref, returns
from .scopes import Scope

if TYPE_CHECKING:
    from .served import Served

ROW_ID_MAX = 2**63 - 1
MAX_LEASE = 7 * 86400.0


class DecideBody(BaseModel):
    """What `POST /review/items/{id}/decide` takes (`pincite review decide` as JSON)."""

    model_config = ConfigDict(extra="forbid")
    decision: ReviewDecision
    value: Any = None
    quote: str | None = Field(default=None, max_length=20_000)
    doc: str | None = Field(default=None, max_length=2000)
    not_stated: bool = False


class SettingsBody(BaseModel):
    """What `PUT /review/settings` takes; an absent value stays as it is."""

    model_config = ConfigDict(extra="forbid")
    audit_fraction: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    stamp_run: int | None = Field(default=None, ge=0, le=10_000)
    stamp_seconds: float | None = Field(default=None, ge=0, le=86400, allow_inf_nan=False)


def register(app: Any, served: "Served", caller: Any) -> None:
    """Add the review routes to `app`."""
    from fastapi import Depends, Query
    from fastapi import Path as PathParam

    from .served import need

    lib = served.lib
    review = Depends(need(caller, Scope.REVIEW))
    item_id_t = Annotated[int, PathParam(ge=1, le=ROW_ID_MAX)]
    count = served.metrics.review

    @app.get("/review/items", tags=["review"], summary="`pincite review list --json`",
             responses=returns(ref("ReviewItem", many=True)))
    def items(p: Principal = review,
              state: Annotated[str | None, Query(max_length=40)] = None,
              reason: Annotated[str | None, Query(max_length=40)] = None,
              field: Annotated[str | None, Query(max_length=200)] = None,
              mine: bool = False) -> Any:
        return lib.review_queue(p).items(state=state, reason=reason, field=field, mine=mine)

    @app.post("/review/next", tags=["review"], summary="`pincite review next`: claim the next "
              "item (null when none)", responses=returns(ref("ReviewItem", nullable=True)))
    def claim(p: Principal = review,
              lease: Annotated[float, Query(gt=0, le=MAX_LEASE, allow_inf_nan=False)] = 900.0,
              field: Annotated[str | None, Query(max_length=200)] = None) -> Any:
        count.labels("claim").inc()
        return lib.review_queue(p).next(lease=lease, field=field)

    @app.get("/review/items/{item_id}", tags=["review"], summary="One review item",
             responses=returns(ref("ReviewItem")))
    def item(item_id: item_id_t, p: Principal = review) -> Any:
        return lib.review_queue(p).item(item_id)

    @app.post("/review/items/{item_id}/decide", tags=["review"],
              summary="`pincite review decide ID --json`", responses=returns(OBJECT))
    def decide(item_id: item_id_t, body: DecideBody, p: Principal = review) -> Any:
        count.labels("decide").inc()
        return lib.review_queue(p).decide(item_id, body.decision.value, value=body.value,
                                          quote=body.quote, doc=body.doc,
                                          not_stated=body.not_stated)

    @app.post("/review/items/{item_id}/release", tags=["review"],
              summary="`pincite review release ID`", responses=returns(OBJECT))
    def release(item_id: item_id_t, p: Principal = review) -> Any:
        count.labels("release").inc()
        lib.review_queue(p).release(item_id)
        return {"released": item_id}

    @app.get("/review/incidents", tags=["review"], summary="`pincite review incidents --json`",
             responses=returns(LIST))
    def incidents(p: Principal = review) -> Any:
        return lib.review_queue(p).incidents()

    @app.post("/review/incidents/{incident_id}/clear", tags=["review"],
              summary="`pincite review incidents --clear ID --json` (role review:admin)",
              responses=returns(LIST))
    def clear(incident_id: Annotated[int, PathParam(ge=1, le=ROW_ID_MAX)],
              p: Principal = review) -> Any:
        q = lib.review_queue(p)
        q.clear_incident(incident_id)
        return q.incidents()

    @app.get("/review/settings", tags=["review"], summary="`pincite review settings --json`",
             responses=returns(OBJECT))
    def settings(p: Principal = review) -> Any:
        return lib.review_queue(p).settings().to_dict()

    @app.put("/review/settings", tags=["review"], summary="Change the review settings (role "
             "review:admin)", responses=returns(OBJECT))
    def set_settings(body: SettingsBody, p: Principal = review) -> Any:
        return lib.review_queue(p).set_settings(
            audit_fraction=body.audit_fraction, stamp_run=body.stamp_run,
            stamp_seconds=body.stamp_seconds).to_dict()
