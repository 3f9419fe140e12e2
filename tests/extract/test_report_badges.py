"""The dictamen's badges: each outcome has its own, and FLAG says it is flagged for a
person — never "verify", which the report uses for citations checked against the bytes."""

from __future__ import annotations

from pincite.extract.report import BADGES, render_report
from pincite.extract.run import run_extraction
from pincite.extract.schema import schema_from_dict
from pincite.vocab import Outcome

DOC = b"""# Terms

1. FEES

1.1 The annual fee is 450,000 EUR.

2. TERM

2.1 The payment term is 30 days.
"""
# thresholds set so that the fee is flagged and the term goes to review
SCHEMA = schema_from_dict({"name": "fees", "fields": [
    {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]},
     "tau_show": 0.999, "tau_flag": 0.1},
    {"name": "term", "type": "number", "synonyms": {"en": ["payment term"]},
     "tau_show": 0.999, "tau_flag": 0.998},
    {"name": "deposit", "type": "money", "synonyms": {"en": ["security deposit"]}},
]})


def _cell(html: str, field: str) -> str:
    return html.split(f'id="f-{field}"', 1)[1].split("</td>", 2)[1]


def test_a_flagged_field_has_its_own_badge(lib, ana):
    res = lib.ingest_bytes(DOC, source_id="fees.md", tenant="acme", acl=["group:legal"],
                           name="fees.md", sandbox=False)
    assert res.status == "new"
    run = run_extraction(lib.store, ana, SCHEMA, ["fees.md"], persist=False)
    outcomes = {r.field: r.outcome for r in run.records}
    assert outcomes == {"fee": Outcome.FLAG, "term": Outcome.REVIEW, "deposit": Outcome.ABSTAIN}
    html = render_report({"run": run.run, "records": [r.to_dict() for r in run.records]},
                         run.case, SCHEMA)
    flag = _cell(html, "fee")
    assert '<span class="badge flag" title="shown with a flag: a person should check it ' \
           'against the document">flagged</span>' in flag
    assert ">verify<" not in html
    assert '<span class="badge review"' in _cell(html, "term")
    assert '<span class="badge abstain"' in _cell(html, "deposit")
    # one badge per outcome, none the same
    assert set(BADGES) == set(Outcome) and len(set(BADGES.values())) == len(Outcome)
