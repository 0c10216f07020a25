from coderl.tasks.corpus.define import Family

FAMILY = Family("prefix_sums", "running totals, cumulative counts, range-sum queries, balance points")


@FAMILY.problem(
    "Return the running maximum of `values`: element i of the result is the largest of"
    " values[0], ..., values[i]. An empty list gives [].",
    "A high-jump competition lists each attempt's height in values. After every attempt, record"
    " the best height achieved so far; return these records in order ([] for no attempts).",
    examples=[([2, 5, 3, 7, 7, 1],)],
    tests=[([],), ([4],), ([9, 8, 7],), ([-5, -3, -4, -1],), ([1, 1, 2, 0, 3, 2],)],
)
def running_max(values: list[int]) -> list[int]:
    out = []
    for v in values:
        out.append(v if not out or v > out[-1] else out[-1])
    return out


@FAMILY.problem(
    "Answer range-sum queries: for each pair (lo, hi) in `queries` return the sum of values[lo]"
    " through values[hi], both ends inclusive (0 <= lo <= hi < len(values)). Return the answers in"
    " the order of the queries.",
    "Given a list of integers values and a list of index pairs queries, compute for every query"
    " (lo, hi) the total of the elements from position lo up to and including position hi, and"
    " return the list of totals. Precompute prefix sums so that each query is answered quickly.",
    examples=[([2, 4, 6, 8, 10], [(0, 1), (1, 3), (4, 4)])],
    tests=[([5], [(0, 0)]), ([1, 2, 3], []), ([1, -1, 1, -1], [(0, 3), (1, 2), (0, 0), (3, 3)]),
           ([3, 0, 7, 2, 9, 4], [(2, 5), (0, 5), (1, 1), (0, 2)]), ([10, 20, 30], [(1, 2), (0, 1)])],
)
def range_sums(values: list[int], queries: list[tuple[int, int]]) -> list[int]:
    prefix = [0]
    for v in values:
        prefix.append(prefix[-1] + v)
    return [prefix[hi + 1] - prefix[lo] for lo, hi in queries]


@FAMILY.problem(
    "Return every index i of `values` at which the sum of the elements strictly to the left of i"
    " equals the sum of the elements strictly to the right of i (an empty side sums to 0), in"
    " increasing order. Return [] if there is no such index.",
    "A seesaw is made of weights values placed in a row. List all positions, from left to right,"
    " where you could put the pivot so that the total weight on its left equals the total on its"
    " right; the weight at the pivot itself counts on neither side. Return [] if the seesaw can"
    " never balance.",
    examples=[([1, 7, 3, 6, 5, 6],), ([1, 2, 3],)],
    tests=[([],), ([5],), ([2, -2, 9],), ([1, 0, 1],), ([0, 0, 0],), ([3, 1, 2, 0, 4, 2],),
           ([-1, 4, 2, -1, 3],), ([2, 0, 0, 2],)],
)
def balance_points(values: list[int]) -> list[int]:
    total = sum(values)
    left = 0
    out = []
    for i, v in enumerate(values):
        if left == total - left - v:
            out.append(i)
        left += v
    return out


@FAMILY.problem(
    "Count the contiguous sublists of `values` that have at least two elements and whose elements"
    " add up to exactly `target`.",
    "Given a list of daily net changes values (which may be negative) and an integer target,"
    " return how many stretches of two or more consecutive days have a total change of exactly"
    " target, i.e. the number of index pairs i < j with values[i] + ... + values[j] == target.",
    examples=[([1, 2, 3, -3, 3], 3)],
    tests=[([], 0), ([0, 0, 0], 0), ([5], 5), ([2, 3], 5), ([1, -1, 1, -1], 0), ([2, 2, 2, 2], 4),
           ([3, 4, -7, 3, 1, 3, 1, -4], 7), ([4, 0, 4, -4], 4)],
)
def count_target_stretches(values: list[int], target: int) -> int:
    prefix = [0]
    for v in values:
        prefix.append(prefix[-1] + v)
    seen = {}
    count = 0
    for q in range(2, len(prefix)):
        p = prefix[q - 2]
        seen[p] = seen.get(p, 0) + 1
        count += seen.get(prefix[q] - target, 0)
    return count


@FAMILY.problem(
    "An account starts with balance `start` and then applies each amount in `transactions` in"
    " order (positive = deposit, negative = withdrawal). Return the lowest balance the account ever"
    " has, including the starting balance.",
    "Given an opening balance start and a list of signed amounts transactions, track the balance"
    " as each amount is added and report the minimum value it takes, counting the balance before"
    " any transaction.",
    examples=[(100, [-30, 50, -90, 10])],
    tests=[(0, []), (5, [1, 2, 3]), (-4, [10]), (10, [-3, -3, -3, -3]), (20, [-25, 10, -10, 40, -36]),
           (0, [4, -1, -1, -1, -1, -1])],
)
def lowest_balance(start: int, transactions: list[int]) -> int:
    balance = start
    lowest = start
    for amount in transactions:
        balance += amount
        lowest = min(lowest, balance)
    return lowest


@FAMILY.problem(
    "Starting from balance `start`, apply the amounts in `transactions` one by one. Return the"
    " index of the first transaction after which the balance is below zero, or -1 if it never goes"
    " negative. A balance of exactly 0 is not negative.",
    "A prepaid card holds start credits; each entry of transactions is added to it in order"
    " (charges are negative). Report at which position in transactions the card first becomes"
    " overdrawn, meaning a balance less than 0, or -1 if that never happens.",
    examples=[(10, [-4, -6, 3, -5])],
    tests=[(0, []), (5, [-5, 1, -1]), (5, [-6]), (-1, [0, 2]), (3, [2, -4, -1, -1]), (0, [1, -1, 0, -1, 5])],
)
def first_overdraft(start: int, transactions: list[int]) -> int:
    balance = start
    for i, amount in enumerate(transactions):
        balance += amount
        if balance < 0:
            return i
    return -1


@FAMILY.problem(
    "Return a list whose element i is the number of times the character `ch` appears in"
    " text[0..i] (inclusive). The comparison is case-sensitive; an empty text gives [].",
    "Given a string text and a single character ch, produce for every prefix of text (lengths 1,"
    " 2, ..., len(text)) how many occurrences of ch it contains, treating upper and lower case as"
    " different characters.",
    examples=[("banana", "a")],
    tests=[("", "x"), ("x", "x"), ("abc", "z"), ("AaAa", "a"), ("mississippi", "s"), ("  a ", " ")],
)
def cumulative_char_counts(text: str, ch: str) -> list[int]:
    out = []
    count = 0
    for c in text:
        if c == ch:
            count += 1
        out.append(count)
    return out


@FAMILY.problem(
    "Return the number of ways to cut `values` into two non-empty parts, a prefix and the rest,"
    " such that both parts have the same sum.",
    "Given a list of integers values, count the positions k with 1 <= k < len(values) for which"
    " sum(values[:k]) == sum(values[k:]). Lists with fewer than two elements allow no cut.",
    examples=[([1, 2, 3, 0, 3],)],
    tests=[([],), ([0],), ([4, 4],), ([4, 5],), ([0, 0, 0, 0],), ([1, -1, 2, -2, 0],), ([2, 3, -1, 4, 0, 0],)],
)
def equal_cuts(values: list[int]) -> int:
    total = sum(values)
    left = 0
    count = 0
    for v in values[:-1]:
        left += v
        if 2 * left == total:
            count += 1
    return count


@FAMILY.problem(
    "Start from a list of `length` zeros and apply every update (lo, hi, amount) in `updates`,"
    " adding amount to each position from lo to hi inclusive (0 <= lo <= hi < length). Return the"
    " final list.",
    "A street has length houses, all starting with 0 decorations. Each update (lo, hi, amount)"
    " adds amount decorations to every house numbered lo through hi, both included. Use a"
    " difference array and prefix sums to return the final count for each house.",
    examples=[(5, [(1, 3, 2), (2, 4, 3)])],
    tests=[(0, []), (3, []), (1, [(0, 0, 5)]), (4, [(0, 3, 1), (0, 0, -1), (3, 3, 2)]),
           (6, [(2, 4, 10), (0, 5, -1), (1, 2, 3)])],
)
def apply_range_updates(length: int, updates: list[tuple[int, int, int]]) -> list[int]:
    diff = [0] * (length + 1)
    for lo, hi, amount in updates:
        diff[lo] += amount
        diff[hi + 1] -= amount
    out = []
    total = 0
    for i in range(length):
        total += diff[i]
        out.append(total)
    return out


@FAMILY.problem(
    "Return the suffix sums of `values`: element i of the result is values[i] + values[i + 1] +"
    " ... + values[-1]. An empty list gives [].",
    "Given a list of integers values, compute for every position how much remains from that"
    " position to the end of the list, inclusive, and return these remaining totals in the same"
    " order as values.",
    examples=[([1, 2, 3, 4],)],
    tests=[([],), ([9],), ([0, -1, 0],), ([5, -5, 5, -5],), ([3, 1, 4, 1, 5, 9],)],
)
def suffix_sums(values: list[int]) -> list[int]:
    out = [0] * len(values)
    total = 0
    for i in range(len(values) - 1, -1, -1):
        total += values[i]
        out[i] = total
    return out


@FAMILY.problem(
    "A hiker starts at altitude 0 and `gains` lists the change in altitude of each leg of the"
    " trip. Return a tuple (highest altitude, legs walked) where highest altitude is the maximum"
    " altitude ever reached, counting the start, and legs walked is the number of legs completed"
    " when it was first reached (0 if the start itself is the highest point).",
    "Given the list of altitude changes gains, walk from altitude 0 applying each change in turn."
    " Report (peak, k): the greatest altitude seen, including the initial 0, and the smallest"
    " number k of legs after which that altitude is reached (k = 0 when nothing beats the start).",
    examples=[([-5, 1, 5, 0, -7],), ([2, 3, -1, 1],)],
    tests=[([],), ([-1, -2],), ([4],), ([3, -1, 3, -10, 12],), ([2, 2, -4, 1, 3],), ([1, -1, 0],),
           ([0, 0, 0],)],
)
def peak_altitude(gains: list[int]) -> tuple[int, int]:
    altitude = 0
    peak, legs = 0, 0
    for i, g in enumerate(gains):
        altitude += g
        if altitude > peak:
            peak, legs = altitude, i + 1
    return (peak, legs)


@FAMILY.problem(
    "For each (lo, hi) pair in `queries`, count how many times the character `ch` occurs in"
    " text[lo..hi], both ends inclusive (0 <= lo <= hi < len(text)). Return the counts in query"
    " order. The comparison is case-sensitive.",
    "Given a string text, a character ch and a list of inclusive index ranges queries, answer each"
    " range with the number of positions in it holding exactly ch (upper and lower case differ)."
    " Build a prefix count once and answer every query from it.",
    examples=[("abracadabra", "a", [(0, 3), (4, 10), (1, 2)])],
    tests=[("x", "x", [(0, 0)]), ("xyz", "x", []), ("AaAa", "A", [(0, 3), (1, 1), (1, 2)]),
           ("hello world", "o", [(0, 10), (5, 6), (4, 4), (8, 10)]), ("bbbb", "b", [(1, 3), (0, 0)])],
)
def range_char_counts(text: str, ch: str, queries: list[tuple[int, int]]) -> list[int]:
    prefix = [0]
    for c in text:
        prefix.append(prefix[-1] + (1 if c == ch else 0))
    return [prefix[hi + 1] - prefix[lo] for lo, hi in queries]


@FAMILY.problem(
    "Count the positions i >= 1 of `values` where values[i] is strictly greater than the average"
    " of all the elements before it (values[0] through values[i - 1]). The first element is never"
    " counted; an empty list gives 0.",
    "A runner logs daily distances in values. A day is a personal boost when its distance beats"
    " the mean of all earlier days (strictly greater; the first day has nothing to beat). Return"
    " the number of boost days. Keep a running total and compare with integers only.",
    examples=[([4, 6, 5, 3, 9],)],
    tests=[([],), ([7],), ([1, 1, 1],), ([1, 2],), ([5, 4, 3, 2],), ([2, 4, 3, 3, 10, 5],), ([-3, -1, -2, 0],)],
)
def above_running_average(values: list[int]) -> int:
    total = 0
    count = 0
    for i, v in enumerate(values):
        if v * i > total:
            count += 1
        total += v
    return count


@FAMILY.problem(
    "A prepaid card starts at `start` (start >= 0) and each amount in `changes` is added to it in"
    " turn, except that the balance never goes below 0: a charge larger than the balance leaves 0."
    " Return the list of balances after each change ([] when there are no changes).",
    "Given an opening balance start (not negative) and a list of signed amounts changes, apply the"
    " amounts in order, replacing any negative result by 0, and return the balance recorded right"
    " after every amount; the opening balance itself is not included.",
    examples=[(10, [5, -3, -20, 4]), (0, [])],
    tests=[(7, []), (0, [1]), (0, [-5, 5]), (100, [-50, -50, -1]), (3, [0, 0, 4, -2]), (2, [-3, -1, 6, -6])],
    level=1,
)
def running_balance(start: int, changes: list[int]) -> list[int]:
    out = []
    balance = start
    for amount in changes:
        balance = max(0, balance + amount)
        out.append(balance)
    return out


@FAMILY.problem(
    "Return a list whose element i is how many of values[0], ..., values[i] are positive (greater"
    " than 0). An empty list gives [].",
    "Given a list of integers values, walk through it and after each element record the number of"
    " strictly positive elements seen so far (zero is not positive); return these counts in order.",
    examples=[([3, -1, 0, 4],), ([-2, -2],)],
    tests=[([],), ([0],), ([5],), ([1, 2, 3],), ([0, -1, 2, 0, 3, -4],)],
    level=1,
)
def running_positive_count(values: list[int]) -> list[int]:
    out = []
    count = 0
    for v in values:
        if v > 0:
            count += 1
        out.append(count)
    return out


@FAMILY.problem(
    "Return the running averages of `values`: element i of the result is the mean of values[0]"
    " through values[i], rounded to 2 decimals. An empty list gives [].",
    "Given a list of integers values, compute after each element the average of all elements so"
    " far (the first average is just the first value), rounding each average to 2 decimals.",
    examples=[([2, 4, 9],), ([1, 2],)],
    tests=[([],), ([7],), ([0, 0, 0],), ([1, 2, 4],), ([-3, 3, -3, 3],), ([10, 0, 5, 1],)],
    level=1,
)
def running_means(values: list[int]) -> list[float]:
    out = []
    total = 0
    for i, v in enumerate(values):
        total += v
        out.append(round(total / (i + 1), 2))
    return out


@FAMILY.problem(
    "Return how many non-empty prefixes of `values` (values[:1], values[:2], ..., the whole list)"
    " have a sum greater than 0.",
    "Given a list of integers values, add the elements up from the left and count how many times"
    " the running total, taken after each element, is strictly positive; an empty list gives 0.",
    examples=[([2, -3, 4, -1],), ([-1, 1],)],
    tests=[([],), ([0],), ([5],), ([-5],), ([1, -1, 1, -1],), ([3, -1, -1, -1, -1, 5],)],
    level=1,
)
def count_positive_prefixes(values: list[int]) -> int:
    count = 0
    total = 0
    for v in values:
        total += v
        if total > 0:
            count += 1
    return count


@FAMILY.problem(
    "Return a list whose element i is the total number of characters in words[0] through"
    " words[i]. An empty list gives [].",
    "Given a list of strings words, keep a running count of characters as you read the words in"
    " order and return that count after each word; empty strings add 0.",
    examples=[(["ab", "cde", "f"],), ([],)],
    tests=[([""],), (["hello"],), (["a", "", "bb"],), (["one", "two", "three"],), (["  ", "x"],)],
    level=1,
)
def cumulative_lengths(words: list[str]) -> list[int]:
    out = []
    total = 0
    for word in words:
        total += len(word)
        out.append(total)
    return out


@FAMILY.problem(
    "`totals` is a list of running totals. Recover the original numbers: element 0 of the result is"
    " totals[0], and element i (i >= 1) is totals[i] - totals[i - 1]. An empty list gives [].",
    "Given the cumulative sums totals of some unknown list, return that list: the first value"
    " equals the first total and each later value is the increase from the previous total to the"
    " current one (possibly negative).",
    examples=[([3, 5, 5, 9],), ([4],)],
    tests=[([],), ([0],), ([-2],), ([1, 2, 3],), ([10, 7, 7, -1],), ([0, 0, 5, 5, 0],)],
    level=1,
)
def undo_running_total(totals: list[int]) -> list[int]:
    out = []
    previous = 0
    for t in totals:
        out.append(t - previous)
        previous = t
    return out
