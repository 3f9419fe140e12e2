"""OIDC / JWT bearer tokens: signature by a key of the issuer's JWKS, issuer, audience,
expiry; claims mapped to tenant, user, groups and scopes by configuration.

The configuration is a JSON file (`pincite serve --oidc FILE`):

    {"issuer": "https://id.example.com/", "audience": "pincite",
     "jwks_file": "jwks.json",                      # or "jwks_url": "https://…/jwks.json"
     "claims": {"tenant": "tenant", "user": "sub", "groups": "groups", "scopes": "scope"},
     "algorithms": ["RS256", "ES256"], "leeway_seconds": 30}

Only asymmetric algorithms are accepted (never `none`, never HS*: a shared secret in the
JWKS would let anyone who reads it mint tokens). A token whose tenant or user claim is
missing or not a valid name does not authenticate. The keys of a `jwks_url` are cached
and refreshed in the background, an unknown `kid` fetching at most once per interval
(`jwks_cache`): no token makes a request wait on the issuer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import MissingExtra, Unauthenticated, UsageError
from ..model.names import check_name
from .jwks_cache import JwksCache
from .scopes import Caller, Scope

_ASYMMETRIC = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                         "ES256", "ES384", "ES512", "EdDSA"})
_DEFAULT_CLAIMS = {"tenant": "tenant", "user": "sub", "groups": "groups", "scopes": "scope"}


@dataclass
class OidcVerifier:
    """Verifies bearer JWTs of one issuer."""

    issuer: str
    audience: str
    jwks: dict[str, Any] | None = None
    jwks_url: str | None = None
    claims: dict[str, str] = field(default_factory=lambda: dict(_DEFAULT_CLAIMS))
    algorithms: tuple[str, ...] = ("RS256", "ES256")
    leeway_seconds: float = 30.0
    keys: JwksCache | None = field(default=None, repr=False, compare=False)  # of jwks_url

    def __post_init__(self) -> None:
        if self.jwks is None and self.jwks_url and self.keys is None:
            self.keys = JwksCache(str(self.jwks_url))

    @classmethod
    def from_file(cls, path: str | Path) -> OidcVerifier:
        """Return the verifier configured by a JSON file (see the module docstring)."""
        p = Path(path)
        try:
            from ..limits import load_guarded  # size, depth, finite numbers

            cfg = load_guarded(p.read_bytes(), p.name, max_bytes=1 << 20, max_depth=16,
                               syntax="json")
            issuer, audience = str(cfg["issuer"]), str(cfg["audience"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"the OIDC configuration {p} is not usable ({exc}); give a JSON "
                             "object with issuer, audience and jwks_file or jwks_url") from None
        jwks = None
        if cfg.get("jwks_file"):
            jf = (p.parent / cfg["jwks_file"]) if not Path(cfg["jwks_file"]).is_absolute() \
                else Path(cfg["jwks_file"])
            try:
                jwks = load_guarded(jf.read_bytes(), jf.name, max_bytes=1 << 20, max_depth=16,
                                    syntax="json")
            except (OSError, ValueError) as exc:
                raise UsageError(f"the JWKS file {jf} cannot be read ({exc})") from None
        elif not cfg.get("jwks_url"):
            raise UsageError(f"{p}: give jwks_file or jwks_url")
        algs = tuple(cfg.get("algorithms") or ("RS256", "ES256"))
        bad = [a for a in algs if a not in _ASYMMETRIC]
        if bad:
            raise UsageError(f"{p}: algorithm {bad[0]!r} is refused; use an asymmetric one "
                             f"({', '.join(sorted(_ASYMMETRIC))})")
        return cls(issuer, audience, jwks=jwks, jwks_url=cfg.get("jwks_url"),
                   claims={**_DEFAULT_CLAIMS, **(cfg.get("claims") or {})}, algorithms=algs,
                   leeway_seconds=float(cfg.get("leeway_seconds", 30)))

    def _key(self, token: str) -> Any:
        try:
            import jwt
        except ImportError:  # pragma: no cover - depends on the install
            raise MissingExtra("pyjwt", "service") from None
        header = jwt.get_unverified_header(token)
        if self.jwks is not None:
            keys = jwt.PyJWKSet.from_dict(self.jwks).keys
            kid = header.get("kid")
            match = [k for k in keys if kid is None or k.key_id == kid]
            if not match:
                raise Unauthenticated("no key of the issuer signs this token")
            return match[0].key
        if self.keys is None:
            raise Unauthenticated("no key set is configured for the issuer")
        kid = header.get("kid")
        return self.keys.signing_key(kid if isinstance(kid, str) else None)

    def authenticate(self, token: str) -> Caller:
        """Return the caller a token names; raise Unauthenticated if it does not verify."""
        import jwt

        try:
            claims = jwt.decode(token, self._key(token), algorithms=list(self.algorithms),
                                audience=self.audience, issuer=self.issuer,
                                leeway=self.leeway_seconds,
                                options={"require": ["exp", "iss", "aud"]})
        except Unauthenticated:
            raise
        except (jwt.PyJWTError, ValueError, TypeError):
            raise Unauthenticated("the token does not verify") from None
        try:
            tenant = check_name("tenant", claims[self.claims["tenant"]])
            user = check_name("user", claims[self.claims["user"]])
            groups_raw = claims.get(self.claims["groups"]) or []
            groups = [check_name("group", g) for g in
                      (groups_raw.split() if isinstance(groups_raw, str) else groups_raw)]
        except (KeyError, UsageError, TypeError):
            raise Unauthenticated("the token lacks a valid tenant or user claim") from None
        raw = claims.get(self.claims["scopes"]) or ""
        names = raw.split() if isinstance(raw, str) else list(raw)
        scopes = [Scope(n) for n in names if n in Scope._value2member_map_]
        return Caller.of(tenant, user, groups, scopes, via=f"jwt:{self.issuer}")
