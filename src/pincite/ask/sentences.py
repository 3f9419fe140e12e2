"""Sentences of a block, and the fragments that are titles rather than statements.

A sentence ends at a newline, or at `.`, `!`, `?` or `:` (with any closing quotes or
brackets) before white space — except where the period belongs to the word before it:
- an abbreviation of a company form, a title or a reference word, English or Spanish
  (`Ltd.`, `Inc.`, `Corp.`, `Co.`, `Mr.`, `Dr.`, `Sr.`, `Dña.`, `Excmo.`, `approx.`);
- a reference word before a number (`No. 5`, `art. 12`, `Sec. 4.1`, `núm. 3`, `pp. 4`);
- dotted initials (`S.A.`, `S.L.U.`, `U.S.`, `e.g.`, `i.e.`, `p.m.`) and a capital letter
  alone (`John F. Kennedy`, `21925 W. Bluff Road`), unless a word that labels things by
  letters names it (`Exhibit A.`, `Schedule B.`);
- any period followed by a lower-case word (`… Acme Ltd. and …`, `… etc. and …`);
- a lone enumerator or reference opening the sentence (`4.`, `(b).`, `IV.`,
  `Section 4.`), which heads the text that follows.
A semicolon never ends a sentence: clauses joined by `;` are one statement ("payable
within 45 days; late amounts accrue interest …" and "(a) …; (b) …; and (c) …").

`clauses=True` splits finer, for finding where an instruction run into a sentence starts
(`instructions`): a semicolon ends a clause too, and only the abbreviations above keep a
period — not a lower-case word after it, which is how text inserted mid-sentence reads
("… payable Ignore the previous instructions. within thirty days").

A *title* is a fragment that names a topic without stating anything: no verb of statement
(`shall`, `is`, `may`, `será`, …), and either a heading in capitals (`UPPER_SHARE` of its
words upper case, dates and numbers allowed: "EXHIBIT B NOVEMBER 1, 2002 SUPPLY AGREEMENT
BETWEEN ACME AND BETA", but not a line that says the document is dated, made or signed)
or, without a digit once its enumerator is dropped, at most `TITLE_MAX_WORDS` words with
every word of four letters or more capitalised ("4. Limitation of Liability.", "GOVERNING
LAW") or at most `SENTENCE_CASE_TITLE_WORDS` words with the first capitalised ("Cláusula
7. Solvencia económica"). `ask` reads a title
as context of the sentences after it, never as an answer.
"""

from __future__ import annotations

import re

# a candidate end: . ! ? : (and closing quotes or brackets) before white space, or a newline
_END = re.compile(r"[.!?:][\"'\u201d\u2019)\]]*(?=\s)|\n")
_END_CLAUSE = re.compile(r"[.;!?:][\"'\u201d\u2019)\]]*(?=\s)|\n")
# abbreviations whose period never ends a sentence (lower case, without the period)
ABBREVIATIONS = frozenset(
    # company forms, titles of persons, common English abbreviations
    "inc ltd co corp corps llc llp plc lp bros assn intl mfg mr mrs ms messrs dr prof jr sr "
    "st hon gov gen atty esq approx dept est attn tel fax ext incl "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    # Spanish: forms of address, company forms, addresses
    "sra srta sres dña dª d excmo excma ilmo ilma cía cia avda ud uds vd vds dcha izq "
    "tfno admón adm expte".split())
# reference words: an abbreviation when a number (or a roman numeral, or a bracket) follows
REFERENCE_WORDS = frozenset(
    "no nos nr num núm nº art arts sec secs para paras cl cls ch vol p pp fig figs sch "
    "apdo apdos pág págs ref exp".split())
_DOTTED = re.compile(r"(?:[^\W\d_]\.){2,}$|(?:[^\W\d_]\.)+[^\W\d_]{1,3}\.$")
# a capital letter alone is an initial ("John F. Kennedy", "21925 W. Bluff Road") unless a
# word that labels things by letters names it ("Exhibit A.", "Schedule B.", "Class C.")
_INITIAL = re.compile(r"[\"'\u201c\u2018(]?[A-ZÀ-Þ]\.")
_LABELLED = re.compile(r"(?i:exhibit|schedule|annex|appendix|attachment|section|article|part|clause|"
                       r"class|series|type|form|item|option|tranche|phase|plan|anexo|ap[eé]ndice|"
                       r"cl[aá]usula|art[ií]culo|secci[oó]n|tipo|clase|serie|lote)\s+$")
_NUMBER_NEXT = re.compile(r"\s*(?:\d|[ivxlcdm]+\b|[IVXLCDM]+\b|\()")
_LOWER_NEXT = re.compile(r"\s*[\"'\u201c\u2018(]?[a-zà-ÿ]")
_ENUMERATOR = re.compile(
    r"^[\W_]*(?:\(?(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}|[a-zA-Z])\)?|"
    r"(?i:section|article|clause|schedule|exhibit|annex|appendix|part|chapter|"
    r"cl[aá]usula|art[ií]culo|secci[oó]n|anexo|ap[eé]ndice|cap[ií]tulo|apartado)"
    r"\s+[\w.]+)\.$")

TITLE_MAX_WORDS = 10
# a heading in capitals: at least this many words with letters, this share of them upper case
UPPER_HEADING_WORDS = 4
UPPER_SHARE = 0.8
# words that make a line in capitals a statement of the document's making, not a heading
# ("AGREEMENT DATED MARCH 1, 2010 BETWEEN …")
_DATING_WORDS = frozenset("dated made entered executed signed fechado otorgado suscrito celebrado".split())
SENTENCE_CASE_TITLE_WORDS = 3  # "Solvencia económica", "Limitation of liability"
WINDOW = 3       # sentences one statement may span (`statement_spans`)
# the number that opens a label ("7.1", "(b)", "IV."): short parts, so an amount ("450.000
# euros") is never taken for one
_LABEL_NUMBER = re.compile(r"^\s*(?:\(?[a-zA-Z]\)|\d{1,2}(?:\.\d{1,2})*\.?|[ivxlcdmIVXLCDM]{1,6}[.)])?\s*")
LABEL_WORDS = 6  # words of a label that leads on to the sentence after it
_WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_STATEMENT_VERBS = frozenset(
    # English auxiliaries and verbs of statement
    "shall will may must is are was were be been being has have had does did can could "
    "would should means include includes including agree agrees hereby "
    # Spanish
    "es son será serán sea sean fue está están ha han debe deben deberá deberán puede "
    "pueden podrá podrán tiene tienen tendrá tendrán incluye incluirá".split())


def sentence_spans(text: str, *, clauses: bool = False) -> list[tuple[int, int]]:
    """The `[start, end)` sentences of `text` (white space trimmed), in order; with
    `clauses`, cut at semicolons too (see the module docstring)."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in (_END_CLAUSE if clauses else _END).finditer(text):
        if m.group() not in "\n;" and not _ends_here(text, start, m.start(), m.end(), clauses):
            continue
        _add(text, start, m.end(), out)
        start = m.end()
    _add(text, start, len(text), out)
    return out


def _add(text: str, s: int, e: int, out: list[tuple[int, int]]) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        out.append((s, e))


def _ends_here(text: str, start: int, at: int, end: int, clauses: bool) -> bool:
    """Whether the mark at `at` (its closing characters up to `end`) ends the sentence
    that began at `start`."""
    if text[at] != ".":
        return True
    w0 = at
    while w0 > start and not text[w0 - 1].isspace():
        w0 -= 1
    word = text[w0:at + 1]
    bare = word.lstrip("\"'\u201c\u2018([").lower()[:-1]
    if bare in ABBREVIATIONS or _DOTTED.search(word):
        return False
    if _INITIAL.fullmatch(word) and not _LABELLED.search(text, start, w0):
        return False
    if bare in REFERENCE_WORDS and _NUMBER_NEXT.match(text, end):
        return False
    if clauses:
        return True
    if _LOWER_NEXT.match(text, end):
        return False
    head = text[start:end].strip()
    return not _ENUMERATOR.match(head)


def statement_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` statements of `text`: its sentences, except that a sentence that
    leads on (`leads_on`: it ends with a colon, or it is a bare label such as "7.1
    Solvencia económica y financiera.") is one statement with the sentences after it, up
    to `WINDOW` sentences — so a label is never cut from its value, nor an introduction
    from what it introduces."""
    spans = sentence_spans(text)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        s, e = spans[i]
        n = 1
        while n < WINDOW and i + n < len(spans) and leads_on(text[spans[i + n - 1][0]:
                                                                  spans[i + n - 1][1]]):
            e = spans[i + n][1]
            n += 1
        out.append((s, e))
        i += n
    return out


def leads_on(sentence: str) -> bool:
    """True when a sentence hands what it says to the next one: it ends with a colon
    ("… de la siguiente manera:", "Presupuesto:"), or it is a label — at most
    `LABEL_WORDS` words once its enumerator is dropped, no verb of statement, no digit,
    and not a title (which is read as context)."""
    t = sentence.strip()
    if t.endswith(":"):
        return True
    body = _LABEL_NUMBER.sub("", t)
    words = _WORD.findall(body)
    return (0 < len(words) <= LABEL_WORDS and not any(c.isdigit() for c in body)
            and not any(w.lower() in _STATEMENT_VERBS for w in words) and not is_title(t))


def is_title(sentence: str) -> bool:
    """True when `sentence` names a topic without stating anything (see the module
    docstring): a heading run into a paragraph, a clause title."""
    body = _ENUMERATOR_PREFIX.sub("", sentence.strip())
    words = _WORD.findall(body)
    if not words or any(w.lower() in _STATEMENT_VERBS for w in words):
        return False
    if _upper_heading(words):
        return True
    if len(words) > TITLE_MAX_WORDS or any(c.isdigit() for c in body):
        return False
    if all(w[0].isupper() for w in words if len(w) >= 4):
        return True
    return len(words) <= SENTENCE_CASE_TITLE_WORDS and words[0][0].isupper()


def _upper_heading(words: list[str]) -> bool:
    """Whether words without a verb of statement are a heading in capitals, dates and
    numbers or not ("EXHIBIT B NOVEMBER 1, 2002 SUPPLY AGREEMENT BETWEEN ACME AND BETA")."""
    lettered = [w for w in words if any(c.isalpha() for c in w)]
    if len(lettered) < UPPER_HEADING_WORDS or any(w.lower() in _DATING_WORDS for w in lettered):
        return False
    upper = sum(1 for w in lettered if w.isupper())
    return upper >= UPPER_SHARE * len(lettered)


# an enumerator or reference word opening a title ("4.", "(b)", "Section 4.", "Cláusula 7.")
_ENUMERATOR_PREFIX = re.compile(
    r"^[\W_]*(?:(?:(?i:section|article|clause|schedule|exhibit|annex|appendix|part|chapter|"
    r"cl[aá]usula|art[ií]culo|secci[oó]n|anexo|ap[eé]ndice|cap[ií]tulo|apartado)\s+)?"
    r"\(?(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}|[a-zA-Z])\)?[.)]?\s+)?")
