from coderl.tasks.corpus.define import Family

FAMILY = Family("digits", "digit manipulation, base conversion, digital roots, palindromic numbers")


@FAMILY.problem(
    "Return how many times n must be replaced by the sum of its decimal digits before it becomes a"
    " single digit. n is non-negative; a number that already has one digit needs 0 steps.",
    "Given a non-negative integer n, repeatedly add up its digits (199 -> 19 -> 10 -> 1) and count"
    " the additions performed until the value is below 10. Return that count.",
    examples=[(199,), (7,)],
    tests=[(0,), (10,), (19,), (99,), (999999999999,), (1000000,)],
)
def digit_sum_steps(n: int) -> int:
    steps = 0
    while n >= 10:
        n = sum(int(c) for c in str(n))
        steps += 1
    return steps


@FAMILY.problem(
    "Repeatedly replace n by the product of its decimal digits until it has a single digit, and"
    " return that final digit. n is non-negative; if it already has one digit, return n itself.",
    "Given a non-negative integer n, multiply its digits together (39 -> 27 -> 14 -> 4) again and"
    " again until only one digit is left, then return that digit. A zero digit makes the product 0.",
    examples=[(39,), (5,)],
    tests=[(0,), (10,), (25,), (33,), (277777788888899,), (999,), (11,)],
)
def digit_product_root(n: int) -> int:
    while n >= 10:
        product = 1
        for c in str(n):
            product *= int(c)
        n = product
    return n


@FAMILY.problem(
    "Return the representation of the integer n in the given base (2 <= base <= 36), using digits"
    " 0-9 and then lowercase letters a-z, padded on the left with '0' to at least width digits. A"
    " negative n gets a leading '-' before the padded digits. Zero is written \"0\" (then padded).",
    "Convert n to a string in base base (between 2 and 36; digit values 10 and up are written as"
    " 'a', 'b', ...). The digit part must have at least width characters, so add leading zeros if"
    " it is shorter; for negative n put a minus sign in front of it.",
    examples=[(255, 16, 4), (-5, 2, 1)],
    tests=[(0, 16, 0), (0, 2, 3), (35, 36, 1), (16, 2, 3), (-1, 2, 4), (-255, 16, 4), (123456789, 36, 0)],
)
def to_base(n: int, base: int, width: int) -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    value = abs(n)
    digits = ""
    while value > 0:
        digits = alphabet[value % base] + digits
        value //= base
    digits = digits.rjust(width, "0") or "0"
    return "-" + digits if n < 0 else digits


@FAMILY.problem(
    "Parse text as an integer written in the given base (2 <= base <= 36). Letters stand for digit"
    " values 10 to 35 and may be upper or lower case; an optional leading '-' makes it negative."
    " Return None if text has no digits or contains any character that is not a valid digit in"
    " that base.",
    "Given a string text and a base between 2 and 36, return the integer it denotes, reading 'a'/'A'"
    " as 10 up to 'z'/'Z' as 35 and allowing one leading minus sign. If a character is not a digit"
    " of this base (including spaces), or there are no digits at all, return None.",
    examples=[("ff", 16), ("-101", 2)],
    tests=[("", 10), ("-", 10), ("-Zz", 36), ("129", 9), ("0", 2), ("7A", 11), ("12 3", 10)],
)
def from_base(text: str, base: int) -> int | None:
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if not body:
        return None
    value = 0
    for ch in body.lower():
        digit = "0123456789abcdefghijklmnopqrstuvwxyz".find(ch)
        if digit < 0 or digit >= base:
            return None
        value = value * base + digit
    return -value if negative else value


@FAMILY.problem(
    "Return True if the digits of the non-negative integer n written in the given base (base >= 2)"
    " read the same forwards and backwards, and False otherwise. Zero is a palindrome in every"
    " base.",
    "Given n >= 0 and a base of at least 2, write n in that base and decide whether the digit"
    " sequence is a palindrome. For example 5 is 101 in base 2, so the answer is True.",
    examples=[(5, 2), (12, 10)],
    tests=[(0, 7), (6, 2), (9, 2), (121, 10), (123, 10), (255, 16), (130, 3)],
)
def is_palindrome_in_base(n: int, base: int) -> bool:
    digits = []
    while n > 0:
        digits.append(n % base)
        n //= base
    return digits == digits[::-1]


@FAMILY.problem(
    "Return the smallest palindromic integer (one whose decimal digits read the same both ways) that"
    " is strictly greater than n. n is a non-negative integer.",
    "An odometer fan waits for the next palindrome on the display. Given the current reading n (at"
    " least 0), compute the first reading after it, strictly larger than n, whose digits form a"
    " palindrome.",
    examples=[(123,), (99,)],
    tests=[(0,), (8,), (9,), (11,), (1991,), (808,), (12921,)],
)
def next_palindrome(n: int) -> int:
    n += 1
    while str(n) != str(n)[::-1]:
        n += 1
    return n


@FAMILY.problem(
    "Return the alternating sum of the decimal digits of n, starting with a plus sign at the most"
    " significant digit: for 4729 this is 4 - 7 + 2 - 9. The sign of n is ignored.",
    "Given an integer n (possibly negative; only its digits matter), add the first, third, fifth,"
    " ... digits counted from the left and subtract the second, fourth, ... ones. Return the result.",
    examples=[(4729,), (-51,)],
    tests=[(0,), (7,), (10,), (-909,), (1234567,), (11,)],
)
def alternating_digit_sum(n: int) -> int:
    return sum(int(c) if i % 2 == 0 else -int(c) for i, c in enumerate(str(abs(n))))


@FAMILY.problem(
    "Return the largest number obtainable by deleting exactly one digit from the decimal form of n,"
    " where n is a positive integer with at least two digits. Leading zeros of the result are"
    " simply dropped.",
    "You must erase one digit of n (n >= 10) and keep the others in order. Which erasure leaves the"
    " biggest value? Return that value as an int.",
    examples=[(2736,), (10,)],
    tests=[(11,), (91,), (19,), (1001,), (45354,), (987,)],
)
def max_after_deleting_digit(n: int) -> int:
    s = str(n)
    return max(int(s[:i] + s[i + 1:]) for i in range(len(s)))


@FAMILY.problem(
    "Kaprekar's routine takes a 4-digit number (leading zeros allowed, e.g. 21 is 0021), sorts its"
    " digits into the largest and smallest 4-digit arrangements and subtracts. Return how many such"
    " steps turn n into 6174. n is between 1 and 9998 and its four digits are not all equal; 6174"
    " itself needs 0 steps.",
    "Given n (0 < n < 9999, not made of four equal digits), write it with exactly four digits, then"
    " repeat: new value = digits sorted descending minus digits sorted ascending (both read as"
    " 4-digit numbers). Count the repetitions until the value is 6174.",
    examples=[(3524,), (6174,)],
    tests=[(1,), (2111,), (9998,), (1000,), (4321,), (6264,)],
)
def kaprekar_steps(n: int) -> int:
    steps = 0
    while n != 6174:
        digits = sorted(str(n).zfill(4))
        n = int("".join(reversed(digits))) - int("".join(digits))
        steps += 1
    return steps


@FAMILY.problem(
    "Return how many times the decimal digit digit (0-9) appears when every integer from lo to hi"
    " inclusive is written out. 0 <= lo; if lo > hi the answer is 0.",
    "A sign painter must paint house numbers lo, lo + 1, ..., hi. Given the range (non-negative,"
    " inclusive) and a digit 0-9, compute how many copies of that digit are painted in total.",
    examples=[(1, 12, 1), (0, 9, 0)],
    tests=[(5, 4, 5), (10, 10, 0), (1, 100, 0), (99, 101, 9), (0, 1000, 7), (55, 55, 5)],
)
def count_digit_occurrences(lo: int, hi: int, digit: int) -> int:
    return sum(str(x).count(str(digit)) for x in range(lo, hi + 1))


@FAMILY.problem(
    "Return True if the positive integer n equals the sum of its decimal digits each raised to the"
    " power of its 1-based position from the left (89 = 8**1 + 9**2), and False otherwise.",
    "Given n >= 1, take the first digit to the power 1, the second to the power 2, and so on, add"
    " the results and check whether they give back n.",
    examples=[(89,), (88,)],
    tests=[(1,), (9,), (10,), (135,), (136,), (2646798,), (518,)],
)
def is_disarium(n: int) -> bool:
    return sum(int(c) ** (i + 1) for i, c in enumerate(str(n))) == n


@FAMILY.problem(
    "Return True if the decimal digits of a can be rearranged to give the digits of b (same digits"
    " with the same multiplicities), ignoring the signs of both numbers; otherwise return False.",
    "Given two integers a and b, decide whether they use exactly the same multiset of digits, for"
    " example 1203 and 3021. A minus sign is not a digit and is ignored.",
    examples=[(1203, 3021), (112, 122)],
    tests=[(0, 0), (-45, 54), (10, 1), (7, -7), (123456, 654322), (100, 10)],
)
def same_digits(a: int, b: int) -> bool:
    return sorted(str(abs(a))) == sorted(str(abs(b)))


@FAMILY.problem(
    "Starting from n, repeatedly add the number to its digit reversal (e.g. 57 + 75 = 132) until the"
    " result is a palindrome. Return how many additions were needed (0 if n is already a palindrome),"
    " or -1 if no palindrome appears within limit additions. n and limit are non-negative.",
    "Given non-negative integers n and limit, perform reverse-and-add steps: n becomes n plus the"
    " number read from n's digits backwards. Count the steps until n reads the same both ways; if n"
    " is a palindrome to begin with the count is 0, and if limit steps are not enough return -1.",
    examples=[(57, 10), (121, 0)],
    tests=[(0, 5), (10, 0), (10, 1), (89, 24), (89, 23), (196, 40), (59, 3), (87, 4)],
)
def reverse_add_steps(n: int, limit: int) -> int:
    for steps in range(limit + 1):
        if str(n) == str(n)[::-1]:
            return steps
        n += int(str(n)[::-1])
    return -1


@FAMILY.problem(
    "Spell out each decimal digit of n as an English word (zero, one, ..., nine), in order, joined"
    " by '-'. If n is negative, the result starts with \"minus-\".",
    "Given an integer n, return a string naming its digits one by one, lowercase and separated by"
    " hyphens, e.g. 305 -> \"three-zero-five\"; a negative number is prefixed with \"minus-\".",
    examples=[(305,), (-7,)],
    tests=[(0,), (10,), (-1,), (-9081,), (4444,), (1234567890,)],
)
def spell_digits(n: int) -> str:
    names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    words = [names[int(c)] for c in str(abs(n))]
    if n < 0:
        words.insert(0, "minus")
    return "-".join(words)


@FAMILY.problem(
    "Replace n by the sum of the squares of its digits, again and again. Return the number of"
    " replacements needed to reach 1, or -1 if the process falls into a loop that never reaches 1."
    " n is a positive integer; n = 1 needs 0 replacements.",
    "Given a positive integer n, iterate n -> (sum of squared decimal digits of n). If the value"
    " eventually becomes 1, return how many iterations that took; if a value repeats before 1 is"
    " reached, return -1.",
    examples=[(7,), (4,)],
    tests=[(1,), (10,), (2,), (19,), (100,), (3,), (86,)],
)
def square_digit_steps(n: int) -> int:
    seen = set()
    steps = 0
    while n != 1:
        if n in seen:
            return -1
        seen.add(n)
        n = sum(int(c) ** 2 for c in str(n))
        steps += 1
    return steps


@FAMILY.problem(
    "Return the sum of the even decimal digits of n (0, 2, 4, 6, 8), ignoring the sign of n. A"
    " number with no even digits gives 0.",
    "Add up only those digits of the integer n that are even; odd digits and the minus sign are"
    " ignored. For 2468 the answer is 20 and for 135 it is 0.",
    examples=[(1234,), (-808,)],
    tests=[(0,), (7,), (2,), (135,), (-46,), (9876543210,)],
    level=1,
)
def even_digit_sum(n: int) -> int:
    return sum(int(c) for c in str(abs(n)) if int(c) % 2 == 0)


@FAMILY.problem(
    "Return the largest decimal digit of n minus its smallest decimal digit, ignoring the sign of"
    " n. A one-digit number gives 0.",
    "Given an integer n, find how far apart its biggest and smallest digits are (biggest minus"
    " smallest). The minus sign of a negative n is not a digit.",
    examples=[(4719,), (555,)],
    tests=[(0,), (8,), (10,), (-91,), (30303,), (123456789,)],
    level=1,
)
def digit_spread(n: int) -> int:
    digits = [int(c) for c in str(abs(n))]
    return max(digits) - min(digits)


@FAMILY.problem(
    "Return the sum of the first (leftmost) and the last (rightmost) decimal digit of n, ignoring"
    " the sign. For a one-digit number that digit is both first and last, so it is counted twice.",
    "Add the leading digit of the integer n to its final digit, where a minus sign does not count"
    " as a digit. For example 4729 gives 4 + 9 = 13 and 5 gives 10.",
    examples=[(4729,), (5,)],
    tests=[(0,), (10,), (-38,), (100,), (9001,), (-7,)],
    level=1,
)
def first_plus_last_digit(n: int) -> int:
    s = str(abs(n))
    return int(s[0]) + int(s[-1])


@FAMILY.problem(
    "Remove every 0 digit from the non-negative integer n and return the number formed by the"
    " remaining digits; if no digit is left, return 0.",
    "Given n >= 0, delete all of its zero digits and read what is left as a number (for example"
    " 10203 becomes 123). A number made only of zeros becomes 0.",
    examples=[(10203,), (0,)],
    tests=[(5,), (10,), (100,), (7070,), (123,), (9000000001,)],
    level=1,
)
def drop_zero_digits(n: int) -> int:
    rest = str(n).replace("0", "")
    return int(rest) if rest else 0


@FAMILY.problem(
    "Return the decimal digit of n in position `k` counted from the right, where k = 0 is the ones"
    " digit, k = 1 the tens digit, and so on. The sign of n is ignored, and a position beyond the"
    " first digit gives 0.",
    "Given an integer n and a place k >= 0, return the digit of |n| that stands for 10 ** k (k = 2"
    " asks for the hundreds digit). Missing places count as 0, so 42 has 0 in place 5.",
    examples=[(4729, 1), (42, 5)],
    tests=[(0, 0), (7, 0), (7, 1), (-318, 2), (-318, 0), (90817, 3), (123456789, 8)],
    level=1,
)
def digit_at(n: int, k: int) -> int:
    return abs(n) // 10 ** k % 10


@FAMILY.problem(
    "Return the decimal digits of n as a list of ints starting from the last (least significant)"
    " digit, ignoring the sign. 0 gives [0].",
    "List the digits of the integer n from right to left, i.e. the ones digit first, then the tens"
    " digit, and so on; a negative n is treated like its absolute value.",
    examples=[(1230,), (-45,)],
    tests=[(0,), (9,), (10,), (-100,), (908172,), (5555,)],
    level=1,
)
def digits_from_right(n: int) -> list[int]:
    return [int(c) for c in reversed(str(abs(n)))]
