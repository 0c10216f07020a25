from coderl.tasks.corpus.define import Family

FAMILY = Family("sequences", "recurrences, progressions, Collatz-like rules, look-and-say, nth terms")


@FAMILY.problem(
    "Apply this rule to the positive integer n until it reaches 1: an even number is halved, an odd"
    " number x becomes multiplier * x + 1. Return the number of steps taken, or -1 if 1 has not been"
    " reached after max_steps steps. n = 1 takes 0 steps.",
    "Given a starting value n >= 1 and an odd-step multiplier multiplier, run the generalised"
    " Collatz process (halve even values, map odd x to multiplier * x + 1) and count the steps until"
    " the value is 1. Give up and return -1 if max_steps steps are not enough.",
    examples=[(6, 3, 100), (3, 5, 50)],
    tests=[(1, 3, 0), (2, 7, 1), (2, 7, 0), (27, 3, 111), (27, 3, 110), (7, 5, 200), (8, 1, 10)],
)
def collatz_variant_steps(n: int, multiplier: int, max_steps: int) -> int:
    steps = 0
    while n != 1:
        if steps == max_steps:
            return -1
        n = n // 2 if n % 2 == 0 else multiplier * n + 1
        steps += 1
    return steps


@FAMILY.problem(
    "Return the largest value reached by the Collatz sequence that starts at the positive integer n"
    " (halve even numbers, turn odd x into 3 * x + 1, stop at 1). The starting value counts, so for"
    " n = 1 the answer is 1.",
    "A hailstone starts at height n >= 1. Each second it halves its height if the height is even, or"
    " jumps to 3 * height + 1 if it is odd, until it lands at 1. Compute the greatest height it ever"
    " has, including the starting height.",
    examples=[(3,), (8,)],
    tests=[(1,), (2,), (7,), (16,), (27,), (6,)],
)
def collatz_peak(n: int) -> int:
    peak = n
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        peak = max(peak, n)
    return peak


@FAMILY.problem(
    "Return the first count terms of the arithmetic progression that starts at first and increases"
    " by step each time (step may be zero or negative). For count = 0 return an empty list.",
    "A ticket dispenser prints first, then first + step, then first + 2 * step, and so on. Given"
    " first, step and how many tickets count are printed, return the list of printed numbers.",
    examples=[(3, 4, 5), (10, -3, 3)],
    tests=[(1, 1, 0), (7, 0, 3), (0, 5, 1), (-2, 3, 4), (100, -25, 6)],
)
def arithmetic_terms(first: int, step: int, count: int) -> list[int]:
    return [first + step * k for k in range(count)]


@FAMILY.problem(
    "progression is an arithmetic progression with a non-zero common difference from which exactly"
    " one term strictly between its first and last term was removed; it has at least 3 numbers."
    " Return the missing term.",
    "Given the list progression, an increasing or decreasing arithmetic sequence (at least three"
    " numbers, non-zero step) with one interior term deleted, find the value of the deleted term.",
    examples=[([2, 4, 8, 10],), ([9, 6, 0],)],
    tests=[([1, 3, 4],), ([10, 20, 40, 50, 60],), ([-5, -1, 3, 11],), ([100, 75, 50, 0],),
           ([0, 7, 21, 28, 35, 42],)],
)
def missing_term(progression: list[int]) -> int:
    return (progression[0] + progression[-1]) * (len(progression) + 1) // 2 - sum(progression)


@FAMILY.problem(
    "Return the sum of the first count terms of the geometric progression first, first * ratio,"
    " first * ratio ** 2, .... All arguments are integers (ratio may be 0, 1 or negative); the sum of"
    " zero terms is 0.",
    "Given integers first, ratio and count, add up the count numbers first * ratio ** k for k = 0,"
    " 1, ..., count - 1 and return the total.",
    examples=[(1, 2, 5), (3, -1, 4)],
    tests=[(5, 3, 0), (7, 0, 3), (2, 1, 6), (-1, 3, 4), (4, -2, 5), (1, 10, 7)],
)
def geometric_sum(first: int, ratio: int, count: int) -> int:
    return sum(first * ratio ** k for k in range(count))


@FAMILY.problem(
    "Apply the look-and-say transformation n times to the digit string seed and return the result."
    " One transformation reads the string as runs of equal characters and writes, for each run, its"
    " length followed by the character: \"1211\" becomes \"111221\". For n = 0 return seed.",
    "Given a non-empty string of digits seed and a count n >= 0, describe the string aloud n times"
    " in a row: each maximal block of one repeated digit is replaced by the block's length and then"
    " the digit (\"333\" -> \"33\", \"21\" -> \"1211\"). Return the string after n rounds.",
    examples=[("1", 4), ("3", 1)],
    tests=[("7", 0), ("22", 3), ("1", 6), ("3322251", 1), ("9", 2), ("111", 1)],
)
def look_and_say(seed: str, n: int) -> str:
    for _ in range(n):
        out = []
        i = 0
        while i < len(seed):
            j = i
            while j < len(seed) and seed[j] == seed[i]:
                j += 1
            out.append(str(j - i) + seed[i])
            i = j
        seed = "".join(out)
    return seed


@FAMILY.problem(
    "A sequence starts with a, b, c and every later term is the sum of the three terms before it."
    " Return the term at index n (0-based, so n = 0 gives a). n >= 0.",
    "Given the first three terms a, b and c of a three-term additive recurrence (each new term ="
    " sum of the previous three) and an index n counted from 0, compute the n-th term.",
    examples=[(0, 0, 1, 5), (1, 1, 1, 2)],
    tests=[(2, 3, 4, 0), (2, 3, 4, 1), (2, 3, 4, 3), (1, -1, 0, 8), (0, 1, 1, 20), (5, 0, 0, 4)],
)
def tribonacci_term(a: int, b: int, c: int, n: int) -> int:
    terms = [a, b, c]
    while len(terms) <= n:
        terms.append(terms[-1] + terms[-2] + terms[-3])
    return terms[n]


@FAMILY.problem(
    "You stand on step 0 of a staircase and want to reach step n, climbing 1 or 2 steps at a time."
    " Steps listed in broken cannot be stood on. Return the number of different ways to reach step n."
    " If step n itself is broken the answer is 0; n = 0 counts as one way (do nothing).",
    "Given the top step n (n >= 0) and a list broken of damaged step numbers between 1 and n, count"
    " the sequences of 1-step and 2-step moves from step 0 that land exactly on step n without ever"
    " landing on a damaged step.",
    examples=[(4, []), (5, [2])],
    tests=[(0, []), (1, []), (3, [3]), (6, [2, 3]), (10, []), (10, [5, 8]), (2, [1])],
)
def stair_paths(n: int, broken: list[int]) -> int:
    ways = [0] * (n + 1)
    ways[0] = 1
    for step in range(1, n + 1):
        if step in broken:
            continue
        ways[step] = ways[step - 1] + (ways[step - 2] if step >= 2 else 0)
    return ways[n]


@FAMILY.problem(
    "Predict the next number of values by repeated differences: build the list of consecutive"
    " differences, then the differences of that, and so on until a row is all zeros; then extend"
    " every row by one term from the bottom up. Return the predicted next term. values has at least"
    " one number.",
    "Given a non-empty list of integers values generated by a polynomial rule, extrapolate it: take"
    " differences of neighbours repeatedly until they all vanish, and the next value is the last"
    " element of values plus the last elements of every difference row. A single value predicts"
    " itself again.",
    examples=[([1, 4, 9, 16],), ([5],)],
    tests=[([0, 0, 0],), ([3, 3],), ([2, 5],), ([10, 7, 4, 1],), ([1, 3, 6, 10, 15, 21],),
           ([-1, -1],), ([0, 1, 8, 27, 64],)],
)
def predict_next(values: list[int]) -> int:
    total = 0
    row = values
    while any(x != 0 for x in row):
        total += row[-1]
        row = [row[i + 1] - row[i] for i in range(len(row) - 1)]
    return total


@FAMILY.problem(
    "Return all triangular numbers (1, 3, 6, 10, ..., the k-th being 1 + 2 + ... + k) that are less"
    " than or equal to limit, in increasing order. Return an empty list if limit < 1.",
    "Bowling pins are racked in triangles of 1, 3, 6, 10, ... pins. Given limit, list every"
    " triangle size that does not exceed limit, smallest first.",
    examples=[(20,), (0,)],
    tests=[(1,), (2,), (3,), (-5,), (55,), (100,)],
)
def triangular_numbers_upto(limit: int) -> list[int]:
    result = []
    k = 1
    while k * (k + 1) // 2 <= limit:
        result.append(k * (k + 1) // 2)
        k += 1
    return result


@FAMILY.problem(
    "A hotel numbers its floors 1, 2, 3, ... but skips every number whose decimal form contains the"
    " digit banned. Return the number shown on the n-th floor (n >= 1), where banned is between 1"
    " and 9.",
    "Given n >= 1 and a digit banned (1-9), return the n-th positive integer that does not contain"
    " the digit banned anywhere in its decimal representation.",
    examples=[(5, 4), (13, 1)],
    tests=[(1, 1), (1, 2), (3, 3), (4, 3), (40, 4), (100, 9)],
)
def nth_without_digit(n: int, banned: int) -> int:
    value = 0
    while n > 0:
        value += 1
        if str(banned) not in str(value):
            n -= 1
    return value


@FAMILY.problem(
    "Return the smallest index k >= 0 such that first * ratio ** k is strictly greater than limit."
    " first >= 1 and ratio >= 2.",
    "A bacteria culture starts with first cells and multiplies by ratio every hour (first >= 1,"
    " ratio >= 2). Given limit, compute after how many whole hours the population first exceeds"
    " limit; if it already exceeds limit at the start, the answer is 0.",
    examples=[(1, 2, 100), (5, 3, 4)],
    tests=[(1, 2, 1), (1, 2, 2), (3, 3, 81), (3, 3, 80), (2, 10, 1999), (1, 7, 0)],
)
def first_term_exceeding(first: int, ratio: int, limit: int) -> int:
    k = 0
    while first * ratio ** k <= limit:
        k += 1
    return k


@FAMILY.problem(
    "Return the juggler sequence of the positive integer n as a list that starts with n and ends with"
    " 1: an even term x is followed by the integer square root of x (rounded down), an odd term x > 1"
    " by the integer square root of x ** 3 (rounded down).",
    "Given n >= 1, keep replacing the current value x by floor(sqrt(x)) when x is even or by"
    " floor(sqrt(x * x * x)) when x is odd, until the value is 1. Return every value visited,"
    " including n and the final 1.",
    examples=[(3,), (1,)],
    tests=[(2,), (4,), (9,), (37,), (10,)],
)
def juggler_sequence(n: int) -> list[int]:
    import math

    seq = [n]
    while n != 1:
        n = math.isqrt(n) if n % 2 == 0 else math.isqrt(n ** 3)
        seq.append(n)
    return seq


@FAMILY.problem(
    "Return the first count terms of Recaman's sequence: a(0) = 0, and for k >= 1, a(k) = a(k-1) - k"
    " if that value is positive and has not appeared earlier in the sequence, otherwise a(k) ="
    " a(k-1) + k. For count = 0 return an empty list.",
    "Starting from 0, take the k-th step (k = 1, 2, ...) backwards by k when this lands on a"
    " positive number not visited before, and forwards by k otherwise. Given count, return the list"
    " of the first count positions, the starting 0 included.",
    examples=[(8,)],
    tests=[(0,), (1,), (2,), (5,), (12,), (25,)],
)
def recaman(count: int) -> list[int]:
    seq = []
    seen = set()
    for k in range(count):
        if k == 0:
            value = 0
        elif seq[-1] - k > 0 and seq[-1] - k not in seen:
            value = seq[-1] - k
        else:
            value = seq[-1] + k
        seq.append(value)
        seen.add(value)
    return seq


@FAMILY.problem(
    "Return True if the differences between consecutive numbers of values strictly alternate in"
    " sign (up, down, up, ... or down, up, down, ...), and False otherwise. Two equal neighbours make"
    " it False; a list with fewer than two numbers is True and a two-number list is True unless its"
    " numbers are equal.",
    "A seismograph trace values zigzags if every rise is followed by a fall and every fall by a rise,"
    " with no flat segment. Given the list values, report whether it zigzags; empty and one-point"
    " traces do.",
    examples=[([1, 3, 2, 4],), ([1, 2, 3],)],
    tests=[([],), ([5],), ([2, 2],), ([7, 1],), ([1, 2, 3, 2],), ([1, 5, 2, 4, 0],), ([3, 5, 5, 2],),
           ([1, 2, 1, 2],), ([1, 0, 2, 1, 0],)],
)
def is_zigzag(values: list[int]) -> bool:
    for i in range(1, len(values)):
        diff = values[i] - values[i - 1]
        if diff == 0:
            return False
        if i >= 2 and (diff > 0) == (values[i - 1] - values[i - 2] > 0):
            return False
    return True


@FAMILY.problem(
    "Return 1**2 - 2**2 + 3**2 - 4**2 + ... with n terms: the square of k is added when k is odd and"
    " subtracted when k is even, for k = 1..n. For n = 0 the sum is 0.",
    "Given n >= 0, compute the alternating sum of the first n squares, starting with +1 and then"
    " switching sign at every term.",
    examples=[(3,), (4,)],
    tests=[(0,), (1,), (2,), (7,), (10,), (25,)],
)
def alternating_square_sum(n: int) -> int:
    return sum(k * k if k % 2 == 1 else -k * k for k in range(1, n + 1))


@FAMILY.problem(
    "Return the first count terms of the Van Eck sequence: it starts with 0, and each next term is 0"
    " if the previous term had not appeared before it, or otherwise the distance (difference of"
    " indices) back to the previous term's most recent earlier occurrence.",
    "Given count >= 0, generate terms starting from 0: look at the last term; if it never occurred"
    " earlier, the next term is 0, else it is how many positions back its latest earlier occurrence"
    " was. Return the list of the first count terms (empty for count = 0).",
    examples=[(10,)],
    tests=[(0,), (1,), (2,), (3,), (20,), (6,)],
)
def van_eck(count: int) -> list[int]:
    seq = []
    last_seen = {}
    value = 0
    for i in range(count):
        seq.append(value)
        following = i - last_seen[value] if value in last_seen else 0
        last_seen[value] = i
        value = following
    return seq


@FAMILY.problem(
    "Return the positive multiples of k (k, 2k, 3k, ...) that are less than or equal to limit, in"
    " increasing order. k >= 1; return an empty list when limit < k.",
    "Given a step k >= 1 and a bound limit, list k, 2 * k, 3 * k, ... as long as the value does"
    " not exceed limit (limit itself is included when it is a multiple of k).",
    examples=[(3, 10), (5, 4)],
    tests=[(1, 0), (4, 12), (4, 15), (7, 7), (10, -3), (2, 9)],
    level=1,
)
def multiples_up_to(k: int, limit: int) -> list[int]:
    return list(range(k, limit + 1, k))


@FAMILY.problem(
    "Count down from start in steps of step: return start, start - step, start - 2 * step, ..."
    " keeping only the positive values. step >= 1; if start <= 0 return an empty list.",
    "A kitchen timer shows start and then drops by step on each tick (step >= 1). Return the list"
    " of the numbers shown, stopping before the value would reach 0 or go below it.",
    examples=[(10, 3), (5, 1)],
    tests=[(0, 2), (-4, 1), (1, 5), (9, 3), (8, 4), (7, 10)],
    level=1,
)
def countdown_by(start: int, step: int) -> list[int]:
    return list(range(start, 0, -step))


@FAMILY.problem(
    "Return the powers of base (1, base, base ** 2, ...) that are at most limit, in increasing"
    " order. base >= 2; if limit < 1 the list is empty.",
    "Given an integer base >= 2 and a bound limit, list base ** 0, base ** 1, base ** 2, ... while"
    " the value does not exceed limit.",
    examples=[(2, 20), (3, 0)],
    tests=[(10, 1), (10, 1000), (10, 999), (5, 4), (2, -1), (7, 50)],
    level=1,
)
def powers_up_to(base: int, limit: int) -> list[int]:
    result, power = [], 1
    while power <= limit:
        result.append(power)
        power *= base
    return result


@FAMILY.problem(
    "Return the first n terms of the sequence 1, 1, 2, 2, 3, 3, 4, 4, ... in which every positive"
    " integer appears twice in a row. For n <= 0 return an empty list.",
    "Given a count n, list the first n values of the pattern where each of 1, 2, 3, ... is written"
    " two times before moving on to the next number.",
    examples=[(5,), (0,)],
    tests=[(1,), (2,), (3,), (-2,), (8,), (11,)],
    level=1,
)
def each_twice(n: int) -> list[int]:
    return [k // 2 + 1 for k in range(n)]


@FAMILY.problem(
    "Return the list [1, -2, 3, -4, ...] of the first n positive integers where every even number"
    " is made negative. For n <= 0 return an empty list.",
    "Given n, build the numbers 1 to n in order, flipping the sign of the even ones and keeping the"
    " odd ones positive.",
    examples=[(5,), (0,)],
    tests=[(1,), (2,), (6,), (-3,), (9,)],
    level=1,
)
def alternating_signs(n: int) -> list[int]:
    return [k if k % 2 else -k for k in range(1, n + 1)]


@FAMILY.problem(
    "Return the squares of the positive integers (1, 4, 9, ...) that are strictly less than n, in"
    " increasing order. Return an empty list if there are none.",
    "Given an integer n, list every perfect square k * k with k >= 1 that is smaller than n (n itself"
    " is excluded even if it is a square).",
    examples=[(20,), (1,)],
    tests=[(0,), (2,), (16,), (17,), (-9,), (50,)],
    level=1,
)
def squares_below(n: int) -> list[int]:
    return [k * k for k in range(1, n) if k * k < n]
