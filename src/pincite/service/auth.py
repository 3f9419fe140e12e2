"""Authentication: `Authorization: Bearer <key or JWT>` → a `Caller`, never anything else.

The principal comes only from a verified credential: an API key of the keys file, or a
JWT of the configured issuer. No header, body field or query parameter names a tenant or
user. A key (`pck_…`) is looked up in the keys file; anything else is tried as a JWT when
an issuer is configured.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Unauthenticated
from .keyring import KEY_PREFIX, KeyRing
from .oidc import OidcVerifier
from .scopes import Caller

MAX_CREDENTIAL = 8192


@dataclass
class Authenticator:
    """Checks the credentials a request presents."""

    keys: KeyRing | None = None
    oidc: OidcVerifier | None = None

    def bearer(self, authorization: str | None) -> Caller:
        """Return the caller of an `Authorization` header; raise Unauthenticated."""
        if not authorization:
            raise Unauthenticated()
        scheme, _, credential = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise Unauthenticated("use the Bearer scheme")
        return self.credential(credential.strip())

    def credential(self, credential: str) -> Caller:
        """Return the caller of a key or token; raise Unauthenticated."""
        if len(credential) > MAX_CREDENTIAL or not credential.isascii():
            raise Unauthenticated()
        if credential.startswith(KEY_PREFIX):
            if self.keys is None:
                raise Unauthenticated("no keys are configured")
            e = self.keys.authenticate(credential)
            return Caller.of(e.tenant, e.user, e.groups, e.scopes, via=f"key:{e.key_id}")
        if self.oidc is None:
            raise Unauthenticated()
        return self.oidc.authenticate(credential)
