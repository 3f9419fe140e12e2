"""Small thread-safe LRU maps over `cachetools.LRUCache`: `LRU` (keyed by anything,
counting hits and misses) and `FileCache`, objects opened from files (mapped vectors, ANN
graphs) keyed by the file's path and identity (mtime, size, and whatever else the caller
adds), so a file replaced by rename is opened afresh.

cachetools does the ordering and eviction; this module adds the lock (cachetools caches
are not thread-safe) and the counters the retrieval tests and benchmarks read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from cachetools import LRUCache


class LRU:
    """A thread-safe LRU map of at most `size` entries that counts hits and misses."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: LRUCache[Hashable, Any] = LRUCache(maxsize=size)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Any:
        """Return the value of `key` (now the most recently used), or None."""
        with self._lock:
            v = self._d.get(key)
            if v is None:
                self.misses += 1
                return None
            self.hits += 1
            return v

    def put(self, key: Hashable, value: Any) -> None:
        """Keep `value` under `key`, evicting the least recently used entry when full."""
        with self._lock:
            self._d[key] = value

    def keys(self) -> list[Hashable]:
        """Return the keys held."""
        with self._lock:
            return list(self._d)

    def discard(self, key: Hashable) -> None:
        """Drop `key` if it is there."""
        with self._lock:
            self._d.pop(key, None)

    def clear(self) -> None:
        """Drop every entry (the counters stay)."""
        with self._lock:
            self._d.clear()


class FileCache:
    """At most `size` opened files; `get` opens a missing one with `load` (outside the lock)."""

    def __init__(self, size: int) -> None:
        self._lru = LRU(size)

    def get(self, path: Path, identity: Hashable, load: Callable[[], Any]) -> Any:
        """Return the cached object of `path` with this identity, or `load()` and keep it."""
        key = (str(path), identity)
        found = self._lru.get(key)
        if found is None:
            found = load()
            self._lru.put(key, found)
        return found

    def forget(self, path: Path) -> None:
        """Drop every cached object of `path`."""
        for key in self._lru.keys():
            if key[0] == str(path):  # type: ignore[index]
                self._lru.discard(key)

    def forget_dir(self, directory: Path) -> None:
        """Drop every cached object of a file in `directory`."""
        for key in self._lru.keys():
            if Path(key[0]).parent == directory:  # type: ignore[index]
                self._lru.discard(key)
