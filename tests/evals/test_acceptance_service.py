"""The service's acceptance groups (TOKEN DOS, MCP SCOPES, SESSIONS, FAIRNESS) pass at the
tiny size, and each catches a leak planted in the code it watches — so none can pass
vacuously."""

from __future__ import annotations

from typing import Any

from pincite.errors import Unauthenticated
from pincite.evals.acceptance import fairness, mcp_scopes, sessions, token_dos
from tests.evals.test_acceptance import _bad, _run

GROUPS = (token_dos.run_token_dos, mcp_scopes.run_mcp_scopes, sessions.run_sessions,
          fairness.run_fairness)


def test_the_service_groups_are_clean_without_a_plant():
    for group in GROUPS:
        got = _run(group)
        assert got and all(tried > 0 and bad == 0 for tried, bad in got.values()), (group, got)


def test_token_dos_sees_the_key_set_fetched_per_token_and_no_lockout(monkeypatch):
    from pincite.service import jwks_cache
    from pincite.service.lockout import Lockout

    def fetched_every_time(self: Any, kid: str | None) -> Any:  # the old path, on the loop
        keys = jwks_cache._parse(self.fetch(self.url, self.timeout, self.max_bytes))
        if kid not in keys:
            raise Unauthenticated("no key of the issuer signs this token")
        return keys[kid]

    monkeypatch.setattr(jwks_cache.JwksCache, "signing_key", fetched_every_time)
    monkeypatch.setattr(Lockout, "check", lambda self, client: None)
    got = _run(token_dos.run_token_dos)
    for name in (token_dos.F_FETCHES, token_dos.F_STALLED, token_dos.F_LOCKOUT):
        assert _bad(got, name) > 0, name
    assert _bad(got, token_dos.F_FORGED) == 0  # slow and hammered, but never fooled


def test_mcp_scopes_sees_tools_run_with_the_server_key_and_no_gate(monkeypatch):
    from pincite.service import mcp_tools

    monkeypatch.setattr(mcp_tools, "caller_of_call",
                        lambda auth, credential, ctx: lambda: auth.credential(credential))
    monkeypatch.setattr(mcp_tools, "bearer_gate", lambda app, auth, caller: app)
    got = _run(mcp_scopes.run_mcp_scopes)
    assert _bad(got, mcp_scopes.F_REFUSED) > 0 and _bad(got, mcp_scopes.F_CROSS) > 0
    assert _bad(got, mcp_scopes.F_OWN) == 0


def test_sessions_see_a_session_that_keeps_its_first_check(monkeypatch):
    from pincite.service.signin import Sessions

    real = Sessions.caller_async
    first: dict[str | None, Any] = {}

    async def remembered(self: Any, session: str | None) -> Any:
        if session not in first:
            first[session] = await real(self, session)
        return first[session]

    monkeypatch.setattr(Sessions, "caller_async", remembered)
    got = _run(sessions.run_sessions)
    assert _bad(got, sessions.F_REVOKED) > 0 and _bad(got, sessions.F_EXPIRED) > 0
    assert _bad(got, sessions.F_LIVE) == 0


def test_fairness_sees_a_tenant_holding_every_thread_and_an_unlimited_page(monkeypatch):
    from pincite.service import server

    monkeypatch.setattr(server, "tenant_share", lambda config: 10_000)
    monkeypatch.setattr(server, "is_review_page", lambda path: False)
    got = _run(fairness.run_fairness)
    assert _bad(got, fairness.F_P95) > 0 and _bad(got, fairness.F_UI) > 0
    assert _bad(got, fairness.F_FAILED) == 0
