"""`eval cuad --folds`: fit beside held-out figures per document fold, and SHOW thresholds
chosen on the fit folds only, measured on the held-out fold (`evals.cuad_folds`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pincite.errors import UsageError
from pincite.evals.cuad_folds import _choose, _redecide, fold_figures, refit_tau_show
from pincite.evals.folds import fold_of


@dataclass(frozen=True)
class P:
    """The part of a scored pair the refit reads."""

    file: str
    category: str
    outcome: str
    confidence: float
    ok: bool
    reason: str | None = "above_tau_show"
    tau_flag: float = 0.3
    tau_show: float = 0.5

    def right(self) -> bool:
        return self.ok


def _counts(ps) -> dict[str, int]:
    return {"show": sum(p.outcome == "show" for p in ps),
            "show_right": sum(p.outcome == "show" and p.ok for p in ps),
            "abstain": 0, "abstain_right": 0, "gold_clauses": len(ps),
            "clauses_covered": sum(p.outcome in ("show", "flag") and p.ok for p in ps)}


def test_redecide_touches_only_what_thresholds_decided():
    p = P("a.pdf", "Parties", "show", 0.6, True)
    assert _redecide(p, 0.7).outcome == "flag" and _redecide(p, 0.5).outcome == "show"
    assert _redecide(P("a.pdf", "Parties", "show", 0.2, True), 0.7).outcome == "review"
    fixed = P("a.pdf", "Parties", "review", 0.99, True, reason="unverified_citation")
    assert _redecide(fixed, 0.3).outcome == "review"


def test_choose_is_the_lowest_threshold_reaching_the_goal_on_enough_shows():
    right = [P(f"d{i}.pdf", "Parties", "show", 0.9, True) for i in range(6)]
    wrong = [P("w.pdf", "Parties", "show", 0.5, False)]
    assert _choose(right + wrong) == 0.55  # the wrong one (0.5) falls below it
    assert _choose(right[:4]) == 1.01      # four SHOWs are not evidence enough
    never = [P(f"d{i}.pdf", "Audit Rights", "flag", 0.9, True, tau_show=1.0) for i in range(9)]
    assert _choose(never) == 1.01          # the schema does not let the category SHOW


def test_refit_measures_each_fold_with_thresholds_chosen_without_it():
    files = [f"c{i:02d}.pdf" for i in range(20)]
    held = [f for f in files if fold_of(f, 2) == 0]
    # right at 0.9 everywhere; in the held-out fold 0, one wrong record at 0.6 that the fit
    # fold (all right) cannot see: it is shown held out, so the held-out figure counts it
    pairs = [P(f, "Parties", "show", 0.9, True) for f in files]
    pairs.append(P(held[0], "Parties", "show", 0.6, False))
    out = refit_tau_show(pairs, 2, _counts)
    assert out["tau_show_per_fold"]["Parties"][0] == 0.3
    assert out["show_precision"]["counts"] == [20, 21]
    assert out["tau_show_all_dev"]["Parties"] == 0.65


def test_fold_figures_pool_every_document_once_and_refuse_bad_k():
    per_doc = {f"c{i}.pdf": {"show": 2, "show_right": 2 - (i == 3), "abstain": 1,
                             "abstain_right": 1, "gold_clauses": 4, "clauses_covered": 2}
               for i in range(6)}
    out = fold_figures(per_doc, 3, {"Parties": per_doc})
    sp = out["figures"]["show_precision"]["pooled"]
    assert sp["held_out_counts"] == [11, 12] and sp["held_out"] == round(11 / 12, 4)
    assert sp["wilson95"][0] < 11 / 12 < sp["wilson95"][1]
    assert out["categories"]["Parties"]["show"] == 12
    for k in (1, 7, 2.5, float("nan")):
        with pytest.raises(UsageError):
            fold_figures(per_doc, k, {})  # type: ignore[arg-type]
