"""Fit ranking ("Erario"): a company profile against the caller's visible calls, each
result a score with cited parts beside a link to the official record, labelled a
prioritisation signal — never an eligibility decision."""
