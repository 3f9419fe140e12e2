"""Answer or abstain (`pincite ask`): the passages that answer a question, each with a
verified citation, or "not found in the documents you can see".

- `instructions`  text that is not a statement: instructions addressed to a reader or a
                  model, and questions; cut out before a block is read for evidence
- `instruction_words`  the words of address by language (EN, ES, CA, FR, DE) its rules join
- `predicate`     what a statement must state to answer beyond the question's words: the
                  asked action and condition, a beginning's date, this document's name
- `answer`        `ask(store, question, principal, …) -> AskResult`: retrieval, then each
                  candidate sentence read with its neighbours, then verification
"""
