"""Workbook fill (seed 003): a target spreadsheet filled from source documents, cell by
cited cell; ambiguity stops a write; coverage shows what the sources held and the fill left.

- `labels`    synonym classes (EN/ES), label and path similarity, periods
- `target`    compile the target workbook into tables of cells to fill
- `fact_universe` the fact universe of the sources, read with the principal's authorization
- `route`     tables before cells: RRF over filters, BM25 and vectors
- `align`     target rows/columns to source rows/columns
- `convert`   a fact's value in the target's unit and scale
- `rank`      candidates per cell with score parts and margin; the write-or-stop rule
- `program`   deterministic writes and `validate_write`
- `fallback`  the gated model fallback for unresolved cells
- `coverage`  coverage obligations and marks
- `output`    the filled copy, audit.json, report.html
- `trace`     OpenTelemetry spans as JSON lines
- `solve`     the stages in order, with checkpoints
"""
