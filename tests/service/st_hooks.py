"""Schemathesis hooks for `test_schemathesis.py`: a check that no response to one
tenant's key carries a token that only the other tenant's documents hold (a token the
request itself sent is an echo, not a leak). `$PINCITE_ST_FOREIGN` maps each key to the
tokens foreign to it."""

from __future__ import annotations

import json
import os

import schemathesis

_FOREIGN: dict[str, list[str]] = json.loads(os.environ.get("PINCITE_ST_FOREIGN", "{}"))


@schemathesis.check
def no_foreign_tenant_tokens(ctx, response, case):  # type: ignore[no-untyped-def]
    """Fail when a response carries a token of the other tenant that the request lacked."""
    auth = response.request.headers.get("Authorization") or ""
    key = auth.removeprefix("Bearer ").strip()
    sent = (str(response.request.url) + (response.request.body or b"").decode(
        "utf-8", "replace") if isinstance(response.request.body, bytes)
        else str(response.request.url) + str(response.request.body or ""))
    body = response.content.decode("utf-8", "replace") if response.content else ""
    for token in _FOREIGN.get(key, ()):
        if token in body and token not in sent:
            raise AssertionError(f"a response to tenant key {key[:16]}… carries the other "
                                 f"tenant's token {token!r}")
