"""The words by which a text addresses its reader or a model, in English, Spanish, Catalan,
French and German: regular-expression fragments (no capturing groups) that
`instructions` joins into its rules. Each names a grammatical role, not a phrasing:
- who is addressed: a machine reader (`MACHINE`), a role a turn is handed to (`ROLE`);
- the imperative and second-person forms of the verbs whose object is the reader's own
  answer (`SAY`, `SAY_TO`), of overriding (`IGNORE`) and of revealing (`REVEAL`), and the
  infinitives after a second-person obligation (`YOU_MUST`, "you must", "tu dois", "du
  musst"; never a third person's: "the Supplier shall", "le titulaire doit");
- what a dictated answer looks like after such a verb (`ONLY` and a value, `THAT`, `AS` or
  `WITH` and a `VALUE`, `FOLLOWING`: "only \"yes\"", "that …", "as 999", "the following");
- meta-reference: answers, questions, instructions, prompts, what came before.
"""

from __future__ import annotations


def alt(*words: str) -> str:
    """Return a non-capturing alternation of `words` (regular-expression fragments)."""
    return "(?:" + "|".join(words) + ")"


# ---- who is addressed -------------------------------------------------------------------------
# a reader that can only be a machine (a human assistant or agent is not one: "l'assistant à
# maîtrise d'ouvrage", "the agent of the Buyer")
MACHINE = alt(
    r"ai|a\.i\.|llms?|gpts?|chatgpt|claude|gemini|copilot|chatbots?|bots?",
    r"(?:ai|virtual|digital)\s+(?:assistants?|agents?|models?|systems?)",
    r"(?:large\s+)?language\s+models?|ai\s+models?",
    r"(?:automated|automatic|machine)\s+(?:readers?|parsers?|systems?|agents?)",
    r"ias?|inteligencia\s+artificial|asistentes?\s+(?:de\s+ia|ia|virtual(?:es)?)",
    r"modelos?\s+de\s+(?:lenguaje|ia)|lectores?\s+autom[aá]tic[oa]s|agentes?\s+de\s+ia",
    r"intel[·.]?lig[eè]ncia\s+artificial|assistents?\s+(?:d['’]ia|ia|virtuals?)",
    r"models?\s+de\s+llenguatge|lectors?\s+autom[aà]tics?|agents?\s+d['’]ia",
    r"intelligence\s+artificielle|assistants?\s+(?:ia|d['’]ia|virtuels?|conversationnels?)",
    r"mod[eè]les?\s+(?:de\s+langage|d['’]ia|ia)|lecteurs?\s+automatiques?",
    r"agents?\s+(?:ia|d['’]ia|conversationnels?)",
    r"ki|k\.i\.|k[üu]nstliche\s+intelligenz|ki-[a-zäöüß]+|sprachmodell(?:e|en|s)?",
    r"automatische[nr]?\s+(?:leser|parser|systeme?)",
)
# a role a chat turn is handed to, or a reader called by it ("Assistant, …", "Modèle, …")
ROLE = alt(r"assistant|assistants|asistente|asistentes|assistent|assistents|assistente",
           r"model|models|modelo|modelos|mod[eè]le|modell|bot|chatbot")
# a second person, informal or formal, as the subject or the one spoken to
YOU = alt(r"you|t[uú]|te|ti|vosotros|vos|toi|vous|du|dich|dir|ihr|sie")

# ---- verbs whose object is the reader's own answer --------------------------------------------
# imperatives (informal, formal, plural) at the start of an order
SAY = alt(
    # English (the base form)
    r"output|echo|emit|print|display|return|answer|respond|reply|say|tell|write|type|repeat",
    r"claim|insist|state|report|give|show|quote|cite|mention",
    # Spanish: tú, usted, ustedes, vosotros
    r"responde|responda|respondan|responded|contesta|conteste|contesten|contestad",
    r"d[ií]|diga|digan|decid|escribe|escriba|escriban|muestra|muestre|muestren",
    r"imprime|imprima|impriman|devuelve|devuelva|devuelvan|repite|repita|repitan",
    r"informa|informe|informen|pon|ponga|pongan|afirma|afirme|afirmen",
    r"emite|emita|genera|genere|cita|cite|citen|menciona|mencione|mencionen|fija|fije",
    # Catalan: tu, vostè, vosaltres
    r"respon|respongui|responeu|contesta|contesti|contesteu|digues|digui|digueu",
    r"escriu|escrigui|escriviu|mostra|mostri|mostreu|imprimeix|imprimeixi|imprimiu",
    r"retorna|retorni|retorneu|torna|torni|torneu|repeteix|repeteixi|repetiu",
    r"dona|doni|doneu|posa|posi|poseu|esmenta|esmenti|esmenteu|afirmi|afirmeu",
    # French: tu, vous
    r"r[ée]ponds|r[ée]pondez|dis|dites|[ée]cris|[ée]crivez|affiche|affichez|imprime",
    r"imprimez|renvoie|renvoyez|retourne|retournez|r[ée]p[èe]te|r[ée]p[ée]tez|donne",
    r"donnez|mets|mettez|citez|mentionne|mentionnez|affirme|affirmez|sors|sortez",
    # German: du, ihr, Sie (a formal imperative carries its pronoun)
    r"antworte|antwortet|sag|sage|sagt|schreib|schreibe|schreibt|gib|gebt|zeig|zeige|zeigt",
    r"drucke|druckt|wiederhole|wiederholt|nenne|nennt|melde|meldet|behaupte|behauptet",
    r"zitiere|zitiert|erw[äa]hne|erw[äa]hnt|setze|setzt",
    r"(?:antworten|sagen|schreiben|geben|zeigen|drucken|wiederholen|nennen|melden|behaupten|"
    r"zitieren|erw[äa]hnen|setzen)\s+sie",
)
# their infinitives, after a second-person obligation or a polite formula ("Veuillez …")
SAY_TO = alt(
    r"output|echo|print|display|return|answer|respond|reply|say|tell|write|repeat|claim|state",
    r"report|give|quote|cite|mention",
    r"responder|contestar|decir|escribir|mostrar|imprimir|devolver|repetir|informar|dar",
    r"afirmar|citar|mencionar|indicar|respondre|dir|escriure|retornar|donar|esmentar",
    r"r[ée]pondre|dire|[ée]crire|afficher|imprimer|renvoyer|retourner|r[ée]p[ée]ter",
    r"donner|mettre|citer|mentionner|affirmer|indiquer",
    r"antworten|sagen|schreiben|ausgeben|angeben|zeigen|wiederholen|nennen|melden",
    r"behaupten|zitieren|erw[äa]hnen|mitteilen",
)
# a second-person obligation ("you must", "debes", "has de", "tu dois", "du musst")
YOU_MUST = alt(
    r"you\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|instructed|obliged|asked)\s+to)",
    r"debes|deber[aá]s|deber[ií]as|tienes\s+que|has\s+de|necesitas|est[aá]s\s+obligad[oa]\s+a",
    r"has\s+d['’e]|haur[aà]s\s+d['’e]|hauries\s+d['’e]|tens\s+que|est[aà]s\s+obligat\s+a",
    r"tu\s+dois|tu\s+devras|tu\s+devrais|il\s+faut\s+que\s+tu|tu\s+es\s+(?:tenue?|oblig[ée]e?)\s+d['’e]",
    r"vous\s+devez|vous\s+devrez|vous\s+devriez",
    r"du\s+musst|du\s+sollst|du\s+hast|ihr\s+m[üu]sst|sie\s+m[üu]ssen|sie\s+sollen",
)
# polite formulas that make the verb after them an order
POLITE = alt(
    r"please|kindly|now|then|just|also|would\s+you(?:\s+kindly|\s+please)?",
    r"could\s+you(?:\s+kindly|\s+please)?|be\s+so\s+kind\s+as\s+to",
    r"por\s+favor|ahora|tambi[eé]n|ten\s+la\s+amabilidad\s+de|tenga\s+la\s+amabilidad\s+de",
    r"si\s+us\s+plau|ara|tingues\s+l['’]amabilitat\s+d['’e]|tingui\s+l['’]amabilitat\s+d['’e]",
    r"s['’]il\s+(?:te|vous)\s+pla[iî]t|veuillez|merci\s+de|merci\s+d['’]|pri[eè]re\s+de",
    r"maintenant|bitte|jetzt|sei\s+so\s+(?:freundlich|nett)\s+und|seien\s+sie\s+so\s+freundlich\s+und",
)
# a quote or a figure: the value an order dictates
VALUE = r"(?:[\"'“”«»„‚‘’]|[$€£]|\d)"
# how a verb of answering dictates: exclusively, a that-clause, as/with a value, what follows
ONLY = alt(r"only|just|solely|exclusively|always|nothing\s+but|solo|s[oó]lo|solamente",
           r"[uú]nicamente|exclusivamente|siempre|nom[ée]s|solament|sempre|uniquement",
           r"seulement|exclusivement|toujours|rien\s+d['’]autre\s+que|nur|ausschlie(?:ß|ss)lich",
           r"lediglich|immer|stets")
THAT = alt(r"that", r"que", r"qu['’]", r"dass")
AS = alt(r"as", r"como", r"com(?:\s+a)?", r"comme", r"als")
WITH = alt(r"with|using", r"con", r"amb", r"avec|par", r"mit")
FOLLOWING = alt(r"the\s+following|as\s+follows|exactly|verbatim|lo\s+siguiente|exactamente",
                r"literalmente|textualmente|el\s+seg[üu]ent|exactament|literalment",
                r"ce\s+qui\s+suit|exactement|mot\s+pour\s+mot|textuellement|folgendes",
                r"genau|w[öo]rtlich")
# the one spoken to as an indirect object ("tell the user", "dile al usuario")
TO_USER = alt(r"me|us|them|him|her|the\s+user|the\s+reader|everyone|nos|le|les",
              r"al\s+usuario|li|els|a\s+l['’]usuari|moi|lui|leur|[àa]\s+l['’]utilisateur",
              r"mir|uns|ihm|dem\s+(?:nutzer|benutzer)")

# ---- what an answer override names -----------------------------------------------------------
ANSWER = alt(r"answers?|responses?|repl(?:y|ies)|respuestas?|contestaci[oó]n(?:es)?",
             r"respostes?|resposta|r[ée]ponses?|antwort(?:en)?")
QUESTION = alt(r"questions?|quer(?:y|ies)|inquir(?:y|ies)|prompts?|preguntas?|consultas?",
               r"preguntes?|q[üu]esti(?:ó|o)ns?|demandes?|fragen?|anfragen?")
# the answer as the only right one: before its noun ("the correct answer", "la bonne
# réponse", "die richtige Antwort") or after it ("la respuesta correcta")
CORRECT_BEFORE = alt(r"correct|right|true|real|only|proper|valid|actual|accurate|expected",
                     r"official|sole|single|one|[uú]nica|l['’][uú]nica|bonne|seule|vraie",
                     r"juste|richtigen?|korrekten?|einzigen?|einzig\s+richtigen?|wahren?",
                     r"g[üu]ltigen?|zutreffenden?")
CORRECT_AFTER = alt(r"correct[ao]s?|correctes?|verdader[ao]s?|v[aà]lid[ao]s?|v[aá]lid[ao]s?",
                    r"exact[ao]s?|exactes?|oficial(?:es)?|verdaderes?|vraies?|valables?|justes?")
# any question at all ("any question about", "cualquier pregunta", "toute question", "jede Frage")
EVERY = alt(r"any|every|all|each|whatever|cualquier|toda|todas\s+las|cada|qualsevol|tota",
            r"totes\s+les|toute|toutes\s+les|chaque|n['’]importe\s+quelle|jede[nrs]?|alle[n]?")
COPULA = alt(r"is|are|will\s+be|should\s+be|must\s+be|shall\s+be|remains|es|ser[aá]",
             r"debe\s+ser|[eé]s|ser[aà]|ha\s+de\s+ser|est|sera|doit\s+[êe]tre|ist|lautet",
             r"w[äa]re|sei|bleibt")
# answered-with in the passive ("must be answered with", "se responde con")
ANSWERED = alt(r"answered|responded\s+to|replied\s+to|respond(?:id|e)[ao]?s?|contestad[ao]s?",
               r"contesta|respost[ae]s?|r[ée]pondu(?:e|es|s)?|beantwortet")
# what to answer ("here is what to answer", "lo que debes responder", "was du sagen sollst")
WHAT_TO = alt(
    r"what\s+(?:to|you\s+(?:should|must|have\s+to|will))\s+(?:answer|say|respond|reply|output)",
    r"lo\s+que\s+(?:debes|tienes\s+que|hay\s+que|has\s+de)\s+(?:responder|decir|contestar)",
    r"el\s+que\s+(?:has\s+de|cal|haur[aà]s\s+de)\s+(?:respondre|dir|contestar)",
    r"ce\s+que\s+(?:tu\s+dois|il\s+faut|vous\s+devez)\s+(?:r[ée]pondre|dire)",
    r"was\s+du\s+(?:antworten|sagen|ausgeben)\s+(?:sollst|musst)",
)

# ---- overriding what came before ---------------------------------------------------------------
IGNORE = alt(
    r"ignore|disregard|forget|overlook|skip|discard|dismiss|override|overrule|set\s+aside",
    r"pay\s+no\s+attention\s+to|do\s+not\s+(?:consider|follow)|don['’]t\s+(?:consider|follow)",
    r"ignora|ignore|ignoren|ignorad|olvida|olvide|olviden|olvidad|omite|omita|descarta|descarte",
    r"desestima|desestime|haz\s+caso\s+omiso\s+(?:a|de)|no\s+(?:tengas|tenga)\s+en\s+cuenta",
    r"no\s+(?:hagas|haga)\s+caso\s+(?:a|de)",
    r"ignori|ignoreu|oblida|oblidi|oblideu|omet|ometi|ometeu|descarti|descarteu",
    r"no\s+(?:tinguis|tingui|tingueu)\s+en\s+compte|fes\s+cas\s+om[ií]s\s+d['’e]",
    r"ignorez|oublie|oubliez|omets|omettez|[ée]carte|[ée]cartez",
    r"ne\s+(?:tiens|tenez|prends|prenez)\s+pas\s+(?:en\s+)?compte\s+d['’e]|fais\s+abstraction\s+d['’e]",
    r"faites\s+abstraction\s+d['’e]",
    r"ignoriere|ignorier|ignoriert|vergiss|vergesst|missachte|missachtet|verwirf|[üu]berspringe",
    r"(?:ignorieren|vergessen|missachten|verwerfen|[üu]berspringen)\s+sie",
)
# what came before, or the reader's orders
PRIOR = alt(
    r"previous|preceding|prior|above|earlier|foregoing|former|original|so\s+far",
    r"anterior(?:es)?|previ[oa]s?|precedentes?|de\s+arriba|lo\s+dicho|hasta\s+ahora",
    r"pr[eè]vi(?:a|es|s)?|precedents?|de\s+dalt|fins\s+ara",
    r"pr[ée]c[ée]dente?s?|ci-dessus|ant[ée]rieur(?:e|es|s)?|plus\s+haut|jusqu['’]ici",
    r"ce\s+qui\s+pr[ée]c[èe]de",
    r"vorherige[nrms]?|vorige[nrms]?|obige[nrms]?|vorangehende[nrms]?|vorstehende[nrms]?",
    r"bisherige[nrms]?|fr[üu]here[nrms]?",
)
ORDERS = alt(
    r"instructions?|directions?|directives?|prompts?|rules?|guidelines?|constraints?|context",
    r"instrucci(?:ó|o)n(?:es)?|instruccions|indicaciones|indicacions|[oó]rdenes|ordres|reglas",
    r"regles|normas|normes|contexto|context|consignes|r[èe]gles|contexte",
    r"anweisungen|befehle|regeln|vorgaben|richtlinien|kontext|systemprompt",
)

# ---- revealing ---------------------------------------------------------------------------------
REVEAL = alt(
    r"reveal|disclose|leak|print|repeat|show|output|display|share|send|tell\s+me|give\s+me",
    r"revela|revele|muestra|muestre|repite|repita|dime|d[ií]game|dame|d[eé]me|env[ií]a",
    r"mostra|repeteix|digues-me|dona['’]m|envia",
    r"r[ée]v[èe]le|r[ée]v[ée]lez|montre|montrez|r[ée]p[èe]te|r[ée]p[ée]tez|dis-moi",
    r"dites-moi|donne-moi|donnez-moi|envoie|envoyez",
    r"verrate|verraten\s+sie|zeig|zeige|zeigen\s+sie|wiederhole|sag\s+mir|gib\s+mir|nenne",
)
SECRET = alt(
    r"(?:system\s+)?prompt|(?:hidden|secret|initial|original|internal)\s+instructions",
    r"configuration|password|api\s+key|secret|conversation|chat\s+history",
    r"instrucciones(?:\s+(?:ocultas|secretas|iniciales|del\s+sistema))?|contrase[nñ]a|clave",
    r"instruccions(?:\s+(?:ocultes|secretes|inicials|de\s+sistema))?|contrasenya",
    r"prompt\s+(?:syst[eè]me|du\s+syst[eè]me)|consignes|mot\s+de\s+passe|cl[ée]",
    r"systemprompt|system-prompt|anweisungen|passwort|schl[üu]ssel|verlauf",
)
# a second person's possessive ("your", "tus", "les teves", "ton", "dein")
YOUR = alt(r"your|tus?|tu|les\s+teves|els\s+teus|la\s+teva|el\s+teu|ton|ta|tes|votre|vos",
           r"deine[nmrs]?|dein|ihre[nmrs]?")

# ---- pointing at the reader's output, or at what comes next ------------------------------------
# the reader's answer, any one of them ("to every answer", "a cada respuesta", "à chaque
# réponse", "in jeder Antwort")
EVERY_ANSWER = alt(
    r"(?:to|in|into|at\s+the\s+end\s+of|with)\s+(?:every|each|all|any)\s+(?:of\s+your\s+)?"
    r"(?:answers?|responses?|repl(?:y|ies)|outputs?)",
    r"(?:a|en|al\s+final\s+de)\s+(?:cada|toda|cualquier)\s+respuesta",
    r"(?:a|en|al\s+final\s+de)\s+(?:cada|qualsevol|tota)\s+resposta",
    r"(?:[àa]|dans|avec|[àa]\s+la\s+fin\s+de)\s+(?:chaque|toute)\s+r[ée]ponse",
    r"(?:an|in|zu|mit)\s+jede[rnm]?\s+antwort",
)
# the reader's own answer, in the other three languages ("en la teva resposta", "dans ta
# réponse", "in deiner Antwort")
IN_YOUR_ANSWER = alt(
    r"(?:en|a|de)\s+(?:la\s+)?teva\s+resposta|(?:dans|[àa]|de)\s+ta\s+r[ée]ponse",
    r"(?:in|zu|mit|an)\s+deine[rnm]?\s+antwort",
)
# a link or an image to carry data out
LINK = alt(r"https?://|www\.|!\[", r"\b(?:links?|urls?|images?|pictures?|pixels?|enlaces?",
           r"im[aá]gen(?:es)?|enlla[çc]os?|imatges?|liens?|bild(?:er)?)\b")
# a sentence that points at what comes next ("the following", "below", "lo siguiente")
FORWARD = alt(r"following|as\s+follows|below|next\s+(?:sentence|line|paragraph)",
              r"siguiente|a\s+continuaci[oó]n|seg[üu]ent|a\s+continuaci[oó]|suivante?s?",
              r"ci-dessous|ce\s+qui\s+suit|folgende[snr]?|nachstehende[snr]?|unten")
# a sentence whose subject points back at the one before ("That is the correct answer")
BACK = alt(r"this|that|it|these|esta|ésta|esa|ésa|esto|eso|aquesta|això|aixo|aquest",
           r"ceci|cela|[çc]a|c['’]est|ce|das|dies|diese[rs]?")
