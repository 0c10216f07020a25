"""A worked example of a family module (the leading underscore keeps it out of the corpus)."""

from coderl.tasks.corpus.define import Family, Scenario

FAMILY = Family("example", "worked examples of the two problem shapes")


@FAMILY.problem(
    "Return how many words of `sentence` start with an upper-case letter. Words are separated by"
    " whitespace.",
    "Count the words in sentence whose first character is a capital letter; runs of spaces separate"
    " words and an empty sentence has none.",
    examples=[("Hello big World",), ("no capitals",)],
    tests=[("",), ("A b C d",), ("   Spaced   out  Words ",), ("ALL CAPS",), ("x",)],
)
def count_capitalised(sentence: str) -> int:
    return sum(1 for word in sentence.split() if word[0].isupper())


@FAMILY.class_problem(
    "A counter that can only go up to `limit`. `add(n)` increases the count by n but never past the"
    " limit, `reset()` sets it back to 0, and `value()` returns the current count.",
    examples=[Scenario((5,), (("add", 3), ("value",), ("add", 4), ("value",)))],
    tests=[
        Scenario((10,), (("value",),)),
        Scenario((3,), (("add", 1), ("add", 1), ("value",), ("add", 5), ("value",))),
        Scenario((4,), (("add", 4), ("reset",), ("value",), ("add", 2), ("value",))),
        Scenario((0,), (("add", 7), ("value",))),
    ],
    queries=("value",),
)
class CappedCounter:
    def __init__(self, limit: int):
        self.limit = limit
        self.count = 0

    def add(self, n: int) -> None:
        self.count = min(self.limit, self.count + n)

    def reset(self) -> None:
        self.count = 0

    def value(self) -> int:
        return self.count
