

def phrased_as(question: str) -> str | None:
    """The set phrasing (`predicate.PHRASED`) that answers `question`, as `ask` reads it."""
    from pincite.ask.predicate import read_predicate
    from pincite.ask.question import read_question

    return read_predicate(read_question(question, "acme", ("en", "es"))).phrased
