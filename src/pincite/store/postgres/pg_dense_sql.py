"""SQL of the dense channel on PostgreSQL: a generation's vectors in `gen_vectors`, one
HNSW index per generation, and the candidate queries that carry the authorized universe.

The vectors column is `vector` without a dimension (generations of different spaces
share the table), so each generation's index is a partial expression index on its own
rows, cast to its dimension: `USING hnsw ((embedding::vector(D)) vector_ip_ops) WHERE
gen_id = '<gen>'`. A query reaches it by the same expression and the generation id as a
literal (checked against `g[0-9]{6}`: it becomes SQL). Inner product (`<#>`, the negative
of it) is the similarity the embedded backend scores with (`vectors @ query`, float32).

- `sql_dense_index`: ORDER BY the indexed expression, LIMIT k, with the universe's
  predicate as the scan's filter; run with `hnsw.iterative_scan` on, so a selective
  filter makes the index scan go on past `hnsw.ef_search` until k rows of U are found
  (or `hnsw.max_scan_tuples` is reached).
- `sql_dense_exact`: the rows of U (the ords that the universe's own statement,
  `pg_universe_sql.sql_authorized`, returned) scored without the indexed expression, so
  the planner cannot use the graph: every row of U is scored, and every row tied with
  the k-th best is returned (the caller breaks ties by chunk id, as SQLite does).
"""

from __future__ import annotations

import re
from typing import Any

from ..index_records import AuthScope
from .pg_universe_sql import auth_conditions

GEN_ID_RE = re.compile(r"g[0-9]{6}")  # whole string: fullmatch


def checked_gen(gen_id: str) -> str:
    """Return the generation id if it is one (it becomes SQL), else raise ValueError."""
    if not GEN_ID_RE.fullmatch(gen_id):
        raise ValueError(f"bad generation id {gen_id!r}")
    return gen_id


def index_name(gen_id: str) -> str:
    """Return the name of a generation's HNSW index."""
    return f"gen_vectors_hnsw_{checked_gen(gen_id)}"


def hnsw_ddl(gen_id: str, dimension: int, m: int, ef_construction: int) -> str:
    """The statement that builds a generation's HNSW index (inner product)."""
    return (f"CREATE INDEX {index_name(gen_id)} ON gen_vectors USING hnsw "
            f"((embedding::vector({int(dimension)})) vector_ip_ops) "
            f"WITH (m = {int(m)}, ef_construction = {int(ef_construction)}) "
            f"WHERE gen_id = '{checked_gen(gen_id)}'")


def hnsw_drop(gen_id: str) -> str:
    """The statement that drops a generation's HNSW index (if any)."""
    return f"DROP INDEX IF EXISTS {index_name(gen_id)}"


# `hnsw_ddl` and `hnsw_drop` as the owner runs them for the maintenance role (SECURITY
# DEFINER functions of `pg_security_sql`: the app and maintenance roles own no table)
SQL_HNSW_BUILD = "SELECT pincite_hnsw_build(%s, %s, %s, %s)"
SQL_HNSW_DROP = "SELECT pincite_hnsw_drop(%s)"
SQL_INDEX_VALID = ("SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
                   "WHERE c.relname = %s")
SQL_VECTORS_OF = "SELECT ord, vector_send(embedding) FROM gen_vectors WHERE gen_id=%s ORDER BY ord"
SQL_GATHER = ("SELECT array_agg(v.ord ORDER BY v.ord), "
              "string_agg(substring(vector_send(v.embedding) FROM 5), ''::bytea ORDER BY v.ord) "
              "FROM gen_vectors v JOIN unnest(%s::int[]) AS u(ord) ON u.ord = v.ord "
              "WHERE v.gen_id = %s AND v.tenant = %s")
SQL_HAS_VECTORS = "SELECT 1 FROM gen_vectors WHERE gen_id=%s AND tenant=%s LIMIT 1"
SQL_VECTOR_COUNT = "SELECT count(*) FROM gen_vectors WHERE gen_id=%s"
SQL_VECTORS_DELETE = "DELETE FROM gen_vectors WHERE gen_id=%s AND ord = ANY(%s)"
SQL_VECTORS_DROP = "DELETE FROM gen_vectors WHERE gen_id=%s"
SQL_VECTORS_INSERT = ("INSERT INTO gen_vectors (gen_id, ord, tenant, source_id, revision_id, "
                      "kind, lang, embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %b)")
SET_SCAN = ("SELECT set_config('hnsw.ef_search', %s, true), "
            "set_config('hnsw.iterative_scan', %s, true), "
            "set_config('hnsw.max_scan_tuples', %s, true)")


def sql_dense_index(scope: AuthScope, dimension: int, k: int, query: str
                    ) -> tuple[str, dict[str, Any]]:
    """(statement, parameters) of the HNSW candidates: (ord, similarity) of up to k rows."""
    where, params = auth_conditions("v", scope, lang_null=False, per_row=True)
    d = int(dimension)
    params.update(q=query, k=int(k))
    return (f"SELECT v.ord, -((v.embedding::vector({d})) <#> %(q)s::vector({d})) AS sim "
            f"FROM gen_vectors v WHERE v.gen_id = '{checked_gen(scope.gen_id)}' AND {where} "
            f"ORDER BY (v.embedding::vector({d})) <#> %(q)s::vector({d}) LIMIT %(k)s"), params


def sql_dense_exact(gen_id: str, tenant: str, ords: list[int], k: int, query: str
                    ) -> tuple[str, dict[str, Any]]:
    """(statement, parameters) of the exact candidates among U's rows (`ords`, from the
    universe's statement): (ord, similarity) of the k best and every row tied with the
    k-th."""
    params = {"q": query, "k": int(k), "gen": gen_id, "tenant": tenant, "ords": ords}
    return ("WITH scored AS MATERIALIZED (SELECT v.ord, -(v.embedding <#> %(q)s::vector) AS sim "
            "FROM gen_vectors v JOIN unnest(%(ords)s::int[]) AS u(ord) ON u.ord = v.ord "
            "WHERE v.gen_id = %(gen)s AND v.tenant = %(tenant)s), "
            "cut AS (SELECT sim FROM scored ORDER BY sim DESC LIMIT 1 OFFSET %(k)s - 1) "
            "SELECT ord, sim FROM scored WHERE sim >= coalesce((SELECT sim FROM cut), '-Infinity') "
            "ORDER BY sim DESC, ord"), params
