"""A small LRU of objects opened from files (mapped vectors, ANN graphs), keyed by the
file's path and identity (mtime, size, and whatever else the caller adds), so a file
replaced by rename is opened afresh."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any


class FileCache:
    """At most `size` opened files; `get` opens a missing one with `load` (outside the lock)."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[tuple[str, Hashable], Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, path: Path, identity: Hashable, load: Callable[[], Any]) -> Any:
        """Return the cached object of `path` with this identity, or `load()` and keep it."""
        key = (str(path), identity)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        obj = load()
        with self._lock:
            self._items[key] = obj
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return obj

    def forget(self, path: Path) -> None:
        """Drop every cached object of `path`."""
        with self._lock:
            for key in [k for k in self._items if k[0] == str(path)]:
                del self._items[key]

    def forget_dir(self, directory: Path) -> None:
        """Drop every cached object of a file in `directory`."""
        with self._lock:
            for key in [k for k in self._items if Path(k[0]).parent == directory]:
                del self._items[key]
