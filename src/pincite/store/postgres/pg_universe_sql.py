"""SQL of the authorized universe on PostgreSQL: the predicate every candidate query
carries inside itself.

    U(q, s, t, g) = { c in generation g | c.tenant = s.tenant, the source ACL grants one
                      of s's entries, the revision is valid at t (the current one when
                      t is None), no tombstone covers the revision, c passes the filters }

`auth_conditions(alias, scope)` returns that predicate over a row alias that has the
columns tenant, source_id, revision_id, kind and lang (a chunk row, or a `gen_vectors`
row, which carries them so the dense query needs no join to chunks) and its parameters.
Only the filters a scope sets are written into the statement (the statements are
chosen from a fixed set; every value is a bound parameter). Text is compared with the
"C" collation, as SQLite compares it.
"""

from __future__ import annotations

from typing import Any

from ..index_records import AuthScope

_ACL = ("EXISTS (SELECT 1 FROM acl_entries e WHERE e.tenant = {a}.tenant "
        "AND e.source_id = {a}.source_id AND e.entry = ANY(%(entries)s){offset})")
_REVISION = ("EXISTS (SELECT 1 FROM revisions r WHERE r.tenant = {a}.tenant "
             "AND r.source_id = {a}.source_id AND r.revision_id = {a}.revision_id AND {valid}{media}"
             " AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant = r.tenant "
             "AND t.source_id = r.source_id AND t.through_seq >= r.seq){offset})")
_NOW = "r.valid_to IS NULL"
_AS_OF = ('r.valid_from COLLATE "C" <= %(as_of)s AND (r.valid_to IS NULL '
          'OR r.valid_to COLLATE "C" > %(as_of)s)')


def auth_conditions(alias: str, scope: AuthScope, *, lang_null: bool = True,
                    per_row: bool = False) -> tuple[str, dict[str, Any]]:
    """Return (SQL predicate over `alias`, its parameters) of the scope's universe;
    `lang_null` says the alias's lang may be NULL (chunks) rather than '' (vectors).
    `per_row` keeps each EXISTS a correlated subplan (`OFFSET 0` stops the planner from
    turning it into a join), so it is a filter of the scan that produces the rows: an
    HNSW index scan stays the plan's driving node and checks every row it yields."""
    offset = " OFFSET 0" if per_row else ""
    params: dict[str, Any] = {"tenant": scope.tenant, "entries": list(scope.entries)}
    media = ""
    if scope.media_types is not None:
        media = " AND r.media_type = ANY(%(media)s)"
        params["media"] = list(scope.media_types)
    if scope.as_of is None:
        valid = _NOW
    else:
        valid = _AS_OF
        params["as_of"] = scope.as_of
    conds = [f"{alias}.tenant = %(tenant)s", _ACL.format(a=alias, offset=offset),
             _REVISION.format(a=alias, valid=valid, media=media, offset=offset)]
    if scope.source_ids is not None:
        conds.append(f"{alias}.source_id = ANY(%(sources)s)")
        params["sources"] = list(scope.source_ids)
    if scope.source_prefix is not None:
        conds.append(f"starts_with({alias}.source_id, %(prefix)s)")
        params["prefix"] = scope.source_prefix
    if scope.kinds is not None:
        conds.append(f"{alias}.kind = ANY(%(kinds)s)")
        params["kinds"] = list(scope.kinds)
    if scope.langs is not None:
        lang = f"coalesce({alias}.lang, '')" if lang_null else f"{alias}.lang"
        conds.append(f"{lang} = ANY(%(langs)s)")
        params["langs"] = list(scope.langs)
    return " AND ".join(conds), params


def sql_authorized(scope: AuthScope) -> tuple[str, dict[str, Any]]:
    """The universe's rows (ord, ntok, chunk_id) by ord, in one statement."""
    where, params = auth_conditions("c", scope)
    params["gen"] = scope.gen_id
    return ("SELECT gc.ord, gc.ntok, gc.chunk_id FROM generation_chunks gc "
            "JOIN chunks c ON c.chunk_id = gc.chunk_id "
            f"WHERE gc.gen_id = %(gen)s AND gc.tenant = %(tenant)s AND {where} "
            "ORDER BY gc.ord"), params


def sql_postings(scope: AuthScope, terms: list[str]) -> tuple[str, dict[str, Any]]:
    """Postings (term, ord, tf) of `terms` restricted to the universe inside the same
    statement, from the bodies split in SQL: the reference the packed postings are
    checked against (tests); it reads every body of the generation, never on a query."""
    where, params = auth_conditions("c", scope)
    params.update(gen=scope.gen_id, terms=list(terms))
    return ("WITH p AS (SELECT tok AS term, l.ord, count(*) AS tf FROM gen_lex l "
            "CROSS JOIN LATERAL unnest(string_to_array(l.body, ' ')) AS tok "
            "WHERE l.gen_id = %(gen)s AND tok = ANY(%(terms)s) GROUP BY tok, l.ord) "
            "SELECT p.term, p.ord, p.tf FROM p JOIN generation_chunks gc "
            "ON gc.gen_id = %(gen)s AND gc.ord = p.ord JOIN chunks c ON c.chunk_id = gc.chunk_id "
            f"WHERE {where}"), params
