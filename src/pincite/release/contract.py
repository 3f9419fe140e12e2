"""The release contract: what a retrieval release must show before it may serve.

`pincite release freeze CONTRACT.yaml` checks a contract file and writes it, with its
digest, as the next version `contract-vN.json` of the releases folder. A contract names
the corpus boundary, the query classes with their labelled queries, the access policy
schema, the service levels (freshness, deletion), the metrics and their thresholds per
query class, the latency and cost budgets, the canary cohorts, the owner, who may approve,
and the rollback window and criteria. Every number must be finite and in range.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InvalidContract, UsageError
from ..limits import non_finite_path, read_yaml_file

CONTRACT_SCHEMA = "pincite.release_contract"
MAX_CONTRACT_BYTES = 256 * 1024
MAX_QUERIES = 2000



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LabelledQuery(_Strict):
    """One query of a class and the source ids that answer it ([] = nothing should)."""

    query: str = Field(min_length=1, max_length=2000)
    relevant: tuple[str, ...] = ()


class QueryClass(_Strict):
    """A class of queries the release must answer, with its thresholds."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    queries: tuple[LabelledQuery, ...] = Field(min_length=1, max_length=MAX_QUERIES)
    min_recall_at_k: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    min_mrr: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)


class Boundary(_Strict):
    """The corpus boundary: the tenants and source-id prefixes the release covers."""

    tenants: tuple[str, ...] = Field(min_length=1)
    source_prefixes: tuple[str, ...] = ()


class ServiceLevels(_Strict):
    """Freshness (commit → eligible result) and deletion (revocation → absence), seconds."""

    freshness_seconds: float = Field(gt=0, le=86400 * 30, allow_inf_nan=False)
    deletion_seconds: float = Field(gt=0, le=86400 * 30, allow_inf_nan=False)


class Budgets(_Strict):
    """Latency (95th percentile, ms) and cost (CPU ms per query) budgets."""

    latency_p95_ms: float = Field(gt=0, le=600_000, allow_inf_nan=False)
    cpu_ms_per_query: float = Field(gt=0, le=600_000, allow_inf_nan=False)


class Rollback(_Strict):
    """How long the last-known-good generation is kept, and what sends a release back."""

    window_hours: float = Field(gt=0, le=24 * 365, allow_inf_nan=False)
    criteria: tuple[str, ...] = Field(min_length=1)


class Contract(_Strict):
    """A frozen release contract (see the module docstring)."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    owner: str = Field(min_length=1, max_length=200)
    approvers: tuple[str, ...] = Field(min_length=1)
    principal: str = Field(description="TENANT:USER[:GROUPS] the labelled queries run as")
    outsider: str = Field(description="a principal of another tenant: it must see nothing")
    boundary: Boundary
    policy_schema: str
    k: int = Field(default=5, ge=1, le=100)
    query_classes: tuple[QueryClass, ...] = Field(min_length=1)
    service_levels: ServiceLevels
    budgets: Budgets
    cohorts: dict[str, tuple[str, ...]] = Field(min_length=1)
    rollback: Rollback



def contract_from_dict(data: Any, where: str) -> Contract:
    """Return the contract a mapping describes; raise InvalidContract naming the key."""
    from ..model import Principal

    if not isinstance(data, dict):
        raise InvalidContract(f"{where}: a contract is a mapping (name, owner, boundary, …)")
    bad = non_finite_path(data)
    if bad is not None:
        raise InvalidContract(f"{where}: {bad} must be a finite number (not nan or inf)")
    try:
        c = Contract.model_validate(data)
        for who in (c.principal, c.outsider, *(p for ps in c.cohorts.values() for p in ps)):
            Principal.parse(who)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise InvalidContract(f"{where}: {key}: {err['msg']}") from None
    except UsageError as exc:
        raise InvalidContract(f"{where}: {exc.message}") from None
    if Principal.parse(c.outsider).tenant in c.boundary.tenants:
        raise InvalidContract(f"{where}: outsider must be of a tenant outside the boundary")
    return c



def load_contract(path: str | Path) -> tuple[Contract, dict[str, Any]]:
    """Return (the contract in a YAML/JSON file, its data); raise InvalidContract."""
    data = read_yaml_file(path, max_bytes=MAX_CONTRACT_BYTES, refuse=InvalidContract,
                          what="a contract YAML file (see examples/calls/release-contract.yaml)")
    data = json.loads(json.dumps(data, default=str))  # dates as strings: JSON from here on
    return contract_from_dict(data, Path(path).name), data


def digest(data: Any) -> str:
    """Return the sha256 of a JSON value written canonically."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()
