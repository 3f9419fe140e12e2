"""`eval ask-tenders` on a small tender written here: answers counted right, wrong (a gold
that points elsewhere, an answer to an unanswerable question, a span in another file)
and abstentions; unlocated gold reported; malformed questions files refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pincite.errors import UsageError
from pincite.evals.ask_tenders import load_questions, run_ask_tenders
from pincite.evals.folds import fold_of
from tests.commands import invoke

PLIEGO = """<html><head><meta charset="utf-8"><title>Pliego</title></head><body>
<h1>Pliego de cláusulas del servicio de limpieza de la biblioteca municipal</h1>
<p>El presupuesto base de licitación es de 48.000 euros, IVA incluido.</p>
<p>El plazo de ejecución del contrato es de doce meses desde su formalización.</p>
<p>La garantía definitiva será del 5 por ciento del importe de adjudicación.</p>
<p>Las ofertas se presentarán en el registro general del Ayuntamiento.</p>
</body></html>"""
ANUNCIO = """<html><head><meta charset="utf-8"><title>Anuncio</title></head><body>
<h1>Anuncio de licitación de las obras de reparación del puente viejo</h1>
<p>El valor estimado del contrato asciende a 310.000 euros sin impuestos.</p>
<p>Las obras deberán terminarse en un plazo máximo de seis meses.</p>
</body></html>"""
BUDGET = "El presupuesto base de licitación es de 48.000 euros, IVA incluido."
TERM = "El plazo de ejecución del contrato es de doce meses desde su formalización."
GUARANTEE = "La garantía definitiva será del 5 por ciento del importe de adjudicación."
VALUE = "El valor estimado del contrato asciende a 310.000 euros sin impuestos."
QUESTIONS: dict[str, Any] = {"schema_name": "pincite.tenders_questions", "version": 1, "cases": [
    {"case_id": "limpieza", "files": ["pliego.html"], "questions": [
        {"id": "l-q1", "question": "¿Cuál es el presupuesto base de licitación?", "answerable": True,
         "gold": [{"file": "pliego.html", "quote": BUDGET}], "value": "48.000 EUR"},
        {"id": "l-q2", "question": "¿Cuál es el plazo de ejecución del contrato?", "answerable": True,
         "gold": [{"file": "pliego.html", "quote": TERM}], "value": "12 meses"},
        {"id": "l-q3", "question": "¿Qué empresa resultó adjudicataria?", "answerable": False,
         "why": "un pliego no nombra adjudicatario"}]},
    {"case_id": "obras", "files": ["anuncio.html"], "questions": [
        {"id": "o-q1", "question": "¿Cuál es el valor estimado del contrato?", "answerable": True,
         "gold": [{"file": "anuncio.html", "quote": VALUE}]},
        {"id": "o-q2", "question": "¿Quién firma el anuncio?", "answerable": False}]}]}


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for case, name, html in (("limpieza", "pliego.html", PLIEGO), ("obras", "anuncio.html", ANUNCIO)):
        (data / case).mkdir(parents=True)
        (data / case / name).write_text(html, encoding="utf-8")
    return data


def _run(tmp_path: Path, data: Path, questions: dict[str, Any], name: str,
         folds: int | None = None) -> dict[str, Any]:
    qfile = tmp_path / f"{name}.json"
    qfile.write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    return run_ask_tenders(data, qfile, store_url=str(tmp_path / f"store-{name}"),
                           embedder="hash", folds=folds)


def _outcomes(out: dict[str, Any]) -> dict[str, tuple[bool, bool, bool]]:
    return {r["id"]: tuple(r["outcome"]) for r in out["by_question"]}


def test_ask_tenders_counts_right_wrong_and_abstained(tmp_path: Path):
    data = _data(tmp_path)
    out = _run(tmp_path, data, QUESTIONS, "honest", folds=2)
    assert _outcomes(out) == {"l-q1": (True, True, True), "l-q2": (True, True, True),
                              "l-q3": (False, False, False), "o-q1": (True, True, True),
                              "o-q2": (False, False, False)}
    assert [out[k] for k in ("answerable", "answered_right", "answered_wrong", "unanswerable",
                             "abstained_right")] == [3, 3, 0, 2, 2]
    assert out["unlocated_gold"] == [] and out["quarantined"] == []
    cited = {r["id"]: (r["file"], r["quote"]) for r in out["by_question"]}
    assert cited["l-q1"] == ("pliego.html", BUDGET)
    assert out["by_case"]["limpieza"]["answered_right"] == 2
    # folds by case: one case in each, nothing refitted, pooled adds them
    assert (fold_of("limpieza", 2), fold_of("obras", 2)) == (0, 1)
    f = out["folds"]
    assert [(r["fold"], r["cases"], r["held_out"]["answered_right"]) for r in f["folds"]] == [
        (0, ["limpieza"], 2), (1, ["obras"], 1)]
    assert f["pooled"]["held_out"]["answered_right"] == 3

    # planted: l-q1's gold points at another sentence (the answer stays the budget's),
    # o-q1 is called unanswerable (it is answered), l-q3 is given gold it never cites
    planted = copy.deepcopy(QUESTIONS)
    limpieza, obras = planted["cases"]
    limpieza["questions"][0]["gold"] = [{"file": "pliego.html", "quote": GUARANTEE}]
    limpieza["questions"][2] = {"id": "l-q3", "question": "¿Qué empresa resultó adjudicataria?",
                                "answerable": True, "gold": [{"file": "pliego.html", "quote": GUARANTEE}]}
    obras["questions"][0] = {"id": "o-q1", "question": "¿Cuál es el valor estimado del contrato?",
                             "answerable": False}
    bad = _run(tmp_path, data, planted, "planted")
    assert _outcomes(bad) == {"l-q1": (True, True, False), "l-q2": (True, True, True),
                              "l-q3": (True, False, False), "o-q1": (False, True, False),
                              "o-q2": (False, False, False)}
    assert [bad[k] for k in ("answerable", "answered_right", "answered_wrong", "wrong_span",
                             "answered_unanswerable", "unanswerable", "abstained_right")] == [
        3, 1, 2, 1, 1, 2, 1]
    assert bad["wrong_rate"] == round(2 / 3, 4) and bad["abstain_rate"] == 0.5


def test_a_span_in_another_file_of_the_case_is_wrong_and_unlocated_gold_is_reported(tmp_path: Path):
    data = _data(tmp_path)
    # a second file whose opening is the same text: the same offsets, another document
    (data / "limpieza" / "copia.html").write_text(PLIEGO.replace("</body>", "<p>Copia.</p></body>"),
                                                  encoding="utf-8")
    qs = copy.deepcopy(QUESTIONS)
    qs["cases"] = qs["cases"][:1]
    qs["cases"][0]["files"] = ["pliego.html", "copia.html"]
    first = _run(tmp_path, data, qs, "both")
    row = next(r for r in first["by_question"] if r["id"] == "l-q1")
    cited = row["file"]
    other = "copia.html" if cited == "pliego.html" else "pliego.html"
    assert row["outcome"][2] is (cited == "pliego.html")
    # gold only in the file the answer does not cite: wrong, though the offsets are the same
    qs["cases"][0]["questions"][0]["gold"] = [{"file": other, "quote": BUDGET}]
    moved = _run(tmp_path, data, qs, "moved")
    row = next(r for r in moved["by_question"] if r["id"] == "l-q1")
    assert row["file"] == cited and tuple(row["outcome"]) == (True, True, False)
    # both files' gold: right again; a quote no file holds is reported, never hit
    qs["cases"][0]["questions"][0]["gold"] = [{"file": other, "quote": BUDGET},
                                              {"file": cited, "quote": BUDGET}]
    qs["cases"][0]["questions"][1]["gold"] = [{"file": "pliego.html", "quote": "diez años"}]
    fixed = _run(tmp_path, data, qs, "fixed")
    outs = _outcomes(fixed)
    assert outs["l-q1"] == (True, True, True) and outs["l-q2"] == (True, True, False)
    assert fixed["unlocated_gold"] == [{"id": "l-q2", "file": "pliego.html", "quote": "diez años"}]


def _malformed() -> list[tuple[Any, str]]:
    def edit(fn):  # a copy of QUESTIONS changed by fn
        q = copy.deepcopy(QUESTIONS)
        fn(q)
        return q
    first = lambda q: q["cases"][0]["questions"][0]  # noqa: E731
    return [
        ("{not json", "not a readable JSON"),
        ([], "non-empty list 'cases'"),
        ({"cases": []}, "non-empty list 'cases'"),
        (edit(lambda q: q.update(schema_name="other")), "this pincite reads"),
        (edit(lambda q: q["cases"][0].pop("files")), "exactly the keys"),
        (edit(lambda q: q["cases"][0].update(case_id="a/b")), "case_id"),
        (edit(lambda q: first(q).pop("answerable")), "needs id, question and answerable"),
        (edit(lambda q: first(q).update(answerable="yes")), "answerable true or false"),
        (edit(lambda q: first(q).pop("gold")), "is answerable: give gold"),
        (edit(lambda q: first(q)["gold"][0].update(file="otro.pdf")), "one of the case's files"),
        (edit(lambda q: q["cases"][1]["questions"][1].update(
            gold=[{"file": "anuncio.html", "quote": VALUE}])), "unanswerable but has gold"),
        (edit(lambda q: q["cases"][1]["questions"][0].update(id="l-q1")), "used twice"),
        (edit(lambda q: q["cases"].append({"case_id": "limpieza", "files": ["pliego.html"], "questions": [
            {"id": "l-q9", "question": "¿Hay lotes?", "answerable": False}]})), "listed twice"),
    ]


@pytest.mark.parametrize(("content", "message"), _malformed())
def test_a_malformed_questions_file_is_refused(tmp_path: Path, content: Any, message: str):
    qfile = tmp_path / "q.json"
    qfile.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        load_questions(qfile)


def test_ask_tenders_command_refuses_bad_input(tmp_path: Path):
    data = _data(tmp_path)
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps({"cases": [{"case_id": "limpieza"}]}), encoding="utf-8")
    r = invoke("eval", "ask-tenders", "--data", str(data), "--questions", str(qfile),
               "--embedder", "hash")
    assert r.returncode != 0 and "exactly the keys" in r.stderr
    qfile.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    r = invoke("eval", "ask-tenders", "--data", str(tmp_path / "elsewhere"), "--questions",
               str(qfile), "--embedder", "hash")
    assert r.returncode != 0 and "give --data" in r.stderr
    r = invoke("eval", "ask-tenders", "--data", str(data), "--questions", str(qfile),
               "--embedder", "hash", "--folds", "3", "--store", str(tmp_path / "s"))
    assert r.returncode != 0 and "--folds" in r.stderr
    assert load_questions(qfile)[0].source_id("pliego.html") == "limpieza/pliego.html"
    r = invoke("eval", "ask-tenders", "--data", str(data), "--questions", str(qfile),
               "--embedder", "hash", "--folds", "2", "--store", str(tmp_path / "s2"))
    assert r.returncode == 0, r.stderr
    assert "2 cases, 2 documents, 5 questions" in r.stdout
    assert [ln.split()[:5] for ln in r.stdout.splitlines() if ln.startswith(("all", "pooled"))] == [
        ["all", "3", "3", "0", "2"], ["pooled", "3", "3", "0", "2"]]
