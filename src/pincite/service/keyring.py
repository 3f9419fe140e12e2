"""API keys: made once, shown once, kept only as a hash, per tenant with scopes.

A key reads `pck_<key id>_<secret>`: the key id (12 hex digits) finds the entry, the
secret (32 random bytes, URL-safe base64) is compared by its SHA-256 in constant time. A
hash that is not slow is enough here: the secret is 256 random bits, not a password.

Where the entries live: a JSON file (`keys.json` in a directory store, or the path given
with `--keys` / `$PINCITE_KEYS`), written whole to a temporary file, fsynced and renamed
over the old one, mode 0600. Why a file and not a table: keys are the service's
configuration (like the JWKS file beside them), not tenant data; the file needs no
migration of either store backend, works the same beside a PostgreSQL store, and is read
again whenever its modification time changes, so `pincite keys revoke` takes effect on
the next request of a running server.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import NotFound, Unauthenticated, UsageError
from ..limits import load_guarded, read_capped
from ..model import Principal
from .scopes import Scope, parse_scopes

KEY_PREFIX = "pck_"
KEYS_FILENAME = "keys.json"
MAX_KEYS_BYTES = 16 * 1024 * 1024  # some 40,000 keys
_ID_HEX = 12


@dataclass(frozen=True)
class KeyEntry:
    """One stored key: who it acts as, what it may do, and the hash of its secret."""

    key_id: str
    tenant: str
    user: str
    groups: tuple[str, ...]
    scopes: tuple[Scope, ...]
    secret_sha256: str
    created_at: str
    revoked_at: str | None = None
    note: str = ""

    def public(self) -> dict[str, Any]:
        """Return the entry as `keys list --json` prints it (never the hash)."""
        return {"key_id": self.key_id, "tenant": self.tenant, "user": self.user,
                "groups": list(self.groups), "scopes": [s.value for s in self.scopes],
                "created_at": self.created_at, "revoked_at": self.revoked_at, "note": self.note}

    def to_json(self) -> dict[str, Any]:
        """Return the entry as the keys file stores it."""
        return {**self.public(), "secret_sha256": self.secret_sha256}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> KeyEntry:
        """Return the entry of one object of the keys file."""
        return cls(key_id=str(d["key_id"]), tenant=str(d["tenant"]), user=str(d["user"]),
                   groups=tuple(d.get("groups") or ()),
                   scopes=parse_scopes(d.get("scopes") or ()),
                   secret_sha256=str(d["secret_sha256"]), created_at=str(d["created_at"]),
                   revoked_at=d.get("revoked_at"), note=str(d.get("note") or ""))


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


_TEXT_KEYS = ("key_id", "tenant", "user", "secret_sha256", "created_at")
_KNOWN_KEYS = frozenset({*_TEXT_KEYS, "groups", "scopes", "revoked_at", "note"})


def _key_objects(raw: Any, what: str) -> list[dict[str, Any]]:
    """Return the key objects of a loaded keys file; raise UsageError naming the first
    entry and sub-key that is missing, unknown or of the wrong type."""
    if not isinstance(raw, dict) or not isinstance(raw.get("keys", []), list):
        raise UsageError(f"{what}: not an object with a list of keys")
    extra = sorted(str(k) for k in raw if k not in ("schema_name", "version", "keys"))
    if extra:
        raise UsageError(f"{what}: unknown key {extra[0][:40]!r} (a keys file holds "
                         "schema_name, version and keys)")
    out = raw.get("keys", [])
    for i, d in enumerate(out):
        if not isinstance(d, dict):
            raise UsageError(f"{what}: keys[{i}] is not an object")
        bad = [k for k in _TEXT_KEYS if not isinstance(d.get(k), str)] \
            + [k for k in ("groups", "scopes") if not isinstance(d.get(k, []), list)
               or not all(isinstance(x, str) for x in d.get(k) or ())] \
            + [k for k in ("revoked_at", "note") if not isinstance(d.get(k), str | None)] \
            + sorted(str(k) for k in d if k not in _KNOWN_KEYS)
        if bad:
            raise UsageError(f"{what}: keys[{i}].{str(bad[0])[:40]} is missing, unknown or "
                             "of the wrong type")
    return out


def _reason(exc: Exception) -> str:
    return exc.message if isinstance(exc, UsageError) else str(exc)


@dataclass
class KeyRing:
    """The keys file: create, list, revoke, and authenticate a presented key."""

    path: Path
    _entries: dict[str, KeyEntry] = field(default_factory=dict)
    _mtime: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _load(self) -> dict[str, KeyEntry]:
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self._entries, self._mtime = {}, None
            return self._entries
        if mtime != self._mtime:
            what = self.path.name
            try:
                body = read_capped(self.path, max_bytes=MAX_KEYS_BYTES, refuse=UsageError,
                                   what="the keys file (keys.json)")
                raw = load_guarded(body, what, max_bytes=MAX_KEYS_BYTES, max_depth=8,
                                   syntax="json")
                entries = {d["key_id"]: KeyEntry.from_json(d) for d in _key_objects(raw, what)}
            except (OSError, ValueError, KeyError, TypeError, UsageError) as exc:
                raise UsageError(f"the keys file {self.path} cannot be read ({_reason(exc)}); "
                                 "restore it or move it away and create keys again") from None
            self._entries, self._mtime = entries, mtime
        return self._entries

    def _save(self, entries: dict[str, KeyEntry]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"schema_name": "pincite.keys", "version": 1,
                           "keys": [e.to_json() for e in entries.values()]}, indent=1)
        fd, tmp = tempfile.mkstemp(prefix=".keys-", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._mtime = None

    def create(self, principal: Principal, scopes: tuple[Scope, ...], note: str = ""
               ) -> tuple[str, KeyEntry]:
        """Store a new key for `principal` with `scopes`; return (the key, its entry). The
        key itself is not stored: this is the only time it is seen."""
        if not scopes:
            raise UsageError("give the key at least one --scope: "
                             + ", ".join(s.value for s in Scope))
        with self._lock:
            entries = dict(self._load())
            key_id = secrets.token_hex(_ID_HEX // 2)
            secret = secrets.token_urlsafe(32)
            entry = KeyEntry(key_id, principal.tenant, principal.subject, principal.groups,
                             scopes, _digest(secret),
                             datetime.now(UTC).isoformat(timespec="seconds"), note=note)
            entries[key_id] = entry
            self._save(entries)
        return f"{KEY_PREFIX}{key_id}_{secret}", entry

    def entries(self, tenant: str | None = None) -> list[KeyEntry]:
        """Return the stored keys (of `tenant`, when given), oldest first."""
        with self._lock:
            found = list(self._load().values())
        return sorted((e for e in found if tenant is None or e.tenant == tenant),
                      key=lambda e: (e.created_at, e.key_id))

    def revoke(self, key_id: str, tenant: str | None = None) -> KeyEntry:
        """Mark a key revoked (kept, for the record); return it. A key of another tenant
        than `tenant` is not found."""
        with self._lock:
            entries = dict(self._load())
            e = entries.get(key_id)
            if e is None or (tenant is not None and e.tenant != tenant):
                raise NotFound("key", key_id)
            if e.revoked_at is None:
                e = KeyEntry(**{**e.__dict__,
                                "revoked_at": datetime.now(UTC).isoformat(timespec="seconds")})
                entries[key_id] = e
                self._save(entries)
        return e

    def authenticate(self, presented: str) -> KeyEntry:
        """Return the live entry of a presented key; raise Unauthenticated otherwise."""
        if not presented.startswith(KEY_PREFIX):
            raise Unauthenticated("not an API key")
        key_id, _, secret = presented[len(KEY_PREFIX):].partition("_")
        with self._lock:
            e = self._load().get(key_id)
        expected = e.secret_sha256 if e is not None else "0" * 64
        ok = hmac.compare_digest(_digest(secret), expected)
        if e is None or not ok or e.revoked_at is not None:
            raise Unauthenticated()
        return e


def default_keys_path(store: str) -> Path:
    """Return where the keys file of a store lives: $PINCITE_KEYS, else `keys.json` in a
    directory store; a store URL needs $PINCITE_KEYS or --keys."""
    env = os.environ.get("PINCITE_KEYS")
    if env:
        return Path(env)
    if "://" in store:
        raise UsageError("a store URL has no directory for keys.json: give --keys PATH "
                         "(or set $PINCITE_KEYS)")
    return Path(store) / KEYS_FILENAME
