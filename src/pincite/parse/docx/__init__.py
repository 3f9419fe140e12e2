"""DOCX → text layer: python-docx opens the package, a walk over the body XML reads it.

`body` is the parser (`PARSER`, `VERSION`, `parse`); `styles` resolves heading levels and
numbering, `xml_parts` holds the namespaced XML helpers.
"""
