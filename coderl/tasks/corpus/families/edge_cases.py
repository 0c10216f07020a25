from coderl.tasks.corpus.define import Family

FAMILY = Family("edge_cases", "problems whose difficulty is in the corner cases: empty, None, signs, bounds")


@FAMILY.problem(
    "Parse `text` as a whole number and return it, or return `default` if it is not one. Surrounding"
    " whitespace is ignored; after it there may be one leading '+' or '-' followed by one or more"
    " ASCII digits 0-9 and nothing else. Leading zeros are allowed. An empty or whitespace-only text"
    " returns default.",
    "Convert the string text to an int. The accepted form, once whitespace at both ends is removed,"
    " is an optional single sign (+ or -) and then at least one digit from 0 to 9; inner spaces,"
    " decimal points, a second sign, a lone sign or any other character make the text invalid, and"
    " then the result is default. For example \"-007\" is -7 and \" +3 \" is 3.",
    examples=[("  42 ", 0), ("4 2", -1)],
    tests=[("-17", 0), ("+", 9), ("", -1), ("   ", 5), ("--3", 7), ("-007", 1), ("+0", 3), ("12a", 0),
           ("3.5", 0), ("\t+81\n", 0)],
)
def parse_signed_int(text: str, default: int) -> int:
    s = text.strip()
    negative = s.startswith("-")
    if s[:1] in ("+", "-"):
        s = s[1:]
    if not s or any(c not in "0123456789" for c in s):
        return default
    return -int(s) if negative else int(s)


@FAMILY.problem(
    "Return the percentage change from `old` to `new`, (new - old) * 100 / |old|, rounded to 2"
    " decimals. Dividing by the absolute value keeps the sign meaningful for negative old values."
    " If old is 0 the change is undefined: return None.",
    "A metric moved from old to new. Compute by how many percent it changed relative to the size of"
    " old, i.e. (new - old) / abs(old) * 100, rounded to 2 decimals; an increase is positive and a"
    " decrease negative even when old is negative. When old is zero return None.",
    examples=[(50, 75), (0, 5)],
    tests=[(-20, -10), (-20, -30), (3, 4), (7, 7), (8, 0), (0, 0), (-4, 4)],
)
def percent_change(old: int, new: int) -> float | None:
    if old == 0:
        return None
    return round((new - old) * 100 / abs(old), 2)


@FAMILY.problem(
    "Return the initials of `full_name`: for every whitespace-separated word that starts with a"
    " letter, its first letter in upper case followed by a period, all joined without spaces. Words"
    " starting with anything else are skipped; an empty or blank name gives \"\".",
    "Build initials from a name. Split full_name on runs of whitespace; for each word whose first"
    " character is alphabetic, emit that character upper-cased plus \".\". Ignore words that start"
    " with a digit or punctuation. Return the concatenation, which is the empty string when nothing"
    " qualifies.",
    examples=[("ada lovelace",), ("   ",)],
    tests=[("",), ("  grace   Brewster  hopper ",), ("J. R. R. tolkien",), ("3rd street band",), ("x",),
           ("-- anna-lena o'neil",)],
)
def initials(full_name: str) -> str:
    return "".join(word[0].upper() + "." for word in full_name.split() if word[0].isalpha())


@FAMILY.problem(
    "Return whether `x` lies between `low` and `high`, where `mode` says which ends are included:"
    " \"both\" (low <= x <= high), \"left\" (low <= x < high), \"right\" (low < x <= high) or"
    " \"neither\" (low < x < high). If low > high the range is empty and the answer is always False.",
    "Check membership of x in an interval from low to high. The string mode selects the boundary"
    " rules: \"both\" includes both ends, \"left\" includes only low, \"right\" includes only high and"
    " \"neither\" excludes both. An interval whose low is greater than its high contains nothing.",
    examples=[(5, 1, 5, "both"), (5, 1, 5, "left")],
    tests=[(5, 5, 5, "both"), (5, 5, 5, "left"), (3, 1, 3, "right"), (1, 1, 3, "right"), (1, 1, 3, "left"),
           (2, 1, 3, "neither"), (1, 1, 3, "neither"), (3, 1, 3, "neither"), (2, 3, 1, "both"), (0, 1, 3, "both")],
)
def in_range(x: int, low: int, high: int, mode: str) -> bool:
    if mode == "both":
        return low <= x <= high
    if mode == "left":
        return low <= x < high
    if mode == "right":
        return low < x <= high
    return low < x < high


@FAMILY.problem(
    "`text` is an optional '+' or '-' followed by one or more decimal digits, possibly with leading"
    " zeros and possibly longer than any machine integer. Return its canonical form: no '+' sign, no"
    " leading zeros, and zero written as \"0\" (never \"-0\"). Work on the string.",
    "Normalise a signed decimal string such as \"+000123\" or \"-0040\": drop a plus sign, remove"
    " leading zeros, keep a minus sign only if the number is not zero, and write zero as \"0\". The"
    " digits may be arbitrarily many, so treat text as a string rather than converting it.",
    examples=[("+00420",), ("-000",)],
    tests=[("0",), ("7",), ("-0100",), ("+9",), ("000000000000000000000012345678901234567890",), ("-00000",),
           ("-3",)],
)
def normalize_number(text: str) -> str:
    sign = ""
    if text[0] in "+-":
        sign = "-" if text[0] == "-" else ""
        text = text[1:]
    digits = text.lstrip("0")
    if not digits:
        return "0"
    return sign + digits


@FAMILY.problem(
    "Split `items` into consecutive chunks of `size` elements; the last chunk may be shorter. Return"
    " an empty list if items is empty or if size <= 0.",
    "Given a list of integers items and a chunk length size, return a list of lists holding items in"
    " order, size at a time, with whatever is left over forming a final shorter chunk. A non-positive"
    " size produces no chunks at all, and so does an empty items list.",
    examples=[([1, 2, 3, 4, 5], 2)],
    tests=[([], 3), ([1, 2, 3], 0), ([1, 2, 3], -2), ([1, 2], 5), ([1, 2, 3], 1), ([1, 2, 3, 4], 4),
           ([9, 8, 7, 6, 5, 4, 3], 3)],
)
def chunk(items: list[int], size: int) -> list[list[int]]:
    if size <= 0:
        return []
    return [items[i:i + size] for i in range(0, len(items), size)]


@FAMILY.problem(
    "Return `a` divided by `b` with the fractional part discarded (rounding toward zero, so -7 / 2"
    " gives -3, not -4). Return None when b is 0.",
    "Integer division that truncates: compute the quotient of a by b and drop any remainder, moving"
    " toward zero for negative results (unlike Python's // which rounds down). Division by zero is"
    " reported as None.",
    examples=[(7, 2), (-7, 2)],
    tests=[(7, -2), (-7, -2), (0, -5), (5, 0), (-6, 3), (1, 5), (-1, 5), (100, 7), (-1, 1), (3, -1)],
)
def divide_toward_zero(a: int, b: int) -> int | None:
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@FAMILY.problem(
    "Join `items` into an English list. First strip each item and drop the ones that become empty."
    " Then: no items gives \"\", one item gives it alone, two give \"A and B\", and three or more give"
    " \"A, B, and C\" (with a comma before \"and\").",
    "Given a list of strings items, write them as a phrase. Whitespace around each item is removed"
    " and blank items are ignored. Zero remaining items make the empty string; one item is returned"
    " as is; two are joined with \" and \"; from three on, all but the last are separated by \", \""
    " and the last is preceded by \", and \".",
    examples=[(["tea", "milk", "sugar"],), (["tea", "  "],)],
    tests=[([],), (["  ", ""],), ([" x "],), (["a", "b"],), (["a", "", "b", " c"],), (["1", "2", "3", "4"],),
           (["x", "  ", "y"],)],
)
def join_english(items: list[str]) -> str:
    words = [s.strip() for s in items if s.strip()]
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    if len(words) == 2:
        return words[0] + " and " + words[1]
    return ", ".join(words[:-1]) + ", and " + words[-1]


@FAMILY.problem(
    "Return the length of the longest run of consecutive equal characters in `s`, where upper and"
    " lower case versions of a letter count as equal. An empty string gives 0.",
    "Given a string s, find the longest block of adjacent characters that are the same when case is"
    " ignored (so \"aAa\" is one run of 3). Spaces and punctuation are ordinary characters. Return"
    " the block's length, or 0 for an empty string.",
    examples=[("abBBc",)],
    tests=[("",), ("a",), ("aAa",), ("  x",), ("xyz",), ("aabbbcccc",), ("zzZyyyYY",), ("!!?!",)],
)
def longest_run(s: str) -> int:
    best = run = 0
    prev = None
    for ch in s.lower():
        run = run + 1 if ch == prev else 1
        prev = ch
        best = max(best, run)
    return best


@FAMILY.problem(
    "Shorten `text` to at most `limit` characters. If it already fits, return it unchanged. Otherwise"
    " keep the first limit - 3 characters and append \"...\", unless limit is 3 or less, in which case"
    " just return the first limit characters. A limit of 0 or less gives \"\".",
    "Truncate text for display in a field of width limit. Text whose length is at most limit is"
    " shown unchanged. Longer text is cut and ends with \"...\" so that the total length is exactly"
    " limit; when limit is too small for that (limit <= 3) the text is simply cut to limit characters"
    " with no dots. Non-positive limits produce the empty string.",
    examples=[("hello world", 8), ("hi", 5)],
    tests=[("hello", -1), ("", 0), ("hello", 5), ("hello", 4), ("hello world", 3), ("hi", 2), ("abcdef", 1),
           ("abcdefgh", 7)],
)
def truncate_text(text: str, limit: int) -> str:
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    if limit <= 3:
        return text[:limit]
    return text[:limit - 3] + "..."


@FAMILY.problem(
    "Return the sign of the product of `nums` without computing the product: 1 if it is positive, -1"
    " if negative and 0 if it is zero. The product of an empty list is 1.",
    "Given a list of (possibly huge) integers nums, decide whether multiplying them all would give a"
    " positive, negative or zero result and return 1, -1 or 0 accordingly. Any zero makes the result"
    " 0; otherwise an odd number of negative values makes it -1. An empty list has product 1.",
    examples=[([-2, 3, -4],), ([5, 0, -1],)],
    tests=[([],), ([0],), ([-3],), ([-2, -5],), ([4, -1, 0, -2],),
           ([10**30, -(10**30), -7, 9],), ([-1, -1, -1],), ([8],)],
)
def product_sign(nums: list[int]) -> int:
    sign = 1
    for n in nums:
        if n == 0:
            return 0
        if n < 0:
            sign = -sign
    return sign


@FAMILY.problem(
    "Convert `hour` on a 24-hour clock (0 to 23) to a 12-hour label such as \"12 AM\", \"9 AM\","
    " \"12 PM\" or \"5 PM\". Hour 0 is \"12 AM\" (midnight) and hour 12 is \"12 PM\" (noon). Any hour"
    " outside 0..23 gives \"invalid\".",
    "Given an integer hour of the day in 24-hour form, return the 12-hour clock label: the hour number"
    " from 1 to 12, a space, and \"AM\" for hours 0-11 or \"PM\" for hours 12-23 (midnight is"
    " \"12 AM\", noon is \"12 PM\"). Negative hours and hours above 23 return \"invalid\".",
    examples=[(9,), (15,)],
    tests=[(0,), (11,), (12,), (13,), (23,), (24,), (-1,), (1,)],
)
def hour_label(hour: int) -> str:
    if hour < 0 or hour > 23:
        return "invalid"
    suffix = "AM" if hour < 12 else "PM"
    h = hour % 12
    return f"{12 if h == 0 else h} {suffix}"


@FAMILY.problem(
    "Return the first element of `items`, or `default` when items is empty.",
    "Given a list of integers items and a fallback value default, return items[0] if the list has any element and"
    " default otherwise (even when the first element is 0).",
    examples=[([4, 5], 9), ([], 9)],
    tests=[([0], 7), ([], -1), ([-3, 8], 0), ([1, 2, 3], 1), ([], 0)],
    level=1,
)
def first_or_default(items: list[int], default: int) -> int:
    return items[0] if items else default


@FAMILY.problem(
    "Return the character of `text` at index `n`, or '' when n is negative or not less than len(text).",
    "Safely read one character: text[n] when 0 <= n < len(text), otherwise the empty string (negative indexes do"
    " not count from the end here).",
    examples=[("hello", 1), ("hello", 5)],
    tests=[("", 0), ("a", 0), ("abc", -1), ("abc", 2), ("abc", 3), ("xyz", -4)],
    level=1,
)
def char_at_or_empty(text: str, n: int) -> str:
    return text[n] if 0 <= n < len(text) else ""


@FAMILY.problem(
    "Return `text` with surrounding whitespace removed, or None if nothing is left (the text is empty or blank).",
    "Clean an optional form field: strip spaces, tabs and newlines from both ends of text and return the result,"
    " but return None instead of an empty string.",
    examples=[("  hi there ",), ("   ",)],
    tests=[("",), ("x",), ("\t\n",), (" a ",), ("no-trim",), ("  two  words\n",)],
    level=1,
)
def blank_to_none(text: str) -> str | None:
    return text.strip() if text.strip() else None


@FAMILY.problem(
    "Return the count stored under `key` in `counts`, treating a missing key or a negative stored value as 0.",
    "Look up key in the dictionary counts and return its value, but never return less than 0: absent keys and"
    " negative values both give 0.",
    examples=[({"a": 3, "b": -2}, "a"), ({"a": 3, "b": -2}, "b")],
    tests=[({}, "x"), ({"x": 0}, "x"), ({"x": 5}, "y"), ({"x": 1, "y": 9}, "y"), ({"k": -1}, "k"), ({"k": 2}, "k")],
    level=1,
)
def count_or_zero(counts: dict[str, int], key: str) -> int:
    return max(counts.get(key, 0), 0)


@FAMILY.problem(
    "Return what percentage `part` is of `whole`, rounded down to a whole number (part * 100 // whole). When"
    " whole is 0 return 0. Both numbers are non-negative.",
    "Compute the integer percentage of part out of whole using floor division, so 1 of 3 is 33. A whole of zero"
    " would divide by zero, so then the answer is 0.",
    examples=[(1, 3), (5, 0)],
    tests=[(0, 0), (0, 7), (3, 3), (1, 8), (2, 3), (9, 4)],
    level=1,
)
def whole_percent(part: int, whole: int) -> int:
    return part * 100 // whole if whole != 0 else 0


@FAMILY.problem(
    "Return the last `n` elements of `items`. When n is 0 or negative return []; when n is larger than the list"
    " return the whole list.",
    "Take the final n items of a list of integers. Careful with the edge cases: n <= 0 gives an empty list (not the"
    " whole list), and n beyond len(items) gives everything.",
    examples=[([1, 2, 3, 4], 2), ([1, 2, 3], 0)],
    tests=[([], 3), ([5], 1), ([1, 2], 5), ([1, 2, 3], -1), ([9, 8, 7, 6], 3), ([4, 4], 2)],
    level=1,
)
def last_n_items(items: list[int], n: int) -> list[int]:
    return items[-n:] if n > 0 else []
