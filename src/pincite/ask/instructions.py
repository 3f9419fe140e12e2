"""Text that is not a statement: instructions addressed to the reader or a model, and
questions. Deterministic and lexical (regular expressions over sentences); `ask` cuts
both out of a block before reading it for evidence.
"""

from __future__ import annotations

import re

# a sentence ends at a newline, or at . ; : ! ? (and any closing quotes or brackets)
# before white space
_SENTENCE = re.compile(r"[^\n]*?(?:[.;:!?][\"'\u201d\u2019)\]]*(?=\s)|\n|$)")

# ---- instructions addressed to the reader or a model ---------------------------------------

_OUTPUT = r"(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?)"
# a verb used as an order: it opens the sentence or a capitalised clause, or follows a
# word that makes it one ("please", "you must")
_IMPERATIVE = (r"(?:^[\W_]*|(?<=\s)(?=(?-i:[A-Z]))|\b(?:please|now|then|just|you|always|only|"
               r"must|should)\s+)")
# found anywhere in a sentence (case-insensitive); the span runs from the clause start
_ADDRESSED = re.compile("|".join((
    # the reader's (a model's) own output is the object of the sentence
    rf"\b(?:in|into|to|within|throughout)\s+your\s+{_OUTPUT}\b",
    r"\b(?:of|from)\s+your\s+(?:answers?|responses?|repl(?:y|ies)|outputs?)\b",
    r"\byour\s+(?:answer|response|reply|output)'s\b",
    # overriding what came before, or the reader's role
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|these|those|"
    r"every|of)\s+)*(?:(?:previous|prior|above|earlier|preceding|original|former|other|"
    r"system)\s+)*(?:instructions?|directions?|directives?|prompts?|rules?|guidelines?|"
    r"constraints?|context)\b",
    r"\b(?:you\s+are\s+now|from\s+now\s+on|(?:you|please)\s+act\s+as|act\s+as\s+if\s+you|"
    r"pretend\s+(?:to\s+be|that|you)|new\s+instructions?|system\s+prompt|developer\s+mode|"
    r"jailbreak)\b",
    # what to answer, said to the reader
    rf"{_IMPERATIVE}(?:respond|reply|answer)\s+(?:only\s+)?(?:with|using|by\s+saying)\b",
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to)\s+(?:now\s+|always\s+|"
    r"only\s+)?(?:ignore|respond|reply|answer|say|include|add|write|output|print|tell|mention|"
    r"state|reveal|repeat)\b",
    # a link the reader is told to follow
    rf"{_IMPERATIVE}(?:click|visit|download|install|go\s+to|navigate\s+to)\b[^.!?\n]{{0,60}}?"
    r"(?:https?://|"
    r"www\.|\b[\w-]+\.(?:com|net|org|xyz|io|ru|info|biz|top|click|app)\b)",
)), re.IGNORECASE)
# an imperative that opens a clause: the first word of a sentence (any case), or a
# capitalised word run into the middle of one
_TASK_VERB = (r"(?:Explain|Describe|Translate|Summari[sz]e|Paraphrase|Draft|Compose|Write|"
              r"Provide|Generate|Develop|Define|Outline|Elaborate|Break\s+down|Tell\s+me|"
              r"Show\s+me|Give\s+me|Teach\s+me)\b(?=\s+(?:a|an|the|me|us|how|what|why|who|"
              r"when|where|which|this|that|about|on|some|its|their|every|each|all|following|"
              r"in\s+simple)\b)")
_EDIT_VERB = (r"(?:Replace|Substitute|Convert|Rearrange|Scramble|Jumble|Misspell|Anagram|"
              r"Reverse|Encode|Encrypt|Capitali[sz]e|Remove|Group|Combine|Use)\b"
              r"(?=(?:\s+\S+){0,4}?\s+(?:letters?|words?|vowels?|characters?|spaces?|"
              r"punctuation|symbols?|numbers?\s+for)\b)")
_ASK_MODEL = (r"(?:Can|Could|Would|Will)\s+you\s+(?:please\s+)?(?:show|tell|give|explain|"
              r"write|provide|translate|describe|draft|compose|summari[sz]e)\s+(?:me|us|a|an|"
              r"the)\b")
# a verb before "your reply" (not a preposition: "For your reply, …", "… for your message")
_YOUR_OUTPUT = (r"(?!(?i:about|after|at|before|by|for|from|in|of|on|per|re|regarding|thanks|to|"
                rf"with)\b)[A-Z][a-z]+(?:\s+up)?\s+your\s+{_OUTPUT}\b")
_OPENERS = rf"(?:{_TASK_VERB}|{_EDIT_VERB}|{_ASK_MODEL}|{_YOUR_OUTPUT})"
_OPENS_SENTENCE = re.compile(rf"^[\W_]*(?:(?:please|now|also|kindly|then),?\s+)?{_OPENERS}",
                             re.IGNORECASE)
_OPENS_CLAUSE = re.compile(rf"(?<=\s)(?:(?:Please|Now|Also|Kindly|Then),?\s+)?{_OPENERS}")
# a capitalised word that opens an order (general English imperatives, and the words that
# start "You must …", "Please …", "From now on …", "In your reply …")
_ORDER_WORD = re.compile(
    r"(?<=\s)(?:Add|Append|Insert|Include|Integrate|Incorporate|Mention|Modify|Change|Enhance|"
    r"Augment|Amend|Edit|Rewrite|Write|Say|State|Tell|Respond|Reply|Answer|Output|Print|Return|"
    r"Repeat|Put|Make|Ensure|Use|Start|Begin|End|Finish|Conclude|Sign|Replace|Substitute|"
    r"Convert|Rearrange|Scramble|Jumble|Misspell|Anagram|Remove|Delete|Drop|Omit|Group|"
    r"Combine|Introduce|Render|Provide|Give|Show|Explain|Describe|Translate|Summari[sz]e|"
    r"Draft|Compose|Generate|Develop|Create|Suggest|Recommend|Encourage|Invite|Promote|Urge|"
    r"Remind|Highlight|Emphasi[sz]e|Stress|Tease|Hint|Offer|Direct|Link|Ignore|Disregard|"
    r"Forget|Pretend|Act|Click|Visit|Download|Install|Please|Kindly|You|From|In|To|Within)\b")
_QUESTION = re.compile(r"\?[\"'\u201d\u2019)\]]*$")
# a capitalised word that opens a question run into a sentence ("… The Mercury T What is …?")
_ASKING_WORD = re.compile(r"(?<=\s)(?:What|Who|Whom|Whose|When|Where|Why|How|Which|Is|Are|Was|"
                          r"Were|Do|Does|Did|Can|Could|Would|Will|Should|Shall|Have|Has)\b")


def _clause_start(sentence: str, at: int) -> int:
    """The start of the order holding `at`: the last capitalised order word (after white
    space) at or before it, else the sentence start (the whole sentence is suspected)."""
    start = 0
    for m in _ORDER_WORD.finditer(sentence):
        if m.start() > at:
            break
        start = m.start()
    return start


def _suspect_from(sentence: str) -> int | None:
    """Where an instruction starts in `sentence` (relative offset), or None."""
    cut: int | None = None
    if _OPENS_SENTENCE.match(sentence):
        return 0
    m = _OPENS_CLAUSE.search(sentence)
    if m:
        cut = m.start()
    m2 = _ADDRESSED.search(sentence)
    if m2:
        c = _clause_start(sentence, m2.start())
        cut = c if cut is None else min(cut, c)
    return cut


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` sentences of `text` (white space trimmed), in order."""
    out = []
    for m in _SENTENCE.finditer(text):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def instruction_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` that read as instructions to the reader or a model.

    Deterministic and lexical; classes: (1) the reader's own output as the object ("… in
    your reply", "… of your answer", "your response's words"); (2) overrides of what came
    before or of the reader's role ("ignore the previous instructions", "you are now",
    "system prompt"); (3) orders about the answer ("respond with", "you must say");
    (4) links the reader is told to follow ("click/visit/download/install … www.…");
    (5) a clause that opens with a task for an assistant ("Explain the …", "Write a …",
    "Translate the …", "Can you show me …") or an edit of the reply's text ("Replace
    vowels …", "Scramble the letters …"). A sentence that begins lowercase continues the
    one before it, so a suspected continuation takes that sentence's last clause too; a
    suspected span that ends in ':' takes the next sentence (its argument).
    """
    sents = sentence_spans(text)
    marks: list[int | None] = [_suspect_from(text[s:e]) for s, e in sents]
    for i in range(len(sents)):
        s, e = sents[i]
        if marks[i] is None:
            continue
        if i > 0 and marks[i] == 0 and text[s].islower() and marks[i - 1] is None:
            ps, pe = sents[i - 1]
            marks[i - 1] = _clause_start(text[ps:pe], pe - ps - 1)
        if text[e - 1] == ":" and i + 1 < len(sents) and marks[i + 1] is None:
            marks[i + 1] = 0
    out: list[tuple[int, int]] = []
    for (s, e), cut in zip(sents, marks, strict=True):
        if cut is None:
            continue
        if out and out[-1][1] >= s - 1 and not text[out[-1][1]:s + cut].strip():
            out[-1] = (out[-1][0], e)
        else:
            out.append((s + cut, e))
    return out


def is_question(sentence: str) -> bool:
    """True when a sentence asks rather than states (it ends with a question mark)."""
    return bool(_QUESTION.search(sentence.rstrip()))


def question_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` that ask: each sentence that ends with a question
    mark, or, when a question was run into it, the clause from its first capitalised
    question word ("What", "How", "Is", …) on."""
    out = []
    for s, e in sentence_spans(text):
        if is_question(text[s:e]):
            m = _ASKING_WORD.search(text, s, e)
            out.append((m.start() if m else s, e))
    return out
