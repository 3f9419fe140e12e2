"""Evaluations on real data (`pincite eval …`), one module per dataset: `cuad`,
`fidelity` (CUAD text layer), `icdar`, `tatqa`, `scifact`, `bipia`, `robustness`."""
