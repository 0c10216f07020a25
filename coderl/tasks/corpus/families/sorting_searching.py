from coderl.tasks.corpus.define import Family

FAMILY = Family("sorting_searching", "custom sort keys, stable multi-key sorts, binary search, merging sorted data")


@FAMILY.problem(
    "Return the strings of `words` that have at least `min_length` characters, sorted by length"
    " (shortest first). Words of equal length are ordered alphabetically ignoring case, and words"
    " that are equal ignoring case keep their original order.",
    "Given a list of strings words and an integer min_length, drop every word shorter than"
    " min_length and order the rest by increasing length; break ties by case-insensitive"
    " alphabetical order, and if two words still tie (same letters, different case) keep them in the"
    " order they appear in words. Nothing left gives an empty list.",
    examples=[(["pear", "Fig", "apple", "kiwi", "fig", "a"], 2)],
    tests=[([], 0), (["b", "A", "a", "B"], 1), (["zeta", "Alpha", "beta", "ab", "Ab", "c"], 2),
           (["same", "SAME", "Same"], 4), (["ccc", "bb", "a", "dd", "B"], 0), (["ccc", "bb", "a"], 3),
           (["xy", "q"], 5)],
)
def sort_by_length_then_alpha(words: list[str], min_length: int) -> list[str]:
    return sorted((w for w in words if len(w) >= min_length), key=lambda w: (len(w), w.lower()))


@FAMILY.problem(
    "`nums` is sorted in non-decreasing order. Return the index of the first element that is greater"
    " than or equal to `target`, or len(nums) if every element is smaller. Use binary search.",
    "Binary search a sorted list: given nums (non-decreasing, duplicates allowed) and an integer"
    " target, find the smallest index i with nums[i] >= target. When no such index exists (including"
    " an empty list) the answer is len(nums).",
    examples=[([1, 3, 3, 5, 8], 3), ([2, 4], 9)],
    tests=[([], 4), ([5], 5), ([5], 6), ([5], -1), ([1, 2, 2, 2, 3], 2), ([-7, -3, 0, 0, 4, 10, 12], 1),
           ([1, 1, 1, 1], 1)],
)
def first_index_at_least(nums: list[int], target: int) -> int:
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


@FAMILY.problem(
    "`nums` is sorted in non-decreasing order. Return the index of the last occurrence of `target`,"
    " or -1 if target does not occur. Use binary search.",
    "A sorted log of reading values nums may repeat values. Find the position (0-based) of the final"
    " reading equal to target; if no reading equals target, or the log is empty, report -1.",
    examples=[([1, 2, 2, 2, 5], 2), ([1, 3], 2)],
    tests=[([], 1), ([4], 4), ([4], 3), ([7, 7, 7, 7], 7), ([-5, -5, 0, 3, 3, 9], -5),
           ([-5, -5, 0, 3, 3, 9], 3), ([1, 2, 3, 4, 5, 6, 7], 8)],
)
def last_occurrence(nums: list[int], target: int) -> int:
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] <= target:
            lo = mid + 1
        else:
            hi = mid
    if lo > 0 and nums[lo - 1] == target:
        return lo - 1
    return -1


@FAMILY.problem(
    "`nums` is sorted in non-decreasing order. Return how many of its elements x satisfy"
    " low <= x <= high (both bounds inclusive). If low > high the answer is 0.",
    "Given a sorted list of integers nums and two bounds low and high, count the values lying in the"
    " closed interval [low, high]. Duplicates are counted each time they appear; an empty interval"
    " (low greater than high) contains nothing.",
    examples=[([1, 2, 2, 5, 7, 9], 2, 7)],
    tests=[([], 0, 10), ([3, 3, 3], 3, 3), ([1, 4, 6, 8], 5, 5), ([1, 4, 6, 8], 8, 1),
           ([-10, -4, -4, 0, 2, 6], -4, 2), ([1, 4, 6, 8], -100, 100), ([2, 4, 6], 4, 6)],
)
def count_in_range(nums: list[int], low: int, high: int) -> int:
    import bisect
    if low > high:
        return 0
    return bisect.bisect_right(nums, high) - bisect.bisect_left(nums, low)


@FAMILY.problem(
    "Return the k-th smallest distinct value in `nums` (k = 1 is the minimum). Repeated values count"
    " once. Return None if nums has fewer than k distinct values or if k < 1.",
    "Given an unsorted list of integers nums and a 1-based rank k, compute the value that would be at"
    " position k if the distinct values of nums were listed in increasing order. When k is less than 1"
    " or larger than the number of distinct values, the result is None.",
    examples=[([5, 1, 3, 1, 5, 2], 2), ([4, 4], 2)],
    tests=[([], 1), ([7], 1), ([9, -2, 9, -2, 0], 3), ([9, -2, 9, -2, 0], 4), ([3, 1, 2], 0),
           ([10, 20, 10, 30, 20, 40], 3)],
)
def kth_smallest_distinct(nums: list[int], k: int) -> int | None:
    values = sorted(set(nums))
    if k < 1 or k > len(values):
        return None
    return values[k - 1]


@FAMILY.problem(
    "`first` and `second` are each sorted in non-decreasing order. Merge them into one sorted list in"
    " which every value appears only once, walking both lists with two indices.",
    "Two sorted customer-id lists, first and second, may overlap and may contain repeats. Produce the"
    " sorted list of all ids that appear in either list, each id exactly once. Either list may be"
    " empty.",
    examples=[([1, 3, 3, 7], [2, 3, 8])],
    tests=[([], []), ([], [4, 4, 5]), ([1, 1, 1], []), ([-3, 0, 2], [-3, 0, 2]), ([1, 5, 9], [2, 6, 10, 11]),
           ([-9, -1, 4, 4], [-5, 4, 6, 6])],
)
def merge_sorted_unique(first: list[int], second: list[int]) -> list[int]:
    result: list[int] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if j == len(second) or (i < len(first) and first[i] <= second[j]):
            value = first[i]
            i += 1
        else:
            value = second[j]
            j += 1
        if not result or result[-1] != value:
            result.append(value)
    return result


@FAMILY.problem(
    "`nums` holds distinct integers that were sorted ascending and then rotated (the tail moved to"
    " the front). Return the index of the smallest element using binary search, or -1 if nums is"
    " empty.",
    "A sorted list of distinct integers nums has been rotated by an unknown amount, e.g."
    " [4, 5, 1, 2, 3]. Find the position where the original first (smallest) value now sits. A list"
    " that was not rotated gives 0, and an empty list gives -1.",
    examples=[([4, 5, 6, 1, 2, 3],), ([1, 2, 3],)],
    tests=[([],), ([8],), ([2, 1],), ([1, 2],), ([3, 4, 5, 6, 7, 1],), ([9, -4, -1, 0, 5],),
           ([5, 6, 7, 8, 9, 10, 2, 3],)],
)
def rotated_min_index(nums: list[int]) -> int:
    if not nums:
        return -1
    lo, hi = 0, len(nums) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] > nums[hi]:
            lo = mid + 1
        else:
            hi = mid
    return lo


@FAMILY.problem(
    "`records` is a list of (name, score) pairs. Return the names ordered by score from highest to"
    " lowest; players with the same score are ordered alphabetically by name.",
    "Build a leaderboard: given records as (name, score) tuples, list the names so that higher scores"
    " come first and equal scores are broken by alphabetical (case-sensitive, Python string order)"
    " name. No records means an empty leaderboard.",
    examples=[([("ann", 5), ("bob", 9), ("cat", 5)],)],
    tests=[([],), ([("solo", 0)],), ([("z", -1), ("y", -1), ("x", -2)],),
           ([("Bob", 3), ("bob", 3), ("al", 4)],), ([("d", 1), ("c", 2), ("b", 3), ("a", 4)],)],
)
def leaderboard_names(records: list[tuple[str, int]]) -> list[str]:
    return [name for name, _ in sorted(records, key=lambda r: (-r[1], r[0]))]


@FAMILY.problem(
    "Return `nums` sorted by the sum of the decimal digits of each number's absolute value, smallest"
    " digit sum first; numbers with the same digit sum are ordered from largest to smallest value.",
    "Given a list of integers nums (possibly negative), compute a new list ordered by digit sum, where"
    " the digit sum of -41 is 4 + 1 = 5. Ties on digit sum are broken by putting the larger number"
    " first.",
    examples=[([31, 4, 12, 100],)],
    tests=[([],), ([0],), ([-41, 5, 14, 50],), ([19, 91, 28, 1, 10],), ([-3, 3, -12, 21],),
           ([999, 1000, 7, -7],)],
)
def sort_by_digit_sum(nums: list[int]) -> list[int]:
    return sorted(nums, key=lambda n: (sum(int(d) for d in str(abs(n))), -n))


@FAMILY.problem(
    "`nums` is sorted in non-increasing (descending) order. Return the index at which `target` should"
    " be inserted to keep it descending, placing it after any elements equal to it. Use binary search.",
    "A descending high-score table nums (duplicates allowed) receives a new score target. Find the"
    " 0-based position where the new score goes so the table stays in non-increasing order; a new"
    " score that ties existing ones goes after all of them. An empty table gives 0.",
    examples=[([9, 7, 7, 3], 7), ([5, 4], 10)],
    tests=[([], 3), ([5], 5), ([5], 6), ([5], 4), ([10, 8, 8, 8, 2, -1], 8), ([10, 8, 6, 4], -3),
           ([3, 3, 3, 3], 3), ([9, 7, 5, 3, 1], 6)],
)
def insert_position_descending(nums: list[int], target: int) -> int:
    lo, hi = 0, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] >= target:
            lo = mid + 1
        else:
            hi = mid
    return lo


@FAMILY.problem(
    "`nums` is sorted ascending. Return the element of nums closest to `target`; if two elements are"
    " equally close return the smaller one. Return None for an empty list.",
    "Given a sorted list of integers nums and an integer target, find the value in nums with the"
    " smallest absolute difference from target. When a value below and a value above are equally"
    " far, prefer the smaller value. An empty nums has no answer: return None.",
    examples=[([1, 4, 6, 10], 5), ([2, 9], 20)],
    tests=[([], 3), ([7], -100), ([7], 100), ([1, 3], 2), ([-8, -2, 5, 11], -5), ([-8, -2, 5, 11], 9),
           ([0, 10, 20], -1), ([3, 3, 8], 6), ([1, 4, 6], 50)],
)
def closest_value(nums: list[int], target: int) -> int | None:
    import bisect
    if not nums:
        return None
    i = bisect.bisect_left(nums, target)
    if i == 0:
        return nums[0]
    if i == len(nums):
        return nums[-1]
    before, after = nums[i - 1], nums[i]
    return before if target - before <= after - target else after


@FAMILY.problem(
    "`events` is a list of (name, day, priority) tuples. Return the event names ordered by day"
    " ascending, then by priority descending; events with equal day and priority keep their original"
    " order.",
    "Schedule a to-do list: each entry of events is (name, day, priority). List the names so that"
    " earlier days come first, within a day the higher priority comes first, and entries that tie on"
    " both keep the order in which they were given.",
    examples=[([("mail", 2, 1), ("call", 1, 1), ("plan", 2, 5)],)],
    tests=[([],), ([("x", 0, 0)],), ([("b", 3, 2), ("a", 3, 2), ("c", 3, 2)],),
           ([("low", 1, -1), ("high", 1, 3), ("early", 0, -5), ("mid", 1, 0)],),
           ([("w", 5, 1), ("v", 4, 1), ("u", 5, 2), ("t", 4, 9)],)],
)
def schedule_order(events: list[tuple[str, int, int]]) -> list[str]:
    return [e[0] for e in sorted(events, key=lambda e: (e[1], -e[2]))]


@FAMILY.problem(
    "`prices` lists a stock's daily prices. Return how many pairs of days i < j have a drop of at"
    " least `gap`, i.e. prices[i] - prices[j] >= gap. Return 0 for fewer than two days.",
    "Given a list of integers prices and an integer gap, count the index pairs (i, j) with i earlier"
    " than j where the earlier price exceeds the later one by gap or more (a difference exactly equal"
    " to gap counts). Empty and one-element lists have no pairs.",
    examples=[([5, 1, 4, 2], 2), ([1, 2, 3], 1)],
    tests=[([], 1), ([5], 0), ([3, 3, 3], 0), ([3, 3, 3], 1), ([4, 3, 2, 1], 2), ([10, 7, 9, 2, 8], 3),
           ([-1, -5, 0, -5, 7, 6], 1)],
)
def count_big_drops(prices: list[int], gap: int) -> int:
    count = 0
    for i in range(len(prices)):
        for j in range(i + 1, len(prices)):
            if prices[i] - prices[j] >= gap:
                count += 1
    return count


@FAMILY.problem(
    "`first` and `second` are sorted ascending. Return the lower median of all their elements"
    " together: the element at index (n - 1) // 2 of the merged sorted list, where n is the total"
    " count. Return None when both lists are empty.",
    "Given two sorted lists first and second, imagine merging them into one sorted list of length n."
    " Compute the element at position (n - 1) // 2 (so for an even count the smaller of the two middle"
    " values). If there are no elements at all, the result is None.",
    examples=[([1, 5, 9], [2, 3]), ([1, 2], [3, 4])],
    tests=[([], []), ([], [7]), ([4], []), ([1, 1], [1, 1]), ([-5, 0, 8], [-6, 2, 3, 10]),
           ([10, 20, 30], [1, 2, 3]), ([1, 2, 3, 4, 5], [6])],
)
def merged_lower_median(first: list[int], second: list[int]) -> int | None:
    n = len(first) + len(second)
    if n == 0:
        return None
    i = j = 0
    value = 0
    for _ in range((n - 1) // 2 + 1):
        if j == len(second) or (i < len(first) and first[i] <= second[j]):
            value = first[i]
            i += 1
        else:
            value = second[j]
            j += 1
    return value


@FAMILY.problem(
    "Return the distinct values of `nums` ordered by how often they occur, most frequent first;"
    " values with equal frequency are ordered from smallest to largest. Each value appears once in the"
    " result.",
    "Given a list of integers nums, list each different value exactly once, sorted so that values"
    " occurring more times come earlier and, among values occurring equally often, smaller values"
    " come earlier. An empty list gives an empty list.",
    examples=[([4, 1, 4, 2, 2, 4],)],
    tests=[([],), ([9],), ([3, 1, 2],), ([5, 5, -1, -1, 0],), ([7, 7, 7, 2, 2, 9, 9, 9, 9, -3],)],
)
def values_by_frequency(nums: list[int]) -> list[int]:
    counts: dict[int, int] = {}
    for n in nums:
        counts[n] = counts.get(n, 0) + 1
    return sorted(counts, key=lambda v: (-counts[v], v))


@FAMILY.problem(
    "`flags` is a list of booleans in which every False comes before every True. Return the index of"
    " the first True using binary search, or len(flags) if there is none.",
    "A build history flags records for each version whether it is broken; once a version is broken"
    " all later ones are too. Find the 0-based index of the first broken (True) version by halving"
    " the search range. If no version is broken (or the history is empty) return len(flags).",
    examples=[([False, False, True, True],), ([False],)],
    tests=[([],), ([True],), ([True, True, True],), ([False, False, False],),
           ([False, False, False, False, False, True],), ([False, True, True, True, True, True, True],)],
)
def first_true_index(flags: list[bool]) -> int:
    lo, hi = 0, len(flags)
    while lo < hi:
        mid = (lo + hi) // 2
        if flags[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@FAMILY.problem(
    "`grid` is a list of rows; reading the rows one after another gives a strictly increasing"
    " sequence. Return the (row, column) position of `target`, or None if it is absent. Search it as"
    " one sorted list of length rows * columns with binary search.",
    "Given a matrix grid whose rows are sorted left to right and where each row starts after the"
    " previous row ends (all values distinct), locate target and compute its (row, column) pair,"
    " 0-based. If target is missing, or grid has no rows, return None.",
    examples=[([[1, 3, 5], [7, 9, 11]], 9), ([[1, 2], [4, 6]], 3)],
    tests=[([], 1), ([[5]], 5), ([[5]], 4), ([[1, 2, 3]], 3), ([[-4, -2], [0, 8], [13, 20]], -4),
           ([[-4, -2], [0, 8], [13, 20]], 20), ([[1], [4], [9], [16]], 10)],
)
def locate_in_grid(grid: list[list[int]], target: int) -> tuple[int, int] | None:
    if not grid or not grid[0]:
        return None
    cols = len(grid[0])
    lo, hi = 0, len(grid) * cols - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        value = grid[mid // cols][mid % cols]
        if value == target:
            return (mid // cols, mid % cols)
        if value < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return None


@FAMILY.problem(
    "Return `words` sorted by their last character; words with the same last character keep their original order,"
    " and an empty string (which has no last character) comes first.",
    "Given a list of strings words, order them by final letter only (a stable sort on the last character, where ''"
    " sorts before everything). Return the new list.",
    examples=[(["cab", "ace", "bad"],), ([],)],
    tests=[(["b"],), (["xa", "ya", "ab"],), (["dog", "", "cat", "emu"],), (["zz", "az", "ba", "ca"],),
           (["Ab", "ab", "aB"],)],
    level=1,
)
def sort_by_last_char(words: list[str]) -> list[str]:
    return sorted(words, key=lambda w: w[-1:])


@FAMILY.problem(
    "Return the index of the first element of `nums` that is strictly greater than `limit`, or -1 if there is"
    " none.",
    "Scan nums from the left and report the position (0-based) of the first value above limit; a value equal to"
    " limit does not count. An empty list, or one with no such value, gives -1.",
    examples=[([3, 8, 1, 9], 5), ([1, 2], 2)],
    tests=[([], 0), ([5], 4), ([5], 5), ([0, 0, 1], 0), ([-3, -2, -1], -3), ([7, 7, 8, 9], 7)],
    level=1,
)
def first_above(nums: list[int], limit: int) -> int:
    return next((i for i, x in enumerate(nums) if x > limit), -1)


@FAMILY.problem(
    "Return the distinct values of `nums` sorted from largest to smallest, each value once.",
    "Given a list of integers nums, remove repeated values and return what is left in descending order; an empty"
    " list gives [].",
    examples=[([3, 1, 3, 2],), ([],)],
    tests=[([5],), ([1, 2, 3],), ([4, 4, 4],), ([-1, 0, -1, 7, 2],), ([10, -10, 0, 10, 5],)],
    level=1,
)
def distinct_descending(nums: list[int]) -> list[int]:
    return sorted(set(nums))[::-1]


@FAMILY.problem(
    "Return `nums` sorted by absolute value, smallest first; when a number and its negative are both present the"
    " positive one comes first.",
    "Order the integers nums by their distance from zero (abs), and break ties by putting the larger (positive)"
    " value first. Duplicates are kept.",
    examples=[([3, -1, -3, 2],), ([],)],
    tests=[([0],), ([5, -5, 5],), ([-4, 2, -1, 0],), ([10, -2, 7, -7, 1],), ([-3, -2, -1],)],
    level=1,
)
def sort_by_abs_positive_first(nums: list[int]) -> list[int]:
    return sorted(nums, key=lambda n: (abs(n), -n))


@FAMILY.problem(
    "Return the smallest integer that is at least `start` and does not occur in `nums`.",
    "Search upward from start for the first value missing from the list nums: if start itself is absent the"
    " answer is start, otherwise try start + 1, and so on.",
    examples=[([3, 4, 6], 3), ([1, 2], 5)],
    tests=[([], 0), ([0], 0), ([0, 1, 2], 0), ([-2, -1, 1], -2), ([9, 7, 8, 10], 7), ([5, 5, 6], 6)],
    level=1,
)
def smallest_missing_from(nums: list[int], start: int) -> int:
    x = start
    while x in nums:
        x += 1
    return x
