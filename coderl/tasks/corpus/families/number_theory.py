from coderl.tasks.corpus.define import Family

FAMILY = Family("number_theory", "primes, gcd/lcm, divisors, modular arithmetic, perfect and abundant numbers")


@FAMILY.problem(
    "Return how many prime numbers p satisfy lo <= p <= hi. Both bounds are inclusive and may be"
    " negative; if lo > hi the range is empty and the answer is 0.",
    "Given two integers lo and hi, count the primes in the closed interval [lo, hi]. Numbers below 2"
    " are never prime, and when lo is larger than hi there is nothing to count, so return 0.",
    examples=[(1, 10), (10, 20)],
    tests=[(2, 2), (-5, 1), (20, 10), (14, 16), (2, 3), (90, 131), (97, 97)],
)
def count_primes_in_range(lo: int, hi: int) -> int:
    count = 0
    for n in range(max(lo, 2), hi + 1):
        if all(n % d for d in range(2, int(n ** 0.5) + 1)):
            count += 1
    return count


@FAMILY.problem(
    "Return the smallest prime number that is strictly greater than n. n may be zero or negative,"
    " in which case the answer is 2.",
    "A lottery machine only prints prime ticket numbers. Given the last number n that was printed"
    " (any integer, possibly negative), compute the next ticket: the smallest prime strictly larger"
    " than n.",
    examples=[(10,), (13,)],
    tests=[(-7,), (1,), (2,), (3,), (23,), (89,), (113,)],
)
def next_prime_after(n: int) -> int:
    candidate = max(n + 1, 2)
    while any(candidate % d == 0 for d in range(2, int(candidate ** 0.5) + 1)):
        candidate += 1
    return candidate


@FAMILY.problem(
    "Return every pair (p, p + 2) of primes with p + 2 <= limit, as a list of tuples sorted by p."
    " Return an empty list when there is no such pair.",
    "Twin primes are two primes that differ by exactly 2. Given limit, list all twin-prime pairs"
    " (p, p + 2) whose larger member is at most limit, in increasing order of p; the list is empty if"
    " limit is too small to contain one.",
    examples=[(20,)],
    tests=[(4,), (5,), (7,), (12,), (60,), (0,)],
)
def twin_prime_pairs(limit: int) -> list[tuple[int, int]]:
    def is_prime(k: int) -> bool:
        return k >= 2 and all(k % d for d in range(2, int(k ** 0.5) + 1))

    return [(p, p + 2) for p in range(2, limit - 1) if is_prime(p) and is_prime(p + 2)]


@FAMILY.problem(
    "Several buses leave the depot together at minute 0; the bus with period t leaves again every t"
    " minutes. Given the list periods, return the first minute after 0 when all buses leave together"
    " again. A period of 0 means the bus is out of service and is ignored; if no bus is in service,"
    " return 0.",
    "Return the least common multiple of the positive numbers in periods, skipping any zeros. If"
    " periods contains no positive number (including when it is empty), return 0.",
    examples=[([4, 6],), ([3, 0, 5],)],
    tests=[([],), ([0, 0],), ([1, 0],), ([7],), ([2, 4, 8],), ([6, 10, 15],), ([9, 12, 0, 14],)],
)
def bus_sync_minute(periods: list[int]) -> int:
    import math

    result = 0
    for t in periods:
        if t > 0:
            result = t if result == 0 else result * t // math.gcd(result, t)
    return result


@FAMILY.problem(
    "Return the proper divisors of n (all positive divisors except n itself) in increasing order. n is"
    " a positive integer; for n = 1 the list is empty.",
    "Given a positive integer n, list every positive d < n that divides n evenly, smallest first.",
    examples=[(12,), (7,)],
    tests=[(1,), (2,), (36,), (49,), (30,), (64,)],
)
def proper_divisors(n: int) -> list[int]:
    return [d for d in range(1, n) if n % d == 0]


@FAMILY.problem(
    "Classify the positive integer n by the sum s of its proper divisors (positive divisors other than n"
    " itself): return \"perfect\" if s == n, \"abundant\" if s > n, and \"deficient\" if s < n. Note that"
    " 1 has no proper divisors, so it is deficient.",
    "An ancient numerologist sorts numbers into three bins. Add up the divisors of n that are smaller"
    " than n; if the total equals n the number is \"perfect\", if it exceeds n it is \"abundant\", and"
    " otherwise it is \"deficient\". Return the bin's name for the positive integer n.",
    examples=[(6,), (12,)],
    tests=[(1,), (2,), (28,), (18,), (21,), (496,), (945,)],
)
def classify_number(n: int) -> str:
    total = 0
    for d in range(1, n // 2 + 1):
        if n % d == 0:
            total += d
    if total == n:
        return "perfect"
    return "abundant" if total > n else "deficient"


@FAMILY.problem(
    "Return how many integers k with 1 <= k <= n have no common factor with n other than 1 (that is,"
    " gcd(k, n) == 1). n is a positive integer.",
    "Given a positive integer n, count the fractions k/n with 1 <= k <= n that are already in lowest"
    " terms. For n = 1 the single fraction 1/1 counts.",
    examples=[(9,), (10,)],
    tests=[(1,), (2,), (7,), (12,), (36,), (97,)],
)
def coprime_count(n: int) -> int:
    import math

    return sum(1 for k in range(1, n + 1) if math.gcd(k, n) == 1)


@FAMILY.problem(
    "Return the last k decimal digits of base ** exponent as a string of exactly k characters, padded"
    " on the left with zeros when the power has fewer digits. base and exponent are non-negative"
    " and k >= 1.",
    "Given non-negative integers base and exponent and a positive width k, compute base raised to"
    " exponent and return its final k digits as text; if the power is shorter than k digits, pad it"
    " with leading '0' characters to length k.",
    examples=[(2, 10, 2), (3, 0, 3)],
    tests=[(7, 1, 1), (2, 100, 5), (10, 3, 3), (5, 4, 6), (123, 456, 4), (0, 5, 2)],
)
def last_digits_of_power(base: int, exponent: int, k: int) -> str:
    return str(pow(base, exponent, 10 ** k)).zfill(k)


@FAMILY.problem(
    "Return the integer x with 0 <= x < m such that (a * x) % m == 1, or None if no such x exists"
    " (which happens exactly when a and m share a factor greater than 1). m >= 2 and a may be"
    " negative or larger than m.",
    "Given an integer a and a modulus m of at least 2, find the modular inverse of a: the unique x in"
    " the range 0..m-1 for which a times x leaves remainder 1 when divided by m. When gcd(a, m) is not"
    " 1 there is no inverse, so return None.",
    examples=[(3, 7), (4, 8)],
    tests=[(1, 2), (-3, 7), (10, 17), (6, 9), (0, 5), (100, 101), (7, 40)],
)
def modular_inverse(a: int, m: int) -> int | None:
    old_r, r = a % m, m
    old_s, s = 1, 0
    while r != 0:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
    if old_r != 1:
        return None
    return old_s % m


@FAMILY.problem(
    "Return the prime factorisation of n as a list of (prime, exponent) tuples in increasing order of"
    " prime. For n < 2 return an empty list.",
    "Given an integer n, break it into prime powers: produce pairs (p, e) meaning p appears e times"
    " as a factor, sorted by p. Numbers smaller than 2 have no factorisation and give [].",
    examples=[(360,), (13,)],
    tests=[(1,), (0,), (2,), (1024,), (9699690,), (49,), (1001,)],
)
def prime_factorization(n: int) -> list[tuple[int, int]]:
    factors = []
    p = 2
    while p * p <= n:
        exponent = 0
        while n % p == 0:
            n //= p
            exponent += 1
        if exponent > 0:
            factors.append((p, exponent))
        p += 1
    if n > 1:
        factors.append((n, 1))
    return factors


@FAMILY.problem(
    "Return the largest positive integer d such that all numbers in values leave the same remainder"
    " when divided by d. If values has fewer than two numbers or all of them are equal, such d is"
    " unbounded, so return 0 instead.",
    "Given a list of integers values (possibly negative), compute the greatest common divisor of the"
    " differences between the numbers. Return 0 when the list is empty, has one element, or all"
    " elements are equal.",
    examples=[([5, 11, 17],), ([4, 4],)],
    tests=[([],), ([9],), ([3, 8],), ([-4, 2, 14],), ([10, 22, 34, 4],), ([1, 2, 4, 1],)],
)
def gcd_of_differences(values: list[int]) -> int:
    import math

    result = 0
    for v in values[1:]:
        result = math.gcd(result, v - values[0])
    return result


@FAMILY.problem(
    "Return the smallest divisor of n that is strictly greater than k, where n is a positive integer."
    " If k >= n no divisor qualifies, so return -1.",
    "A baker wants to split n cookies into equal boxes with more than k cookies per box. Given n"
    " (positive) and k, compute the smallest box size that divides n exactly and exceeds k, or -1 if"
    " k is already n or more.",
    examples=[(12, 4), (7, 1)],
    tests=[(12, 12), (12, 11), (1, 0), (30, 4), (100, 20), (5, -3), (17, 16)],
)
def smallest_divisor_above(n: int, k: int) -> int:
    for d in range(max(k + 1, 1), n + 1):
        if n % d == 0:
            return d
    return -1


@FAMILY.problem(
    "Return a pair (p, q) of primes with p <= q and p + q == n, choosing the pair with the smallest"
    " p. If n is odd or less than 4, return None.",
    "Given an integer n, write it as the sum of two primes p and q (p not larger than q), preferring"
    " the smallest possible p, and return the tuple (p, q). Odd numbers and numbers below 4 are not"
    " handled: return None for them.",
    examples=[(28,), (9,)],
    tests=[(4,), (2,), (6,), (98,), (128,), (15,), (1000,)],
)
def goldbach_pair(n: int) -> tuple[int, int] | None:
    def is_prime(k: int) -> bool:
        return k >= 2 and all(k % d for d in range(2, int(k ** 0.5) + 1))

    if n % 2 == 1 or n < 4:
        return None
    for p in range(2, n // 2 + 1):
        if is_prime(p) and is_prime(n - p):
            return (p, n - p)
    return None


@FAMILY.problem(
    "Let s(x) be the sum of the proper divisors of x (divisors smaller than x). Return s(n) if"
    " s(n) != n and s(s(n)) == n (n and s(n) form an amicable pair); otherwise return None. n is a"
    " positive integer.",
    "Two different numbers are amicable when each equals the sum of the other's proper divisors."
    " Given a positive integer n, return its amicable partner, or None if n has none (perfect"
    " numbers, whose divisor sum is themselves, have no partner).",
    examples=[(220,), (10,)],
    tests=[(284,), (6,), (1,), (1184,), (2620,), (12,)],
)
def amicable_partner(n: int) -> int | None:
    def divisor_sum(x: int) -> int:
        return sum(d for d in range(1, x // 2 + 1) if x % d == 0)

    partner = divisor_sum(n)
    if partner != n and divisor_sum(partner) == n:
        return partner
    return None


@FAMILY.problem(
    "Return how many integers x with lo <= x <= hi are divisible by a or by b (or both). a and b are"
    " positive; if lo > hi return 0.",
    "Given the inclusive range lo..hi and two positive step sizes a and b, count the numbers in the"
    " range that are multiples of at least one of a and b. Zero and negative numbers in the range"
    " count too when they are multiples.",
    examples=[(1, 10, 2, 3), (5, 5, 4, 6)],
    tests=[(1, 30, 4, 6), (-6, 6, 3, 5), (10, 1, 2, 2), (1, 1, 1, 7), (7, 15, 5, 15), (2, 2, 2, 3)],
)
def count_multiples_in_range(lo: int, hi: int, a: int, b: int) -> int:
    return sum(1 for x in range(lo, hi + 1) if x % a == 0 or x % b == 0)


@FAMILY.problem(
    "Return True if n is the product of exactly two primes, which may be equal (for example 6 = 2 * 3"
    " and 9 = 3 * 3), and False otherwise, including for n < 4.",
    "A semiprime is a number with exactly two prime factors counted with multiplicity. Given an"
    " integer n, decide whether it is a semiprime; 8 = 2 * 2 * 2 is not, primes are not, and numbers"
    " below 4 are not.",
    examples=[(15,), (8,)],
    tests=[(4,), (1,), (7,), (49,), (12,), (221,), (30,)],
)
def is_semiprime(n: int) -> bool:
    count = 0
    d = 2
    while d * d <= n:
        while n % d == 0:
            n //= d
            count += 1
        d += 1
    if n > 1:
        count += 1
    return count == 2


@FAMILY.problem(
    "Return the length of the repeating block in the decimal expansion of 1 / d for a positive integer"
    " d, or 0 if the expansion terminates. For example 1/7 = 0.(142857) gives 6 and 1/12 ="
    " 0.08(3) gives 1.",
    "Given a positive integer d, long-divide 1 by d and report the period of the recurring digits: the"
    " length of the shortest block that repeats forever. When the division ends (1/8 = 0.125, and"
    " 1/1) the answer is 0.",
    examples=[(7,), (8,)],
    tests=[(1,), (3,), (12,), (13,), (41,), (250,), (17,)],
)
def repeating_decimal_period(d: int) -> int:
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        return 0
    length, remainder = 1, 10 % d
    while remainder != 1:
        remainder = remainder * 10 % d
        length += 1
    return length


@FAMILY.problem(
    "Return the sum of the positive multiples of `k` that are strictly less than `n` (k >= 1). If"
    " there are none, return 0.",
    "Add up k, 2k, 3k, ... as long as the terms stay below n (n itself is not included). k is a"
    " positive integer; when n <= k the sum is 0.",
    examples=[(10, 3), (3, 3)],
    tests=[(1, 1), (2, 1), (20, 5), (21, 5), (100, 7), (-4, 2)],
    level=1,
)
def sum_multiples_below(n: int, k: int) -> int:
    return sum(range(k, n, k))


@FAMILY.problem(
    "Return the positive integers that divide both `a` and `b`, in increasing order (a, b >= 1).",
    "List every common divisor of the positive integers a and b, from smallest to largest. 1 is"
    " always in the list.",
    examples=[(12, 18)],
    tests=[(1, 1), (7, 7), (7, 5), (100, 75), (36, 48), (9, 27)],
    level=1,
)
def common_divisors(a: int, b: int) -> list[int]:
    return [d for d in range(1, min(a, b) + 1) if a % d == 0 and b % d == 0]


@FAMILY.problem(
    "Return the smallest divisor of n that is greater than 1, where n >= 2 (this is n itself when n"
    " is prime).",
    "Given an integer n of at least 2, find the first number d = 2, 3, 4, ... that divides n"
    " exactly and return it. For a prime n the answer is n.",
    examples=[(15,), (13,)],
    tests=[(2,), (4,), (9,), (49,), (91,), (97,)],
    level=1,
)
def least_factor(n: int) -> int:
    d = 2
    while n % d != 0:
        d += 1
    return d


@FAMILY.problem(
    "Return the even positive divisors of the positive integer n in increasing order ([] when n is"
    " odd).",
    "List every even number that divides n exactly, smallest first, for a positive integer n. An"
    " odd n has no even divisors, so return [].",
    examples=[(12,), (9,)],
    tests=[(1,), (2,), (8,), (30,), (100,), (7,)],
    level=1,
)
def even_divisors(n: int) -> list[int]:
    return [d for d in range(2, n + 1, 2) if n % d == 0]


@FAMILY.problem(
    "Return how many positive divisors of the positive integer `n` are less than or equal to"
    " `limit`. A limit below 1 gives 0.",
    "Count the numbers d with 1 <= d <= limit that divide n exactly (n >= 1). For n = 12 and"
    " limit = 4 these are 1, 2, 3 and 4, so the answer is 4.",
    examples=[(12, 4), (7, 6)],
    tests=[(1, 1), (1, 0), (10, 10), (10, 9), (36, 6), (36, 100), (97, -3)],
    level=1,
)
def divisors_up_to(n: int, limit: int) -> int:
    return sum(1 for d in range(1, limit + 1) if n % d == 0)


@FAMILY.problem(
    "Return the smallest multiple of `k` that is strictly greater than `n` (k >= 1; n may be"
    " negative).",
    "Given an integer n and a positive step k, find the first number after n (bigger than n, never"
    " equal to it) that k divides exactly.",
    examples=[(10, 4), (12, 4)],
    tests=[(0, 1), (0, 5), (-3, 5), (-5, 5), (99, 10), (7, 7), (6, 7)],
    level=1,
)
def next_multiple_above(n: int, k: int) -> int:
    return (n // k + 1) * k
