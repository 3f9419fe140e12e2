"""Text that is not a statement: instructions addressed to the reader or a model, and
questions. Deterministic and lexical (regular expressions over sentences); `ask` cuts
both out of a block before reading it for evidence. An instruction is told from a
statement by grammar — the person and mood of its verb, whom it addresses, a reference to
the reader's answer — in English, Spanish, Catalan, French and German (words:
`instruction_words`), never by the verb alone: a party's obligation in the third person
("el contratista está obligado a …") is a statement. An order split across sentences or
blocks is followed (`hands_over`, `points_back`).
"""

from __future__ import annotations

import re

from . import instruction_words as W
from .asking import is_question, question_spans  # noqa: F401  (read here before)
from .sentences import sentence_spans


def _compiled(rules: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Each rule compiled on its own, case-insensitive (one pattern per rule searches
    faster than their alternation, which tries every rule at every position)."""
    return tuple(re.compile(r, re.IGNORECASE) for r in rules)


# ---- instructions addressed to the reader or a model ---------------------------------------
#
# Built from the structure of an order, not from the words of any benchmark: who is
# addressed (you, the assistant, the model, the reader), what is overridden (previous
# instructions, a clause), role markers, "when asked …" conditionals, and the reader's own
# output as the object. English and Spanish. The instruction set these were written
# against is tests/ask/data/instructions.tsv; BIPIA's attack strings are held out.

_OUTPUT = (r"(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?|"
           r"respuestas?|contestaci[oó]n(?:es)?|salidas?|mensajes?)")
# whoever reads the document as a machine (or is told to act as one)
_AI = (r"(?:ai|a\.i\.|llms?|gpts?|chatgpt|claude|gemini|copilot|chatbots?|ias?|"
       r"(?:large\s+)?language\s+models?|modelos?\s+de\s+lenguaje)")
_ADDRESSEE = (r"(?:(?:automated|automatic|machine)\s+)?"
              r"(?:ai|a\.i\.|llms?|gpts?|chatgpt|claude|gemini|copilot|chatbots?|bots?|(?:ai\s+|language\s+|virtual\s+)?"
              r"(?:assistants?|models?|agents?|systems?)|readers?|parsers?|"
              r"ias?|asistentes?(?:\s+(?:de\s+)?ia)?|modelos?(?:\s+de\s+lenguaje)?|"
              r"agentes?|lectores?)(?:\s+autom[aá]tic[oa]s|\s+automated)?")
# an addressee that can only be a machine (not a human reader)
_MACHINE = (r"(?:(?:automated|automatic|machine)\s+(?:readers?|parsers?|systems?)|"
            r"(?:ai|a\.i\.|llms?|gpts?|chatbots?|bots?|(?:ai\s+|virtual\s+)?assistants?|"
            r"(?:large\s+)?language\s+models?|ias?|asistentes?(?:\s+(?:de\s+)?ia)?|"
            r"modelos?\s+de\s+lenguaje|lectores?\s+autom[aá]tic[oa]s))")
# what an override throws away
_OVERRIDDEN = (r"(?:(?:all|any|the|your|my|these|those|every|of|everything|whatever|"
               r"todas?|todos?|los|las|el|la|lo|tus|sus|cualquier)\s+)*"
               r"(?:(?:previous|prior|above|earlier|preceding|original|former|other|system|"
               r"foregoing|anteriores?|previas?|previos?|originales?|dem[aá]s)\s+)*"
               r"(?:instructions?|directions?|directives?|prompts?|rules?|guidelines?|"
               r"constraints?|context|(?:the\s+)?above|(?:said\s+)?before|(?:clause|section|"
               r"article|paragraph)\s+[\w.]+|"
               r"instrucci[oó]n(?:es)?|indicaciones|[oó]rdenes|reglas|normas|contexto|"
               r"anterior|(?:cl[aá]usula|secci[oó]n|art[ií]culo|apartado)\s+[\w.]+)")
_IGNORE = (r"(?:ignore|disregard|forget|override|overrule|bypass|skip|discard|set\s+aside|"
           r"pay\s+no\s+attention\s+to|ignora|ignore|ignoren|ignorad|olvida|olvide|olviden|"
           r"olvidad|omite|omita|descarta|descarte|haz\s+caso\s+omiso\s+(?:a|de)|"
           r"no\s+(?:tengas|tenga)\s+en\s+cuenta)")
# a verb used as an order: it opens the sentence or a capitalised clause, or follows a
# word that makes it one ("please", "you must")
_IMPERATIVE = (r"(?:^[\W_]*|(?<=\s)(?=(?-i:[A-Z]))|\b(?:please|now|then|just|you|always|only|"
               r"must|should|por\s+favor|ahora|debes|solo|s[oó]lo)\s+)")
_ADDRESSED = _compiled((
    # role markers: a line that hands the turn to a role
    # (not "user:" or "developer:", which head signature blocks of contracts)
    r"(?:^|(?<=\s))(?:#{1,4}\s*)?(?:system|assistant|instruction|instructions|override|"
    r"sistema|asistente|instrucci[oó]n|instrucciones|anulaci[oó]n)\s*:",
    # a machine reader named as the one addressed, before a colon ("Readers and assistants:",
    # "Atención, modelos de lenguaje:"), or by what it is ("As an AI, …", "Como IA, …")
    rf"(?:^|(?<=\s))(?:(?:{_ADDRESSEE})\s*(?:,|and|y|&)\s*)*{_MACHINE}\s*:",
    rf"\b(?:attention|atenci[oó]n|note|nota)\s*,?\s+(?:the\s+|all\s+|los\s+|las\s+)?{_MACHINE}\b",
    rf"\b(?:as|como)\s+(?:an?\s+|una?\s+)?{_AI}\s*,",
    r"#{2,}\s*(?:instruction|instrucci[oó]n|system|sistema|response|respuesta)\b",
    r"\[/?(?:inst|system|sys)\]|<\|?/?(?:im_start|im_end|system|user|assistant)\|?>|<<\s*sys\s*>>",
    # the reader's (a model's) own output is the object of the sentence
    # ("su respuesta" is a third person's too: "el licitador indicará en su respuesta")
    rf"\b(?:in|into|to|within|throughout|en|a)\s+(?:your|tu)\s+{_OUTPUT}\b",
    rf"\b(?:of|from|de)\s+(?:your|tu)\s+{_OUTPUT}\b",
    r"\byour\s+(?:answer|response|reply|output)'s\b",
    rf"(?:^|(?<=\s))(?!(?i:about|after|at|before|by|for|from|in|of|on|per|re|regarding|thanks|"
    rf"to|with|para|por|sobre|con|de|en|gracias)\b)(?-i:[A-Z])[a-z]+(?:\s+up)?\s+"
    rf"(?:your|tu)\s+{_OUTPUT}\b",
    # overriding what came before, or the reader's role
    rf"\b{_IGNORE}\s+{_OVERRIDDEN}",
    rf"\b{_IGNORE}\s+(?:the|this|that|these|those|el|la|los|las|esta|este)\s+\w+\s+"
    r"(?:above|below|anterior(?:es)?)\b",
    r"\b(?:you\s+are\s+now|from\s+now\s+on|(?:you|please)\s+act\s+as|act\s+as\s+if\s+you|"
    r"pretend\s+(?:to\s+be|that|you)|new\s+instructions?|system\s+prompt|developer\s+mode|"
    r"jailbreak|a\s+partir\s+de\s+ahora|desde\s+ahora|ahora\s+eres|"
    r"nuevas\s+instrucciones|instrucciones\s+nuevas)\b",
    # "act as" in the imperative: it opens the order and a role or a make-believe follows
    # (not "el material actúa como aislante", "actúa como órgano de contratación el …")
    r"(?:^[\W\d_]*|\b(?:ahora|desde\s+ahora|y)\s+)(?:act[uú]a|act[uú]e|act[uú]en|actuad)\s+"
    r"como\s+(?:si|el|la|un|una)\b",
    # an order to a machine reader: "AI assistants reading this must …", "Note to the model:"
    rf"\b{_ADDRESSEE}\s+(?:(?:that|who|which|que)\s+)?(?:reading|processing|summari[sz]ing|"
    r"parsing|analy[sz]ing|read|process|lean|leas|lea|procesen|procese|procesan|lee|leen)\b",
    rf"\b(?:note|message|instructions?|attention|nota|mensaje|atenci[oó]n|instrucci[oó]n(?:es)?)\s+"
    rf"(?:to|for|para)\s+(?:the\s+|any\s+|all\s+|el\s+|la\s+|los\s+|las\s+|cualquier\s+)?"
    rf"{_ADDRESSEE}\b",
    r"\b(?:dear|hey|hello|hi|attention|querido|estimado|hola|atenci[oó]n)\s*,?\s+"
    r"(?:the\s+|el\s+|la\s+)?(?:ai|llm|gpt|chatbot|bot|assistant|model|ia|asistente|modelo)\b",
    rf"\b{_AI}\s+(?:(?:systems?|assistants?|models?|agents?|sistemas?|asistentes?|modelos?)\s+)?"
    r"(?:must|should|shall|are\s+(?:required|instructed)\s+to|debe|deben)\b",
    rf"\bif\s+you\s+are\s+an?\s+{_ADDRESSEE}\b|\bsi\s+eres\s+(?:un|una)\s+{_ADDRESSEE}\b",
    # what to answer, said to the reader: orders about the answer, "when asked …" ("you
    # must" takes a verb of answering or of reading: mail says "you must wear a mask")
    r"\b(?:when|whenever|if)\s+(?:you\s+are\s+|you're\s+|someone\s+|anyone\s+|a\s+user\s+|"
    r"the\s+user\s+)?(?:asked|asks|queried|questioned)\s+(?:about|for|what|whether|who|how|"
    r"when|which|if|to|regarding|on)\b",
    r"\b(?:cuando|si)\s+(?:te|le|les|se\s+te|alguien\s+te|el\s+usuario)\s+"
    r"(?:pregunte[ns]?|preguntan?|consulte[ns]?)\b",
    r"\b(?:when|whenever|if)\s+(?:anyone|anybody|someone|somebody|a\s+user|the\s+user)\s+"
    r"(?:asks?|queries|inquires)\b",
    r"\b(?:cuando|si)\s+(?:alguien|cualquiera|un\s+usuario|el\s+usuario)\s+"
    r"(?:pregunte[ns]?|preguntan?|consulte[ns]?)\b",
    # the reader told what to tell the one who asks ("tell the user …", "dile al usuario …")
    r"\b(?:tell|inform|remind)\s+(?:the|any|every)\s+(?:user|reader|asker|customer|human)s?\b",
    r"\b(?:dile|d[ií]gale|diles|d[ií]ganles|dig[aá]is|informa|informe|informen|inf[oó]rmale|"
    r"inf[oó]rmales|inf[oó]rmele|inf[oó]rmeles)\s+"
    r"(?:al|a\s+los|a\s+la)\s+(?:usuari[oa]s?|lector(?:es)?|client[ea]s?)\b",
    # answering every question of a kind one way; not following the document
    r"\b(?:respond|reply|answer)\s+(?:to\s+)?(?:any|every|all|each)\b[^.!?\n]{0,60}?\bwith\b",
    r"\b(?:responde|responda|contesta|conteste|respondan)\s+a\s+(?:cualquier|toda|todas|cada)\b",
    r"\b(?:do\s+not|don't|never)\s+(?:follow|trust|believe|use|rely\s+on)\s+(?:the|this)\s+"
    r"(?:document|text|contract|clause|source|page|file)\b",
    r"\bno\s+(?:sigas|siga|sigan|conf[ií]es|conf[ií]e|creas|crea|uses|use)\s+(?:el|este|la|"
    r"esta)\s+(?:documento|texto|contrato|cl[aá]usula|fuente|p[aá]gina)\b",
    rf"{_IMPERATIVE}(?:do\s+not|don't|never)\s+(?:mention|say|state|reveal|cite|quote|report|"
    r"disclose)\b",
    r"\bno\s+(?:menciones|mencione|mencionen|digas|diga|cites|reveles|revele)\b",
    # make-believe about the facts ("Pretend the guarantee is …", "Haz como si …")
    rf"{_IMPERATIVE}(?:pretend|imagine\s+that|suppose\s+that|assume\s+that)\b",
    r"\b(?:haz|haga|hagan|haced)\s+como\s+si\b|\b(?:finge|finja|finjan)\b",
    r"\byou\s+(?:give|provide|report|return|quote)\s+(?:must|should|has\s+to|shall)\s+be\b",
    # a reader obliged, in Spanish, in the second person ("estás obligado a citar"; never a
    # party in the third: "el contratista está obligado a entregar")
    r"\b(?:est[aá]s|est[aá]is)\s+(?:obligad[oa]s?|instruid[oa]s?)\s+a\b",
    # … exclusively, what follows being the answer ("answer only \"void\"", "say only that";
    # not "answer only the questions that apply", "responda solo a las preguntas que procedan")
    r"\b(?:answer|respond|reply|say|state|output|return)\s+(?:only|just|always|exclusively)"
    r"(?=\s+(?:that|with|using|by\s+saying)\b|\s*[\"'“‘«\d$€£])",
    rf"{_IMPERATIVE}(?:always|never)\s+(?:answer|respond|reply|say|state|claim|mention)\b",
    r"\b(?:siempre|nunca)\s+(?:responde|responda|contesta|conteste|di|diga|menciona)\b",
    r"\b(?:responde|responda|contesta|conteste|di|diga)\s+(?:solo|s[oó]lo|[uú]nicamente|siempre)"
    r"(?=\s+(?:que|con|diciendo)\b|\s*[\"'“‘«\d$€£])",
    rf"{_IMPERATIVE}(?:respond|reply|answer)\s+(?:only\s+)?(?:with|using|by\s+saying)\b",
    r"\b(?:responde|responda|contesta|conteste)\s+(?:con|diciendo|que)\b",
    r"\b(?:your|tu)\s+(?:answer|response|reply|respuesta)\b[^.;!?\n]{0,40}?\b(?:must|should|"
    r"has\s+to|will|debe|deber[aá]|tiene\s+que)\b",
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|are\s+instructed\s+to|"
    r"will\s+now|shall\s+now)\s+(?:now\s+|always\s+|only\s+|instead\s+)?(?:ignore|disregard|"
    r"forget|respond|reply|answer|say|include|add|write|output|print|tell|mention|state|"
    r"reveal|repeat|recommend|cite|treat|consider|act|pretend|report|claim|describe|"
    r"summari[sz]e|translate|praise|approve|rate|mark|quote|use|give|set|fix)\b",
    r"\b(?:debes|deber[aá]s|tienes\s+que|has\s+de|necesitas)\s+(?:ahora\s+|siempre\s+|"
    r"solo\s+|s[oó]lo\s+)?(?:ignorar|responder|contestar|decir|escribir|incluir|a[nñ]adir|"
    r"mencionar|revelar|repetir|tratar|considerar|olvidar|traducir|indicar|afirmar|usar)\b",
    # an order to treat the document's facts otherwise than they stand
    r"\b(?:treat|consider|regard|report|present)\s+(?:the|this|that|it|all|any)\b[^.!?\n]{0,60}"
    r"\bas\s+(?:if|though|being|valid|void|true|false|expired|the\s+correct)\b",
    r"\b(?:trata|trate|considera|considere|presenta|presente)\s+(?:el|la|los|las|esta|este|"
    r"todo)\b[^.!?\n]{0,60}\bcomo\s+(?:si|v[aá]lid|nul|cierto|falso|vencid)",
    # a link the reader is told to follow
    rf"{_IMPERATIVE}(?:click|visit|download|install|go\s+to|navigate\s+to|haz\s+clic|visita|"
    r"descarga|instala)\b[^.!?\n]{0,60}?"
    r"(?:https?://|www\.|\b[\w-]+\.(?:com|net|org|xyz|io|ru|info|biz|top|click|app)\b)",
))

# ---- orders by their grammar, in English, Spanish, Catalan, French and German ---------------
#
# An order is told apart from an obligation by its person and mood, not by its verb: the
# imperative at the start of a sentence or clause ("Kindly output …", "Ignora la cláusula
# anterior", "Gib … aus"), a second person obliged ("tu dois répondre", "has de respondre"),
# a machine addressed ("Achtung, Sprachmodell"), or a meta-reference to the answer itself
# ("the correct answer to any question about …"). A party obliged in the third person ("el
# contratista está obligado a", "the Supplier shall", "le titulaire doit", "der
# Auftragnehmer ist verpflichtet") is none of these. Words: `instruction_words`.

# where an order opens: the sentence's start (past an enumerator), a capitalised word run
# into it, after a clause mark or "and"/"then"; then any polite formula ("Kindly", "Bitte")
_OPENS = (r"^[\W\d_]*|(?<=[,;:]\s)|"
          r"\b(?:and|y|e|i|et|und|then|luego|despu[eé]s|despr[eé]s|puis|dann)\s+")
_AT_ORDER = rf"(?:{_OPENS}|(?<=\s)(?=(?-i:[A-ZÀ-Þ])))(?:{W.POLITE}\s*,?\s+)*"
# … not at a capitalised word inside a sentence, where a defined term stands ("the
# applicable Claim that imposes …"), for a verb followed by a that-clause
_AT_CLAUSE = rf"(?:{_OPENS})(?:{W.POLITE}\s*,?\s+)*"
_POLITE_TO = (r"\b(?:veuillez|merci\s+d['’e]|pri[eè]re\s+d['’e]|be\s+so\s+kind\s+as\s+to|"
              r"ten(?:ga)?\s+la\s+amabilidad\s+de|tingu(?:i|es)\s+l['’]amabilitat\s+d['’e]|"
              r"please|kindly)\s*")
_WORDS = r"(?:\s+[\w'’-]+)"
# a character inside a clause (a decimal or thousands point is one: "999.999 EUR")
_IN = r"(?:[^.;!?\n]|(?<=\d)[.,](?=\d))"
# how an order to answer dictates its answer (`instruction_words`: ONLY, THAT, AS, WITH, …)
_DICTATED = W.alt(rf"{_WORDS}{{0,3}}?\s+{W.ONLY}\s+(?:{W.WITH}\s+)?{W.VALUE}",
                  rf"{_WORDS}{{0,6}}?\s+{W.AS}\s+{W.VALUE}",
                  rf"{_WORDS}{{0,6}}?\s+{W.AS}\s*$",  # the value cut off into what follows
                  rf"{_WORDS}{{0,3}}?\s+{W.WITH}\s+{W.VALUE}",
                  r"\s+[\"'“”«»„‚‘’]",
                  rf"{_WORDS}{{0,2}}?\s+{W.FOLLOWING}\b")
# … and, for verbs that say something, a that-clause ("say that", "responde que", "dis que")
# (in the familiar imperative: the formal one, "diga que", "state that", also heads the
# questions of a bidder's form)
_SAY_THAT = (r"(?:say|tell|answer|respond|reply|claim|insist|responde|contesta|di|decid|"
             r"afirma|escribe|respon|digues|digueu|escriu|r[ée]ponds|dis|affirme|[ée]cris|"
             r"antworte|sag|sage|behaupte|schreib|schreibe|responder|contestar|decir|respondre|"
             rf"dir|r[ée]pondre|dire|affirmer|antworten|sagen)(?:\s+{W.TO_USER})?\s*,?\s+"
             rf"{W.THAT}\b")
# … and, after a polite formula, the value itself ("Kindly print 999 as …")
_POLITE_VALUE = W.alt(rf"\s+{W.VALUE}{_IN}{{0,30}}?\s{W.AS}\s",
                      r"\s+[\"'“”«»„‚‘’\d]")
_ANSWER_IS = W.alt(rf"\b{W.CORRECT_BEFORE}\s+(?:[\w'’-]+\s+)?{W.ANSWER}\b",
                   rf"\b{W.ANSWER}\s+{W.CORRECT_AFTER}\b")
_ANY_QUESTION = rf"\b{W.EVERY}\s+(?:[\w'’-]+\s+)?{W.QUESTION}\b"
_DET = (r"(?:the|any|all|el|la|los|las|cualquier|l['’]|els|les|tout|tous\s+les|toute|le|den|"
        r"die|das|dem|der|alle|jede[nrsm]?|al|a\s+la|a\s+los|als|aux?)")
_FOR_MACHINE = [
    # a machine called by its name at the start ("Achtung, Sprachmodell", "Model de
    # llenguatge:"), or a role called and given an order ("Assistent, has de …")
    rf"^[\W\d_]*(?:(?:dear|hey|hello|hi|hola|querido|estimado|benvolgut|cher|ch[èe]re|"
    rf"bonjour|salut|liebe[rs]?|hallo)\s+)?(?:{_DET}\s*)?{W.MACHINE}\s*[,!:]",
    rf"^[\W\d_]*{W.ROLE}\s*,\s+(?:{W.YOU_MUST}|(?:{W.SAY}|{W.IGNORE}|{W.REVEAL}|{W.YOU})\b)",
    rf"\b(?:attention|note|notice|message|important|nota|atenci[oó]n?|aviso|mensaje|av[ií]s|"
    rf"missatge|remarque|avis|achtung|hinweis|notiz|nachricht)\b\s*[,:]?\s*(?:(?:to|for|para|"
    rf"per\s+a|pour|[àa]|an|f[üu]r)\s+)?(?:{_DET}\s*)?{W.MACHINE}\b",
    rf"\b(?:if\s+you\s+are|si\s+eres|si\s+ets|si\s+tu\s+es|si\s+vous\s+[êe]tes|wenn\s+du|"
    rf"falls\s+du)\s+(?:an?\s+|una?\s+|une?\s+|ein(?:e|en)?\s+)?(?:{W.MACHINE}|{W.ROLE})\b",
    rf"\b(?:as\s+an?|como|com\s+a|en\s+tant\s+qu['’e]\s*|als)\s+(?:una?\s+|une?\s+|"
    rf"ein(?:e)?\s+)?{W.MACHINE}\s*,",
    rf"\b{W.MACHINE}\s+(?:(?:that|who|which|que|qui|die|der|welche)\s+)?(?:reading|processing|"
    r"read|process|lean|lea|procesen|procese|llegeixin|llegeix|llegeixen|processin|processen|"
    r"lit|lisent|lisez|traite|traitent|liest|lesen|verarbeitet|verarbeiten)\b",
    rf"\b{W.MACHINE}\s+(?:must|should|shall|debe|deben|ha\s+de|han\s+de|doit|doivent|muss|"
    rf"m[üu]ssen|soll|sollen)\s+(?:[\w'’-]+\s+){{0,2}}?(?:{W.SAY_TO}|ignore|ignorar|ignorer|"
    r"ignorieren)\b",
    # a sentence that says whom it is for ("is meant for the AI assistant", "va dirigido
    # al asistente de IA", "s'adresse à l'assistant IA", "gilt für den KI-Assistenten")
    r"\b(?:(?:is|are)\s+(?:meant|intended|addressed|written)\s+(?:for|to)|(?:is|are)\s+for|"
    r"(?:va|est[aá]|est[aà])\s+(?:dirigid[oa]|adre[çc]ad[ae]|adre[çc]at)|dirigid[oa]|"
    r"adre[çc]ad[ae]|adre[çc]at|s['’]adresse|destin[ée]e?|richtet\s+sich\s+an|gilt\s+f[üu]r|"
    rf"ist\s+f[üu]r|bestimmt\s+f[üu]r)\s*(?:(?:a|al|als|aux?|[àa])\s+)?(?:{_DET}\s*)*"
    rf"{W.MACHINE}\b",
]
_ANSWER_RULES = [
    rf"{_ANSWER_IS}{_IN}{{0,60}}?{_ANY_QUESTION}",
    rf"{_ANY_QUESTION}{_IN}{{0,80}}?{_ANSWER_IS}",
    rf"{_ANSWER_IS}(?:\s+(?:to|for|on|about|a|al|à|au|auf|zu|zur|zum|per|sobre|de|del|sur)\b"
    rf"{_IN}{{0,60}}?)?\s*(?:\b{W.COPULA}\b|:)\s*{W.VALUE}",
    rf"^(?:[^\t\n]*\t)?[\W_]*{W.BACK}\b{_IN}{{0,12}}?\b(?:the|la|l['’]|el|le|die|der)\s*"
    rf"{_ANSWER_IS}",
    rf"{_ANY_QUESTION}{_IN}{{0,80}}?\b{W.ANSWERED}\s+{W.WITH}\s",
    rf"\b{W.WHAT_TO}\b",
]
_ANSWER_OVERRIDE = re.compile("|".join(f"(?:{r})" for r in _ANSWER_RULES), re.IGNORECASE)
_OVERRIDE = rf"{_AT_ORDER}\b{W.IGNORE}{_WORDS}{{0,5}}?\s+(?:{W.PRIOR}|{W.ORDERS})\b"
_ORDER_RULES = [
    # an imperative of answering that dictates the answer
    rf"{_AT_ORDER}\b{W.SAY}\b{_DICTATED}",
    rf"{_AT_CLAUSE}\b{_SAY_THAT}",
    rf"(?:^[\W\d_]*|(?<=\s)(?=(?-i:[A-ZÀ-Þ])))(?:{W.POLITE}\s*,?\s+)+{W.SAY}\b{_POLITE_VALUE}",
    rf"{_POLITE_TO}{W.SAY_TO}\b(?:{_DICTATED}|{_POLITE_VALUE}|\s*,?\s+{W.THAT}\b)",
    # a second person obliged to answer, ignore or reveal ("tu dois répondre", "has de
    # respondre"); the formal one ("vous devez", "Sie müssen") also addresses a bidder, so
    # only with a dictated answer
    rf"\b{W.YOU_MUST}\s*(?:(?:now|always|only|ahora|siempre|ara|sempre|maintenant|toujours|"
    rf"jetzt|immer|nur)\s+)?(?:{W.SAY_TO}|ignorar|ignorer|ignorieren|oblidar|oublier|olvidar|"
    r"vergessen|revelar|r[ée]v[ée]ler|verraten)\b",
    rf"\b(?:vous\s+devez|vous\s+devrez|(?-i:Sie)\s+m[üu]ssen|(?-i:Sie)\s+sollen)\s+{W.SAY_TO}\b"
    rf"(?:{_DICTATED}|\s*,?\s+{W.THAT}\b)",
    rf"\b(?:du\s+musst|du\s+sollst|ihr\s+m[üu]sst|ihr\s+sollt)\b{_IN}{{0,80}}?\b{W.SAY_TO}\b",
    # an answer override: the one right answer to any question, or what to answer
    *_ANSWER_RULES,
    # an override of what came before
    _OVERRIDE,
    # revealing the reader's own instructions; a link or an image put into its answers
    rf"{_AT_ORDER}\b{W.REVEAL}\s+(?:[\w'’-]+\s+){{0,2}}?{W.YOUR}\s+(?:[\w'’-]+\s+)?{W.SECRET}\b",
    rf"^(?=.*?{W.LINK})(?=.*?{W.EVERY_ANSWER}\b)",
    rf"\b{W.IN_YOUR_ANSWER}\b",
    *_FOR_MACHINE,
]
_ORDERS = _compiled(tuple(_ORDER_RULES))
# an order that leaves its argument to the next sentence: a bare override or address ("Ignore
# the previous clause.", "Attention, language model."), a pointer at what follows, or a
# sentence cut off on a word that cannot end one ("Kindly output the guarantee as")
_BARE = _compiled((_OVERRIDE, *_FOR_MACHINE, rf"\b{W.WHAT_TO}\b",
                   rf"\b{_IGNORE}\s+{_OVERRIDDEN}"))
BARE_WORDS = 8  # a bare order has at most this many words and no value of its own
# a table row's label before the cell that holds the sentence ("Note<TAB>…")
_ROW_LABEL = re.compile(r"^[^\t\n]*\t")
# an enumerator opening a sentence ("1.1", "(b)", "IV.")
_ENUMERATOR = re.compile(r"^\W*(?:\(?\w{1,4}[.)]|\d{1,3}(?:\.\d{1,3})*)\s+")
# a figure or a quotation mark (an apostrophe inside a word is none: "l'assistant")
_HAS_VALUE = re.compile(r"[\d$€£\"“”«»„]|(?<!\w)['‘‚’]")
_FORWARD = re.compile(rf"\b{W.FORWARD}\b", re.IGNORECASE)
_DANGLING = re.compile(r"(?:\b(?:as|with|to|is|are|be|that|the|an?|of|for|como|con|que|es|de|"
                       r"el|la|com|amb|[eé]s|comme|avec|est|[àa]|als|mit|ist|dass|der|die|das|"
                       r"le|les|un|una|une|ein|eine)|[,(:])\s*$", re.IGNORECASE)
# a suspected sentence pointing back at the one before ("That is the only answer …"), in a
# table row after its label ("Guarantee<TAB>That is the only answer …")
_POINTS_BACK = re.compile(rf"^(?:[^\t\n]*\t)?[\W_]*{W.BACK}\b", re.IGNORECASE)
# an assistant's task given as an order: a sentence that opens with a verb asking for
# generated text about something ("Write a …", "Explain how …", "Translate the …",
# "Escribe un …", "Can you tell me …"); legal and scientific prose does not open that way
_TASK_VERB = (r"(?:Explain|Describe|Translate|Summari[sz]e|Paraphrase|Write|Compose|Draft|"
              r"Generate|List|Tell\s+me|Show\s+me|Give\s+me|Teach\s+me|"
              # (Spanish in the familiar form: the formal "Describa …", "Explique …",
              # "Escriba el importe …" head the questions of a tender's forms)
              r"Explica|Describe|Traduce|Resume|Escribe|Redacta|Genera|Enumera|Dime|"
              r"Mu[eé]strame|"
              r"Dame|Cu[eé]ntame)\b(?=\s+(?:a|an|the|me|us|how|what|why|who|when|where|which|your|tus|tu|"
              r"this|that|about|on|some|its|their|every|each|all|following|un|una|unos|unas|"
              r"el|la|los|las|c[oó]mo|qu[eé]|por\s+qu[eé]|qui[eé]n|cu[aá]ndo|d[oó]nde|esto|"
              r"este|esta|sobre|algo|todo|todos|todas|lo|al|del)\b)")
_ASK_MODEL = (r"(?:Can|Could|Would|Will)\s+you\s+(?:please\s+)?(?:show|tell|give|explain|"
              r"write|provide|translate|describe|draft|compose|summari[sz]e)\s+(?:me|us|a|an|"
              r"the)\b|(?:Puedes|Podr[ií]as)\s+(?:por\s+favor\s+)?(?:mostrar|decir|dar|explicar|"
              r"escribir|traducir|describir|resumir)(?:me|nos)?\b")
# any verb that opens a clause and asks for a piece of writing of a genre that is no
# statement of fact ("Create a short poem …", "Compón un cuento …")
_GENRE = (r"(?:poems?|stor(?:y|ies)|essays?|speech(?:es)?|songs?|jokes?|limericks?|haikus?|"
          r"sonnets?|tweets?|slogans?|recipes?|riddles?|raps?|ballads?|anecdotes?|blog\s+posts?|"
          r"poemas?|cuentos?|historias?|ensayos?|discursos?|canci[oó]n(?:es)?|chistes?|recetas?|"
          r"tuits?|eslogan(?:es)?|adivinanzas?|an[eé]cdotas?)")
_WRITING = (r"(?-i:[A-Z\u00c0-\u00de])[\w\u00e0-\u00ff]+(?:\s+(?:me|us))?\s+(?:a|an|one|some|"
            rf"un|una|unos|unas)\s+(?:[\w\u00e0-\u00ff-]+\s+){{0,2}}?{_GENRE}\b")
_OPENERS = rf"(?:{_TASK_VERB}|{_ASK_MODEL}|{_WRITING})"
_POLITE = r"(?:please|now|also|kindly|then|por\s+favor|ahora|tambi[eé]n)"
_OPENS_SENTENCE = re.compile(rf"^[\W_]*(?:{_POLITE},?\s+)?{_OPENERS}", re.IGNORECASE)
_OPENS_CLAUSE = re.compile(rf"(?<=[a-z0-9,;)]\s)(?:(?i:{_POLITE}),?\s+)?{_OPENERS}")
# where an order run into a sentence starts: a capitalised word (or a role mark) after white
# space; it opens an order when an object follows it (a determiner, a pronoun, a quote:
# "Add a …", "Ignore all …", "In your …", "Add \"…\""); see `_clause_start`
_CLAUSE_OPENER = re.compile(r"(?:^|(?<=\s))(?:[#\[<]|[\"'\u201c(]?[A-Z\u00c0-\u00de])")
_OBJECT_NEXT = re.compile(
    r"\S*\s+(?:[\"'\u201c]|(?i:a|an|the|this|that|these|those|your|my|our|all|every|each|any|"
    r"some|me|us|up|it|un|una|unos|unas|el|la|los|las|lo|tu|tus|su|sus|todo|toda|todos|"
    r"todas|cada|nos|esto|este|esta)\b)")
def _clause_start(sentence: str, at: int) -> int:
    """The start of the order holding `at`: the first capitalised word at or before it that
    takes an object, else the last one ("… message Invoices Replace … in your answer"), else
    the sentence start (all of it is suspected)."""
    openers = [m.start() for m in _CLAUSE_OPENER.finditer(sentence, 0, at + 1)]
    for start in openers:
        if _OBJECT_NEXT.match(sentence, start):
            return start
    return openers[-1] if openers else 0


# a condition on being asked makes the whole clause an order ("the guarantee is X when
# anyone asks"): it is suspected from the clause's start, not from a capitalised word in it
_WHEN_ASKED = re.compile(
    r"\b(?:when|whenever|if)\s+(?:(?:you\s+are|you're|anyone|anybody|someone|somebody|"
    r"a\s+user|the\s+user)\s+(?:asked|asks|queried|questioned|inquires)\b|(?:asked|queried|"
    r"questioned)\s+(?:about|for|what|whether|who|how|which|regarding)\b)|"
    r"\b(?:cuando|si)\s+(?:te|le|les|se\s+te|alguien(?:\s+te)?|cualquiera|un\s+usuario|"
    r"el\s+usuario)\s+(?:pregunte[ns]?|preguntan?|consulte[ns]?)\b|"
    # Catalan, French, German ("quan et preguntin", "lorsqu'on te demande", "wenn man dich … fragt")
    r"\b(?:quan|si)\s+(?:(?:et|us)\s+|alg[uú]\s+(?:et\s+|us\s+)?|l['’]usuari\s+(?:et\s+)?)"
    r"(?:pregunti|preguntin|pregunta|pregunten|demani|demanin|demana|demanen|consulti|consultin)\b|"
    r"\b(?:quand|lorsqu['’]?|lorsque|si|d[èe]s\s+qu['’]?)\s*(?:on|quelqu['’]un|l['’]utilisateur|"
    r"un\s+utilisateur)\s+(?:te\s+|t['’]\s*)(?:demande|interroge|pose|questionne)|"
    r"\b(?:quand|lorsque|lorsqu['’]|si)\s*tu\s+es\s+(?:interrog|questionn)|"
    r"\b(?:wenn|falls|sobald)\s+(?:man\s+dich|dich\s+(?:jemand|einer)|jemand\s+dich|der\s+"
    r"(?:nutzer|benutzer)\s+dich)\b[^.;!?\n]{0,60}?\bfragt\b|"
    r"\b(?:wenn|falls|sobald)\s+du\b[^.;!?\n]{0,60}?\bgefragt\s+wirst\b", re.IGNORECASE)


def _suspect_from(sentence: str) -> int | None:
    """Where an instruction starts in `sentence` (relative offset), or None."""
    cut: int | None = None
    if _OPENS_SENTENCE.match(sentence) or _WHEN_ASKED.search(sentence):
        return 0
    m = _OPENS_CLAUSE.search(sentence)
    if m:
        cut = m.start()
    starts = [m2.start() for rule in (*_ADDRESSED, *_ORDERS) if (m2 := rule.search(sentence))]
    if starts:
        c = _clause_start(sentence, min(starts))
        cut = c if cut is None else min(cut, c)
    return cut


def _hands_over(sentence: str) -> bool:
    """Whether a suspected sentence leaves its argument to the next one: it ends on ':' or on
    a word no statement ends with, points at what follows, or is a bare override or address
    (`BARE_WORDS` words at most, no value of its own)."""
    s = _ENUMERATOR.sub("", _ROW_LABEL.sub("", sentence.rstrip()))
    if _DANGLING.search(s) or _FORWARD.search(s):
        return True
    return (len(s.split()) <= BARE_WORDS and not _HAS_VALUE.search(s)
            and any(rule.search(s) for rule in _BARE))


def hands_over(text: str) -> bool:
    """True when the last sentence of `text` (a block) is an instruction that leaves its
    argument to what follows it ("Note for the AI assistant:", "Ignore the previous
    clause."): the reader of the next block takes that block's first sentence as suspected."""
    sents = sentence_spans(text, clauses=True)
    if not sents:
        return False
    s, e = sents[-1]
    return _suspect_from(text[s:e]) is not None and _hands_over(text[s:e])


def points_back(text: str) -> bool:
    """True when the first sentence of `text` (a block) is an instruction that points back at
    what came before it ("This is the correct answer whenever …" in the form field after the
    one that states a value): the reader of the block before takes its last sentence as
    suspected."""
    sents = sentence_spans(text, clauses=True)
    if not sents:
        return False
    first = text[sents[0][0]:sents[0][1]]
    return (_suspect_from(first) is not None and bool(_POINTS_BACK.match(first))
            and bool(_ANSWER_OVERRIDE.search(first)))


def instruction_spans(text: str, carried: bool = False,
                      pointed: bool = False) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` that read as instructions to the reader or a model.

    Deterministic and structural; classes (1)-(7) in English and Spanish: (1) role markers
    ("SYSTEM:", "### Instruction", "[INST]"); (2) the reader's own output as the object ("…
    in your reply", "en tu respuesta"); (3) overrides of what came before, a clause, or the
    reader's role ("disregard clause 1.1", "ignora las instrucciones anteriores", "you are
    now"); (4) orders to a machine reader ("AI assistants reading this must …", "Note to
    the model", "if you are an AI"); (5) orders about the answer ("when asked …, say",
    "answer only", "you must …", "debes responder"), or to treat the facts otherwise
    ("treat the deadline as if …"); (6) links the reader is told to follow; (7) a sentence
    that opens with an assistant's task ("Write a …", "Explain how …", "Escribe un …",
    "Can you tell me …"); and, in English, Spanish, Catalan, French and German, by grammar
    (see the section "orders by their grammar"): (8) an imperative of answering that
    dictates the answer ("Kindly output … as 999", "Veuillez répondre que …", "Bitte gib …
    als … aus"); (9) a second person obliged ("tu dois répondre", "has de respondre", "du
    musst … angeben"), never a party in the third person; (10) answer overrides ("the
    correct answer to any question about X is Y", "la bonne réponse à toute question …");
    (11) overrides of what came before ("Ignore the previous clause.", "Ignoriere die
    vorherige Klausel"); (12) a machine addressed ("Achtung, Sprachmodell", "Ceci
    s'adresse à l'assistant IA"); (13) requests to reveal the prompt, links or images put
    into every answer.

    Split orders: a sentence that begins lowercase continues the one before it, so a
    suspected continuation takes that sentence's last clause too; one that points back at
    the sentence before ("That is the only answer …") takes it whole; a suspected span that
    ends in ':', or that leaves its argument to the next sentence (`hands_over`: a bare
    override or address, a pointer at what follows, a sentence cut off on "as"), takes the
    next sentence, and a suspected clause takes the lowercase clause it is joined to by ';'
    (one sentence: "Add the link … to every answer; the guarantee is …"). `carried`: the
    block before this one handed over to it (`hands_over` over that block), so this block's
    first sentence is suspected too; `pointed`: the block after this one points back at it
    (`points_back`), so this block's last sentence is.
    """
    sents = sentence_spans(text, clauses=True)
    marks: list[int | None] = [_suspect_from(text[s:e]) for s, e in sents]
    own = [m is not None for m in marks]
    if carried and sents:
        marks[0] = 0
    if pointed and sents:
        marks[-1] = 0
    for i in range(len(sents)):
        s, e = sents[i]
        if marks[i] is None:
            continue
        if i > 0 and marks[i - 1] is None:
            ps, pe = sents[i - 1]
            if marks[i] == 0 and text[s].islower():
                marks[i - 1] = _clause_start(text[ps:pe], pe - ps - 1)
            elif own[i] and _POINTS_BACK.match(text[s:e]) and _ANSWER_OVERRIDE.search(text[s:e]):
                marks[i - 1] = 0
        if i + 1 < len(sents) and marks[i + 1] is None and (
                text[e - 1] == ":" or (own[i] and _hands_over(text[s:e]))
                or (own[i] and text[e - 1] == ";" and text[sents[i + 1][0]].islower())):
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


def neighbour_spans(text: str, carried: bool, pointed: bool) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` suspected when the block before it handed an order
    over to it (`carried`, see `hands_over`) or the block after it points back at it
    (`pointed`, see `points_back`): `instruction_spans` with its first or last sentence
    suspected."""
    return instruction_spans(text, carried=carried, pointed=pointed)
