"""Math: replies in words and numbers, not code.  A `math` task's reply is judged on its final answer
(`coderl.sandbox.answers`), so "parses" and "compiles" mean that a final answer can be read from it (the
`syntax` reward then pays for a readable answer), nothing defines a function, and the completion format
writes the question as "Question: ...\\nAnswer:" and stops at the next "\\nQuestion:"."""

from __future__ import annotations

from coderl.languages.language import Language, register_language


def has_answer(text: str) -> bool:
    """A final answer can be read from `text` (`coderl.sandbox.answers.extract_answer`)."""
    from coderl.sandbox.answers import extract_answer

    return extract_answer(text) is not None


def prose_header(question: str) -> str:
    return f"Question: {question.strip()}\nAnswer:"


MATH = register_language(Language(
    name="math", display="math", fence_tag="", fence_tags=frozenset(),
    parses=has_answer, compiles=has_answer, compile_error=None,
    definition=r"(?!)", prose_header=prose_header,  # never matches: a reply defines no function
    implements=None, completion_stops=("\nQuestion:",),
))
