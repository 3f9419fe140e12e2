"""The `pincite` command: one module per command group, shared options in `options`."""

from .app import app, main

__all__ = ["app", "main"]
