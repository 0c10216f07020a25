from coderl.tasks.corpus.define import Family

FAMILY = Family("basics_numbers", "first steps with numbers: arithmetic, comparisons, simple loops over ranges")


@FAMILY.problem(
    "Return a multiplied by b, plus c.",
    "A shop sells a packs of b pencils each and also has c loose pencils. Multiply a by b and add c"
    " to get the total number of pencils, and return it.",
    examples=[(2, 3, 4), (5, 0, 7)],
    tests=[(1, 1, 1), (-2, 3, 5), (10, 10, 0), (4, 4, -3), (6, 7, 8)],
    level=1,
)
def multiply_then_add(a: int, b: int, c: int) -> int:
    return a * b + c


@FAMILY.problem(
    "Return the total number of seconds in `minutes` minutes and `seconds` seconds. One minute has"
    " 60 seconds.",
    "A stopwatch shows minutes and seconds. Convert the time it shows into seconds only: each minute"
    " is 60 seconds, then add the extra seconds.",
    examples=[(2, 5), (0, 30)],
    tests=[(1, 0), (10, 59), (3, 3), (0, 0), (7, 1)],
    level=1,
)
def total_seconds(minutes: int, seconds: int) -> int:
    return minutes * 60 + seconds


@FAMILY.problem(
    "Return True if x is strictly between low and high, that is low < x < high, and False"
    " otherwise. x equal to low or to high gives False.",
    "Check whether the number x lies inside the open range from low to high: it must be bigger than"
    " low and smaller than high. Return True or False.",
    examples=[(5, 1, 10), (1, 1, 10)],
    tests=[(10, 1, 10), (0, 1, 10), (11, 1, 10), (-3, -5, 0), (2, 1, 3), (7, 7, 8)],
    level=1,
)
def strictly_between(x: int, low: int, high: int) -> bool:
    return low < x < high


@FAMILY.problem(
    "Return twice the larger of the two numbers a and b.",
    "Two players roll scores a and b. The winner's score counts double. Return two times the bigger"
    " of the two scores.",
    examples=[(3, 7), (9, 2)],
    tests=[(-1, -5), (0, 0), (4, 4), (6, -6), (1, 10), (12, 5)],
    level=1,
)
def double_the_larger(a: int, b: int) -> int:
    return 2 * max(a, b)


@FAMILY.problem(
    "Return a list of the first `count` powers of `base`: base ** 0, base ** 1, ..., base **"
    " (count - 1). count is at least 1.",
    "Start from 1 and keep multiplying by base. Return the list of the first count numbers you get,"
    " beginning with 1 (which is base to the power 0). count >= 1.",
    examples=[(2, 4), (10, 3)],
    tests=[(3, 1), (1, 3), (-2, 4), (5, 3), (2, 6)],
    level=1,
)
def powers_list(base: int, count: int) -> list[int]:
    return [base ** k for k in range(count)]


@FAMILY.problem(
    "Return the sum of all whole numbers from low to high (both included) except the number"
    " `skip`, which is left out. low <= high.",
    "A reader adds up the page numbers from low to high, but page skip is missing from the book, so"
    " it is not added. Return the total of the other page numbers from low to high.",
    examples=[(1, 5, 3), (1, 4, 9)],
    tests=[(2, 2, 2), (0, 10, 10), (5, 10, 5), (-3, 3, 0), (1, 6, 2), (4, 8, 6)],
    level=1,
)
def sum_skipping(low: int, high: int, skip: int) -> int:
    return sum(n for n in range(low, high + 1) if n != skip)


@FAMILY.problem(
    "Return the sum of the even numbers from low to high, both included. low <= high.",
    "Go through every whole number from low up to high (including both ends), keep the even ones,"
    " and return their total.",
    examples=[(1, 10), (3, 3)],
    tests=[(2, 2), (0, 6), (5, 12), (4, 9), (-4, 1)],
    level=1,
)
def sum_of_evens_between(low: int, high: int) -> int:
    return sum(n for n in range(low, high + 1) if n % 2 == 0)


@FAMILY.problem(
    "A chicken has 2 legs and a cow has 4 legs. Return the total number of legs of `chickens`"
    " chickens and `cows` cows.",
    "A farmer counts the legs in the yard. There are chickens (2 legs each) and cows (4 legs each)."
    " Given how many of each there are, return the number of legs.",
    examples=[(1, 1), (0, 3)],
    tests=[(5, 0), (2, 7), (10, 10), (0, 0), (3, 1)],
    level=1,
)
def total_legs(chickens: int, cows: int) -> int:
    return 2 * chickens + 4 * cows


@FAMILY.problem(
    "Return the largest multiple of k that is less than or equal to n. n >= 0 and k >= 1.",
    "Round n down to a multiple of k: the answer is the biggest number of the form k * m (m a whole"
    " number) that is not more than n. n is not negative and k is positive.",
    examples=[(17, 5), (20, 5)],
    tests=[(3, 10), (99, 1), (0, 7), (50, 12), (48, 12), (9, 2)],
    level=1,
)
def round_down_to_multiple(n: int, k: int) -> int:
    return n // k * k


@FAMILY.problem(
    "Return the list [n * start, n * (start + 1), ..., n * stop]: n multiplied by every whole"
    " number from start to stop, both included. start <= stop.",
    "A pupil writes out part of the multiplication table of n, from the row for start to the row for"
    " stop. Return the products n times start, n times (start + 1), and so on up to n times stop.",
    examples=[(3, 2, 5), (7, 4, 4)],
    tests=[(1, 1, 5), (0, 3, 5), (-2, 1, 3), (12, 10, 12), (5, 0, 2)],
    level=1,
)
def times_table_rows(n: int, start: int, stop: int) -> list[int]:
    return [n * k for k in range(start, stop + 1)]


@FAMILY.problem(
    "Return True if a and b differ by at most `tolerance` (the distance between them, abs(a - b), is"
    " less than or equal to tolerance), else False.",
    "Two measurements a and b are considered the same if they are no more than tolerance apart, in"
    " either direction. Return True when they are the same in this sense.",
    examples=[(10, 12, 2), (10, 13, 2)],
    tests=[(5, 5, 0), (12, 10, 2), (-4, 4, 7), (20, 10, 3), (1, 4, 3), (7, 3, 3)],
    level=1,
)
def close_enough(a: int, b: int, tolerance: int) -> bool:
    return abs(a - b) <= tolerance


@FAMILY.problem(
    "Return True if a + b + c is an even number, else False.",
    "Three dice show a, b and c. You win when the total of the three is even. Return whether you"
    " win.",
    examples=[(1, 2, 3), (1, 1, 1)],
    tests=[(2, 2, 2), (6, 5, 4), (0, 0, 1), (3, 3, 4), (-1, 4, 1)],
    level=1,
)
def sum_is_even(a: int, b: int, c: int) -> bool:
    return (a + b + c) % 2 == 0


@FAMILY.problem(
    "Return True if n can be divided by a with no remainder and also by b with no remainder."
    " a and b are positive.",
    "Check whether n is a multiple of a and at the same time a multiple of b. Return True only when"
    " both are true.",
    examples=[(12, 3, 4), (9, 3, 4)],
    tests=[(8, 3, 4), (24, 6, 8), (7, 7, 1), (10, 4, 5), (30, 5, 3), (15, 2, 5)],
    level=1,
)
def divisible_by_both(n: int, a: int, b: int) -> bool:
    return n % a == 0 and n % b == 0


@FAMILY.problem(
    "Return the largest of the three numbers a, b and c minus the smallest of them.",
    "Three friends report their scores a, b and c. Return how far apart the best and the worst"
    " score are: the biggest score minus the smallest score.",
    examples=[(3, 9, 5), (1, 1, 1)],
    tests=[(-4, 2, 0), (10, 2, 7), (5, 5, 8), (0, -3, -1), (6, 4, 9)],
    level=1,
)
def spread_of_three(a: int, b: int, c: int) -> int:
    return max(a, b, c) - min(a, b, c)


@FAMILY.problem(
    "Return whichever of a and b is closer to `target` (the one with the smaller distance"
    " abs(x - target)). If both are equally close, return a.",
    "Two guesses a and b are made for a secret number target. Return the guess that is nearer to"
    " target; when both guesses are the same distance away, the first guess a wins.",
    examples=[(3, 10, 4), (2, 8, 5)],
    tests=[(10, 3, 4), (-5, 5, 1), (7, 7, 0), (1, 9, 8), (0, -6, -4), (6, 2, 4)],
    level=1,
)
def closer_to_target(a: int, b: int, target: int) -> int:
    return a if abs(a - target) <= abs(b - target) else b


@FAMILY.problem(
    "Return the bill plus a tip of `percent` percent, where the tip is bill * percent // 100 (the"
    " tip is rounded down to a whole number).",
    "After dinner you leave a tip of percent percent of the bill, rounded down to whole coins"
    " (bill * percent // 100). Return how much you pay in total: the bill plus the tip.",
    examples=[(100, 15), (33, 20)],
    tests=[(50, 10), (80, 0), (200, 25), (99, 1), (40, 50)],
    level=1,
)
def bill_with_tip(bill: int, percent: int) -> int:
    return bill + bill * percent // 100


@FAMILY.problem(
    "Return the product of all whole numbers from low to high, including both. low <= high.",
    "Multiply together every integer from low up to high (both ends included) and return the result."
    " You may assume low is not bigger than high.",
    examples=[(1, 4), (3, 5)],
    tests=[(7, 7), (2, 6), (-2, -1), (4, 5), (1, 1)],
    level=1,
)
def product_from_to(low: int, high: int) -> int:
    import math

    return math.prod(range(low, high + 1))


@FAMILY.problem(
    "Return 1 ** p + 2 ** p + ... + n ** p, the sum of the p-th powers of the numbers 1 to n."
    " n >= 1 and p >= 0.",
    "Take every whole number from 1 to n, raise each one to the power p, and add the results."
    " Return the total.",
    examples=[(3, 2), (4, 1)],
    tests=[(2, 3), (1, 5), (5, 0), (3, 3), (6, 2)],
    level=1,
)
def sum_of_powers(n: int, p: int) -> int:
    return sum(k ** p for k in range(1, n + 1))


@FAMILY.problem(
    "Return n cubed plus n squared, that is n ** 3 + n ** 2.",
    "Compute n to the power 3 and n to the power 2, add the two results together, and return the"
    " sum.",
    examples=[(2,), (3,)],
    tests=[(1,), (0,), (-1,), (-2,), (5,)],
    level=1,
)
def cube_plus_square(n: int) -> int:
    return n ** 3 + n ** 2


@FAMILY.problem(
    "Each box holds at most `per_box` items. Return the smallest number of boxes needed to pack"
    " `items` items (the last box may be only partly full). items >= 1 and per_box >= 1.",
    "You are packing items into boxes that fit per_box items each. A box does not have to be full."
    " How many boxes do you need for all items? Both numbers are positive.",
    examples=[(10, 5), (11, 5)],
    tests=[(1, 6), (24, 6), (25, 6), (7, 1), (3, 4), (13, 3)],
    level=1,
)
def boxes_needed(items: int, per_box: int) -> int:
    return (items + per_box - 1) // per_box


@FAMILY.problem(
    "Return the last digit of a plus the last digit of b. a and b are non-negative.",
    "Take the ones digit (the rightmost digit) of a and the ones digit of b and return their sum."
    " Both numbers are 0 or more.",
    examples=[(123, 45), (10, 20)],
    tests=[(9, 9), (7, 0), (56, 1234), (0, 3), (81, 17)],
    level=1,
)
def last_digits_sum(a: int, b: int) -> int:
    return a % 10 + b % 10


@FAMILY.problem(
    "A board is `width` by `height`, and a square hole of side `hole` is cut out of it. Return the"
    " area that is left: width * height - hole * hole.",
    "A carpenter has a rectangular sheet of width by height and cuts a square of side hole out of"
    " the middle. Return how much area of the sheet remains.",
    examples=[(10, 8, 2), (5, 5, 0)],
    tests=[(6, 4, 3), (20, 3, 1), (7, 7, 7), (9, 2, 1), (12, 10, 5)],
    level=1,
)
def area_minus_hole(width: int, height: int, hole: int) -> int:
    return width * height - hole * hole


@FAMILY.problem(
    "Return the smallest square number (1, 4, 9, 16, ...) that is strictly greater than n. n >= 0.",
    "Square numbers are 1 * 1, 2 * 2, 3 * 3, and so on. Given n (0 or more), find the first square"
    " number that is bigger than n and return it.",
    examples=[(3,), (4,)],
    tests=[(0,), (1,), (15,), (16,), (100,), (50,)],
    level=1,
)
def first_square_above(n: int) -> int:
    k = 1
    while k * k <= n:
        k += 1
    return k * k


@FAMILY.problem(
    "Return the list of the squares of the whole numbers from low to high, both included, in that"
    " order. low <= high.",
    "For each integer n going from low up to high (including both ends), compute n * n. Return all"
    " these squares in a list, in the same order.",
    examples=[(1, 3), (-2, 1)],
    tests=[(4, 4), (5, 7), (0, 2), (-3, -1), (2, 6)],
    level=1,
)
def squares_between(low: int, high: int) -> list[int]:
    return [n * n for n in range(low, high + 1)]


@FAMILY.problem(
    "Return True if n is even and n is greater than limit; otherwise return False.",
    "A ticket number n wins a prize when it is an even number and it is bigger than limit. Return"
    " True for a winning ticket and False for any other.",
    examples=[(8, 5), (7, 5)],
    tests=[(4, 5), (6, 6), (10, -1), (-2, -4), (3, 0), (12, 11)],
    level=1,
)
def even_and_above(n: int, limit: int) -> bool:
    return n % 2 == 0 and n > limit


@FAMILY.problem(
    "A book has `total` pages and you read `per_day` pages every day for `days` days. Return how"
    " many pages are left to read: total - per_day * days. You never read past the end.",
    "Sam reads per_day pages each day. After days days, how many of the book's total pages has Sam"
    " not read yet? (Sam has not finished the book, so the answer is 0 or more.)",
    examples=[(300, 20, 5), (100, 10, 0)],
    tests=[(50, 7, 3), (90, 1, 90), (120, 15, 4), (61, 2, 30), (10, 3, 1)],
    level=1,
)
def pages_left(total: int, per_day: int, days: int) -> int:
    return total - per_day * days
