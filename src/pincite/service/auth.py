"""Authentication: `Authorization: Bearer <key or JWT>` → a `Caller`, never anything else.

The principal comes only from a verified credential: an API key of the keys file, or a
JWT of the configured issuer. No header, body field or query parameter names a tenant or
user. A key (`pck_…`) is looked up in the keys file; anything else is tried as a JWT when
an issuer is configured. On the event loop, `bearer_async` never waits on the network: a
token naming a key the issuer's cached key set lacks awaits the (rate-limited) refresh
that started in the background, then is checked once more (`jwks_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import KeysRefreshing, Unauthenticated
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

    async def bearer_async(self, authorization: str | None) -> Caller:
        """`bearer` for the event loop: a refresh of the issuer's keys is awaited, never
        blocked on; raise Unauthenticated."""
        try:
            return self.bearer(authorization)
        except KeysRefreshing as exc:
            await exc.cache.settled()
        return self.bearer(authorization)

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
