"""A search on PostgreSQL reads inside the principal's row-level wall: the one transaction
that holds its reads names the principal's tenant (`pincite.tenant`), never every tenant,
so a statement that forgot its `WHERE tenant` would still see only that tenant's rows."""

from __future__ import annotations

from typing import Any

import pincite
from pincite.model import Principal
from pincite.store.postgres import pg_backend
from tests.corpus import EMB, TERMS_EN, add, doc_ids, publish


def test_a_search_holds_its_reads_in_the_principals_wall(pg_server, monkeypatch):
    with pincite.open(pg_server.fresh_database(), create=True) as lib:
        add(lib, "terms.md", TERMS_EN, tenant="acme")
        add(lib, "other.md", TERMS_EN, tenant="globex")
        publish(lib)
        real = pg_backend.transaction
        outer: list[str] = []

        def spy(conn: Any, tenant: str = "*", **kw: Any) -> Any:
            if conn.info.transaction_status == 0:  # IDLE: this call opens the transaction
                outer.append(tenant)
            return real(conn, tenant, **kw)

        monkeypatch.setattr(pg_backend, "transaction", spy)
        bundle = lib.search(Principal.parse("acme:ana:legal"), "governing law", embedder=EMB)
        assert doc_ids(bundle) and set(doc_ids(bundle)) == {"terms.md@r1"}
        assert outer and set(outer) == {"acme"}, outer
