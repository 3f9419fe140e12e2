"""Citations: locate an offset, compare texts in one versioned form, resolve a `DOC`
argument for a principal, and make and check provenance entries without a model.

- `compare`   the comparison form, versioned (`comparison_form`, `same_text`, `FoldedText`)
- `tokens`    token boundaries: where a verified quote may start and end
- `match`     finding a quote in a layer, tier by tier (`QuoteFinder`)
- `locate`    structural locators: which element an offset of a text layer belongs to
- `resolve`   a document argument → a revision the principal may read (else NotFound)
- `verifier`  `Verifier.cite` / `Verifier.verify`: hash, offsets, quote, boundaries,
              locator, geometry
"""
