"""Sentences that ask rather than state: a question run into a passage is cut out of what
can answer (`units`), like an instruction, but without the `injection_suspected` flag."""

from __future__ import annotations

import re

from .sentences import sentence_spans

_QUESTION = re.compile(r"\?[\"'\u201d\u2019)\]]*$")
# a capitalised word that opens a question run into a sentence ("… The Mercury T What is …?")
_ASKING_WORD = re.compile(r"(?<=\s)(?:What|Who|Whom|Whose|When|Where|Why|How|Which|Is|Are|Was|"
                          r"Were|Do|Does|Did|Can|Could|Would|Will|Should|Shall|Have|Has)\b")


def is_question(sentence: str) -> bool:
    """True when a sentence asks rather than states (it ends with a question mark)."""
    return bool(_QUESTION.search(sentence.rstrip()))


def question_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` that ask: each sentence that ends with a question
    mark, or, when a question was run into it, the clause from its first capitalised
    question word ("What", "How", "Is", …) on."""
    out = []
    for s, e in sentence_spans(text, clauses=True):
        if is_question(text[s:e]):
            m = _ASKING_WORD.search(text, s, e)
            out.append((m.start() if m else s, e))
    return out
