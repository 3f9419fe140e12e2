"""Schemathesis hooks for `test_schemathesis.py`: a check that no response to one
tenant's key carries a token that only the other tenant holds — its documents' text and
digests, its fill ids and run ids (a token the request itself sent is an echo, not a
leak). A response that is a ZIP (a filled workbook, `GET /fills/{id}/files/{name}`) is
read member by member, so a token inside compressed sheet XML is seen too.
`$PINCITE_ST_FOREIGN` maps each key to the tokens foreign to it."""

from __future__ import annotations

import io
import json
import os
import zipfile

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
    body = _text(response.content or b"")
    for token in _FOREIGN.get(key, ()):
        if token in body and token not in sent:
            raise AssertionError(f"a response to tenant key {key[:16]}… carries the other "
                                 f"tenant's token {token!r}")


def _text(content: bytes) -> str:
    """Return a response body as text; a ZIP's members' text after its own bytes."""
    text = content.decode("utf-8", "replace")
    if content.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as z:
                text += "".join(z.read(n).decode("utf-8", "replace") for n in z.namelist()
                                if z.getinfo(n).file_size < 50_000_000)
        except zipfile.BadZipFile:
            pass
    return text
