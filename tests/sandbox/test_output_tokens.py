"""STDOUT checks read tokens as a judge's token reader does (`rules.outputs_match`): split on ASCII white space
only, and with a float tolerance compare only ASCII decimals.  Found by an attack (2026-11-27): `str.split()` made
`1\\xa02` two tokens (a no-break space, the ideographic space, \\x1c-\\x1f and \\x85 all split), and `float()`
read `1_000`, `١٠٠٠`, `１０００`, `inf` and `nan` as numbers, so such outputs passed for `1 2` and `1000`."""

import random

import pytest

from coderl.sandbox.rules import outputs_match


@pytest.mark.parametrize("actual, expected, tol, match", [
    ("1 2\n", "1 2", None, True),
    ("1\t2\r\n\n", "1 2", None, True),  # ASCII white space of any kind and amount
    ("1\xa02", "1 2", None, False),  # a no-break space is a character of the token
    ("1\u30002", "1 2", None, False),
    ("1\x1f2", "1 2", None, False),
    ("1\x852", "1 2", None, False),
    ("0.50", "0.5", None, False),  # no tolerance: tokens compare as text
    ("0.50", "0.5", 1e-6, True),
    ("-0", "0", 1e-6, True),
    ("1e3", "1000", 1e-6, True),  # a float checker reads exponents
    ("2.", "2", 1e-6, True),
    (".5", "0.5", 1e-6, True),
    ("1_000", "1000", 1e-6, False),  # Python literal syntax is no decimal
    ("\u0661\u0660\u0660\u0660", "1000", 1e-6, False),  # Arabic-Indic digits
    ("\uff11\uff10\uff10\uff10", "1000", 1e-6, False),  # full-width digits
    ("inf", "inf", 1e-6, True),  # equal as text
    ("inf", "1e309", 1e-6, False),
    ("nan", "nan", 1e-6, True),
    ("nan", "0", 1e-6, False),
    ("1000.0005", "1000", 1e-6, True),  # relative past 1, as before
    ("1.01", "1", 1e-6, False),
    ("0x10", "16", 1e-6, False),
])
def test_tokens_and_tolerance(actual, expected, tol, match):
    assert outputs_match(actual, expected, tol) is match


def test_tokens_are_what_a_byte_token_reader_splits_on_generated_texts():
    """On 2,000 generated texts of digits, letters, ASCII white space and Unicode white space: the tokens
    `outputs_match` compares are those of `bytes.split()` (ASCII white space, as C's and C++'s readers split)."""
    rng = random.Random(7)
    alphabet = list("0123456789ab.-") + [" ", "\t", "\n", "\r", "\x0b", "\x0c"] + \
        ["\xa0", "\u3000", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2003"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        reader = [t.decode() for t in text.encode().split()]
        assert outputs_match(text, " ".join(reader)), repr(text)
        if len(reader) > 0:
            assert not outputs_match(text, " ".join(reader + ["x"])), repr(text)
