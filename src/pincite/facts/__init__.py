"""Atomic facts: the smallest things that can support a written value.

- `atomic`     table cells and typed values in prose, with row/column/section paths
- `canonical`  canonical tables read back from a text layer (caption, unit, header paths)
"""
