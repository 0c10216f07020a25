from coderl.tasks.corpus.define import Family

FAMILY = Family("windows", "sliding windows and two pointers: max-sum window, longest run, pairs with target")


@FAMILY.problem(
    "Return the largest sum of `k` consecutive elements of `values`. If k is 0 or negative, or"
    " larger than the length of values, return None.",
    "A shop records its daily sales in values. Find the best stretch of exactly k consecutive days"
    " and return its total sales. When no such stretch exists (k <= 0 or k greater than the number"
    " of days) return None.",
    examples=[([2, 1, 5, 1, 3, 2], 3)],
    tests=[([], 1), ([4, 2], 3), ([1, 2, 3], 0), ([-3, -1, -2], 1), ([5, -2, 4, -1, 6], 5),
           ([1, 9, -8, 2, 2, 2], 2), ([3, 3, 1, 5, 1, 0], 4), ([1, 2, 3, 10], 2)],
)
def max_window_sum(values: list[int], k: int) -> int | None:
    if k <= 0 or k > len(values):
        return None
    current = sum(values[:k])
    best = current
    for i in range(k, len(values)):
        current += values[i] - values[i - k]
        best = max(best, current)
    return best


@FAMILY.problem(
    "Return the length of the longest block of consecutive equal elements in `values`. An empty"
    " list gives 0.",
    "Given a list of integers values, find the maximal run of adjacent positions holding the same"
    " number and return how long it is (0 when values is empty, 1 when no two neighbours are equal).",
    examples=[([1, 1, 2, 2, 2, 1],)],
    tests=[([],), ([7],), ([1, 2, 3],), ([4, 4, 4, 4],), ([5, 5, 1, 1, 1, 5, 5, 5, 5],),
           ([0, 0, 1, 0, 0, 0],), ([2, 2, 1, 2],)],
)
def longest_equal_run(values: list[int]) -> int:
    if not values:
        return 0
    best = run = 1
    for i in range(1, len(values)):
        run = run + 1 if values[i] == values[i - 1] else 1
        best = max(best, run)
    return best


@FAMILY.problem(
    "Find the longest stretch of consecutive elements of `values` that is strictly increasing and"
    " return it as a tuple (start index, length). If several stretches have the same maximal"
    " length, take the one that starts first. An empty list gives (0, 0).",
    "Given a list of prices values, locate the longest contiguous segment in which every price is"
    " strictly greater than the one before. Report the segment as (index where it starts, number"
    " of elements); ties go to the earliest segment, and for no prices at all report (0, 0).",
    examples=[([5, 1, 2, 3, 2, 4],)],
    tests=[([],), ([9],), ([3, 2, 1],), ([1, 2, 2, 3],), ([1, 2, 0, 1, 2, 3, 4],), ([4, 5, 1, 2, 0],),
           ([2, 4, 6, 8],)],
)
def longest_rise(values: list[int]) -> tuple[int, int]:
    if not values:
        return (0, 0)
    best_start, best_len = 0, 1
    start = 0
    for i in range(1, len(values)):
        if values[i] <= values[i - 1]:
            start = i
        if i - start + 1 > best_len:
            best_start, best_len = start, i - start + 1
    return (best_start, best_len)


@FAMILY.problem(
    "`values` is sorted in non-decreasing order. Return the pair (a, b), a <= b, of values taken"
    " from two different positions whose sum is as close as possible to `target`. On a tie in"
    " closeness, prefer the pair with the smaller sum, and if the sums are equal too, the pair with"
    " the smaller a. Return None if values has fewer than two elements.",
    "Given a sorted list of item prices values and a budget target, choose two different items"
    " whose combined price is nearest to target (above or below). Return their prices as a tuple"
    " (smaller, larger); if two choices are equally near, take the one with the lower total, and"
    " between equal totals the one with the cheaper first item. With fewer than two items return"
    " None.",
    examples=[([1, 3, 4, 7, 10], 15), ([1, 2], 100)],
    tests=[([], 5), ([4], 4), ([1, 2, 3, 4], 6), ([1, 2, 4, 8], 7), ([-5, -2, 0, 3, 9], 0),
           ([5, 5, 5], 10), ([1, 4, 6, 10], 12), ([1, 4, 7, 10], 11), ([3, 8], 10), ([2, 6, 8], 9)],
)
def closest_pair_sum(values: list[int], target: int) -> tuple[int, int] | None:
    if len(values) < 2:
        return None
    lo, hi = 0, len(values) - 1
    best = (values[lo], values[hi])
    while lo < hi:
        total = values[lo] + values[hi]
        gap, best_gap = abs(total - target), abs(sum(best) - target)
        if gap < best_gap or (gap == best_gap and total < sum(best)):
            best = (values[lo], values[hi])
        if total < target:
            lo += 1
        else:
            hi -= 1
    return best


@FAMILY.problem(
    "Return the average of every window of `k` consecutive elements of `values`, in order, each"
    " rounded to 2 decimals. k is at least 1; if k is larger than the length of values, return [].",
    "Given hourly temperatures values and a window size k (k >= 1), compute the moving average:"
    " for each run of k consecutive readings, from the first to the last, the mean rounded to 2"
    " decimals. Return [] when there are fewer than k readings.",
    examples=[([1, 2, 3, 4, 6], 2)],
    tests=[([], 1), ([5, 5], 3), ([10], 1), ([1, 2, 4], 3), ([3, -1, 4, 1, -5, 9], 3), ([7, 8, 9], 2)],
)
def moving_averages(values: list[int], k: int) -> list[float]:
    return [round(sum(values[i:i + k]) / k, 2) for i in range(len(values) - k + 1)]


@FAMILY.problem(
    "`values` holds positive integers and `target` is positive. Return the length of the shortest"
    " contiguous block of values whose sum is at least target. If no block reaches target, return 0.",
    "Daily rainfall in millimetres is listed in values (all positive). Find the fewest consecutive"
    " days whose total rainfall reaches or exceeds target (a positive amount) and return that number of days, or 0"
    " when even all days together fall short.",
    examples=[([2, 3, 1, 2, 4, 3], 7)],
    tests=[([], 1), ([1, 1, 1], 4), ([5], 5), ([1, 4, 4], 4), ([1, 2, 3, 4, 5], 11), ([3, 1, 1, 1, 6, 2], 8),
           ([2, 2, 2, 2], 8), ([6, 3, 3], 6)],
)
def shortest_block_reaching(values: list[int], target: int) -> int:
    best = 0
    total = 0
    left = 0
    for right, v in enumerate(values):
        total += v
        while total >= target and left <= right:
            if best == 0 or right - left + 1 < best:
                best = right - left + 1
            total -= values[left]
            left += 1
    return best


@FAMILY.problem(
    "Return the length of the longest substring of `text` that contains at most `k` distinct"
    " characters. Upper and lower case letters count as different characters. An empty text, or"
    " k of 0, gives 0.",
    "Given a string text and a limit k (k >= 0), find the longest run of consecutive characters"
    " that uses no more than k different characters (case-sensitive) and return its length.",
    examples=[("eceba", 2), ("aaabbb", 1)],
    tests=[("", 2), ("abc", 0), ("abc", 5), ("aAaA", 1), ("abaccc", 2), ("xyzzyxw", 3), ("a", 1)],
)
def longest_k_distinct(text: str, k: int) -> int:
    counts = {}
    left = 0
    best = 0
    for right, ch in enumerate(text):
        counts[ch] = counts.get(ch, 0) + 1
        while len(counts) > k:
            counts[text[left]] -= 1
            if counts[text[left]] == 0:
                del counts[text[left]]
            left += 1
        best = max(best, right - left + 1)
    return best


@FAMILY.problem(
    "Count the windows of `k` consecutive elements of `values` whose sum equals `target` exactly."
    " k is at least 1; if values has fewer than k elements the answer is 0.",
    "Given a list of integers values, a window size k (>= 1) and a number target, slide a window of"
    " length k from the start to the end of the list and return in how many positions the elements"
    " inside it add up to target.",
    examples=[([1, 2, 3, 0, 3, 2], 2, 3)],
    tests=[([], 1, 0), ([5, 5], 3, 10), ([4], 1, 4), ([1, 1, 1, 1, 1], 3, 3), ([2, -2, 2, -2, 2], 2, 0),
           ([1, 2, 3, 4, 5], 2, 7)],
)
def count_windows_with_sum(values: list[int], k: int, target: int) -> int:
    count = 0
    for i in range(len(values) - k + 1):
        if sum(values[i:i + k]) == target:
            count += 1
    return count


@FAMILY.problem(
    "`bits` is a list of 0s and 1s. You may change at most `flips` of the 0s into 1s. Return the"
    " length of the longest block of consecutive 1s you can obtain.",
    "A fence has boards that are either painted (1) or not (0), given in bits. With enough paint"
    " for flips boards (flips >= 0), what is the longest run of adjacent painted boards you can"
    " achieve? Return that length (0 when no board can end up painted).",
    examples=[([1, 1, 0, 0, 1, 1, 1, 0, 1], 1)],
    tests=[([], 2), ([0, 0, 0], 0), ([0, 0, 0], 2), ([1, 1, 1], 0), ([1, 0, 1, 0, 1, 0, 1], 2),
           ([0, 1, 1, 0, 0, 1, 1, 1, 0, 1], 1), ([1, 0, 0, 1], 5)],
)
def longest_ones_with_flips(bits: list[int], flips: int) -> int:
    left = 0
    zeros = 0
    best = 0
    for right, bit in enumerate(bits):
        if bit == 0:
            zeros += 1
        while zeros > flips:
            if bits[left] == 0:
                zeros -= 1
            left += 1
        best = max(best, right - left + 1)
    return best


@FAMILY.problem(
    "Return the list of maxima of all windows of `k` consecutive elements of `values`, from the"
    " leftmost window to the rightmost. k is at least 1; if values has fewer than k elements,"
    " return [].",
    "Given a list of integers values and a window width k (>= 1), report for each position of a"
    " width-k window sliding left to right the largest element inside it. Fewer than k elements"
    " means no window and an empty result.",
    examples=[([1, 3, -1, -3, 5, 3, 6, 7], 3)],
    tests=[([], 1), ([2, 1], 3), ([4, 2, 12, 3], 1), ([9, 8, 7, 6, 5], 2), ([-4, -2, -7, -1], 2),
           ([5, 1, 1, 1, 5], 4)],
)
def window_maxima(values: list[int], k: int) -> list[int]:
    return [max(values[i:i + k]) for i in range(len(values) - k + 1)]


@FAMILY.problem(
    "Return True if `values` contains two equal elements whose indices differ by at most `k`,"
    " otherwise False.",
    "Given a list of integers values and a distance k (k >= 0), decide whether some value repeats"
    " within k positions: is there a pair of indices i < j with values[i] == values[j] and j - i <= k?",
    examples=[([1, 2, 3, 1], 3), ([1, 2, 3, 1], 2)],
    tests=[([], 1), ([5, 5], 0), ([5, 5], 1), ([1, 2, 1, 2], 1), ([4, 1, 2, 4, 3, 1], 3),
           ([1, 2, 3, 4, 5, 1], 4), ([7, 8, 9, 7, 8], 2), ([3, 4, 5, 7, 8, 9, 7], 3)],
)
def has_close_duplicate(values: list[int], k: int) -> bool:
    last = {}
    for i, v in enumerate(values):
        if v in last and i - last[v] <= k:
            return True
        last[v] = i
    return False


@FAMILY.problem(
    "Return the length of the longest contiguous block of `values` in which the largest and"
    " smallest elements differ by at most `limit`. An empty list gives 0.",
    "A thermostat log values is considered stable over a stretch of consecutive readings when the"
    " highest and lowest reading in the stretch are no more than limit apart (limit >= 0). Return"
    " the length of the longest stable stretch (0 for an empty log).",
    examples=[([8, 2, 4, 7], 4), ([4, 2, 2, 2, 4, 4, 2, 2], 0)],
    tests=[([], 3), ([6], 0), ([1, 5, 9], 3), ([1, 5, 9], 4), ([10, 1, 2, 4, 7, 2], 5), ([3, 3, 3, 2], 0),
           ([1, 2, 3, 4, 5, 6], 2)],
)
def longest_stable_stretch(values: list[int], limit: int) -> int:
    best = 0
    for i in range(len(values)):
        lo = hi = values[i]
        for j in range(i, len(values)):
            lo, hi = min(lo, values[j]), max(hi, values[j])
            if hi - lo > limit:
                break
            best = max(best, j - i + 1)
    return best


@FAMILY.problem(
    "Count the pairs of positions i < j in `values` with values[i] + values[j] strictly less than"
    " `target`.",
    "Given an unsorted list of integers values and a threshold target, return how many unordered"
    " pairs of different positions have a sum below target (pairs with a sum equal to target do not"
    " count). Equal values at different positions form separate pairs.",
    examples=[([-1, 1, 2, 3, 1], 2)],
    tests=[([], 0), ([1], 5), ([2, 2, 2], 4), ([2, 2, 2], 5), ([5, 0, -3, 8, 1], 6), ([10, 20], 0),
           ([-6, 2, 5, -2, -7, -1, 3], -2)],
)
def count_pairs_below(values: list[int], target: int) -> int:
    ordered = sorted(values)
    lo, hi = 0, len(ordered) - 1
    count = 0
    while lo < hi:
        if ordered[lo] + ordered[hi] < target:
            count += hi - lo
            lo += 1
        else:
            hi -= 1
    return count


@FAMILY.problem(
    "Count the windows of `k` consecutive elements of `values` that are strictly increasing from"
    " left to right. k is at least 1 (every single element is a strictly increasing window of"
    " length 1). Fewer than k elements gives 0.",
    "A stock is on a streak when its price rises every day. Given daily prices values and a"
    " streak length k (>= 1), return how many starting days i have prices values[i] < values[i+1]"
    " < ... < values[i+k-1].",
    examples=[([1, 2, 3, 2, 3, 4, 5], 3)],
    tests=[([], 2), ([4, 5], 3), ([1, 1, 1], 1), ([1, 1, 2], 2), ([5, 4, 3, 2], 2), ([1, 2, 3, 4, 5], 4),
           ([2, 3, 3, 4, 5, 6], 3)],
)
def count_rising_windows(values: list[int], k: int) -> int:
    count = 0
    run = 0
    for i, v in enumerate(values):
        run = run + 1 if i > 0 and values[i - 1] < v else 1
        if run >= k:
            count += 1
    return count


@FAMILY.problem(
    "Return the start index of the first window of `k` consecutive elements of `values` whose sum"
    " is at least `threshold`. If no window qualifies (or values has fewer than k elements), return"
    " -1. k is at least 1.",
    "Given a list values, a window size k (k >= 1) and a threshold, slide the window from the left"
    " and return the index where the first window with sum >= threshold begins; -1 if there is none.",
    examples=[([1, 2, 3, 4, 5], 2, 7)],
    tests=[([], 1, 0), ([3, 3], 3, 1), ([5, 1, 1], 1, 5), ([1, 1, 1, 1], 2, 3), ([-2, 4, -1, 3, 2], 2, 4),
           ([0, 0, 6, 0, 0], 3, 6), ([5, -1, 0, 9], 2, 4)],
)
def first_window_reaching(values: list[int], k: int, threshold: int) -> int:
    total = 0
    for i, v in enumerate(values):
        total += v
        if i >= k:
            total -= values[i - k]
        if i >= k - 1 and total >= threshold:
            return i - k + 1
    return -1


@FAMILY.problem(
    "Return True if the characters of `pattern` appear in `text` in the same order (not"
    " necessarily next to each other), comparing letters case-insensitively. An empty pattern is"
    " always found.",
    "Given strings pattern and text, decide whether pattern is a subsequence of text when upper"
    " and lower case are treated as the same letter: can pattern be obtained by deleting zero or"
    " more characters of text without reordering the rest?",
    examples=[("ACE", "abcde"), ("aec", "abcde")],
    tests=[("", ""), ("", "xyz"), ("a", ""), ("abc", "ABC"), ("aab", "ab"), ("GT", "great"),
           ("hello", "hxexlxlxo"), ("zz", "zaZ"), ("ba", "abc")],
)
def is_subsequence_ci(pattern: str, text: str) -> bool:
    i = 0
    pattern = pattern.lower()
    for ch in text.lower():
        if i < len(pattern) and pattern[i] == ch:
            i += 1
    return i == len(pattern)


@FAMILY.problem(
    "Return the sums of all windows of `k` consecutive elements of `values`, from left to right."
    " k is at least 1; if values has fewer than k elements, return [].",
    "Given a list of integers values and a window size k (k >= 1), slide a window of k neighbours"
    " along the list one step at a time and return the total inside the window at each position"
    " ([] when the list is shorter than k).",
    examples=[([1, 2, 3, 4], 2), ([5, 5], 3)],
    tests=[([], 1), ([7], 1), ([1, 2, 3], 3), ([4, -1, 2, 0, 3], 2), ([1, 1, 1, 1, 1], 4), ([3, 0, -3], 1)],
    level=1,
)
def window_sums(values: list[int], k: int) -> list[int]:
    return [sum(values[i:i + k]) for i in range(len(values) - k + 1)]


@FAMILY.problem(
    "Return how many pairs of neighbouring elements of `values` differ by at most `gap` (in either"
    " direction), i.e. the number of i with abs(values[i + 1] - values[i]) <= gap. `gap` is 0 or"
    " more; lists with fewer than two elements give 0.",
    "Given a list of readings values and a tolerance gap (gap >= 0), count the adjacent pairs"
    " (each reading with the one right after it) whose absolute difference is no larger than gap;"
    " [1, 2, 9] with gap 1 has one such pair.",
    examples=[([1, 2, 9, 10, 4], 1), ([5, 5, 5], 0)],
    tests=[([], 3), ([4], 0), ([4, 6], 1), ([4, 6], 2), ([6, 4, 2, 0], 2), ([0, 10, -10, 0], 10),
           ([3, 1, 3, 3, 8, 1], 0)],
    level=1,
)
def count_close_neighbours(values: list[int], gap: int) -> int:
    return sum(1 for i in range(len(values) - 1) if abs(values[i + 1] - values[i]) <= gap)


@FAMILY.problem(
    "Return the index i of the first pair of neighbours values[i], values[i + 1] whose sum equals"
    " `target`. Return -1 if no two adjacent elements add up to target.",
    "Given a list of integers values and a number target, scan the adjacent pairs from the left and"
    " report the position of the first element of the first pair summing to target, or -1 when"
    " there is none (including lists with fewer than two elements).",
    examples=[([1, 4, 2, 3, 5], 5), ([1, 2], 4)],
    tests=[([], 0), ([5], 5), ([2, 3], 5), ([0, 0, 0], 0), ([1, 9, 1, 9], 10), ([-2, 4, 6, -4], 2), ([3, 3, 4, 2], 6)],
    level=1,
)
def first_pair_with_sum(values: list[int], target: int) -> int:
    for i in range(len(values) - 1):
        if values[i] + values[i + 1] == target:
            return i
    return -1


@FAMILY.problem(
    "Return every substring of `text` made of `k` consecutive characters, in order from left to"
    " right (duplicates included). k is at least 1; a text shorter than k gives [].",
    "Given a string text and a window length k (k >= 1), slide a window of k characters over the"
    " text one character at a time and collect the piece of text inside the window at each step;"
    " 'abcd' with k = 2 gives ['ab', 'bc', 'cd'].",
    examples=[("abcd", 2), ("hi", 3)],
    tests=[("", 1), ("x", 1), ("abc", 3), ("aaaa", 2), ("hello", 4), ("a b", 2)],
    level=1,
)
def char_windows(text: str, k: int) -> list[str]:
    return [text[i:i + k] for i in range(len(text) - k + 1)]


@FAMILY.problem(
    "Return True if `values` contains three consecutive elements that are all equal, and False"
    " otherwise.",
    "Given a list of integers values, decide whether some number appears three times in a row"
    " (at positions i, i + 1 and i + 2); lists shorter than three give False.",
    examples=[([1, 2, 2, 2, 3],), ([1, 1, 2, 2],)],
    tests=[([],), ([5, 5],), ([5, 5, 5],), ([1, 1, 0, 1, 1],), ([0, 7, 7, 7],), ([2, 2, 3, 3, 2, 2],)],
    level=1,
)
def has_triple_run(values: list[int]) -> bool:
    for i in range(len(values) - 2):
        if values[i] == values[i + 1] == values[i + 2]:
            return True
    return False


@FAMILY.problem(
    "Return the indices of the local peaks of `values`: positions i, not the first or the last,"
    " where values[i] is strictly greater than both of its neighbours. Return them in increasing"
    " order ([] if there are none).",
    "Given a list of heights values, list the inner positions (0-based) whose height is higher"
    " than the height just before it and the height just after it; the two end positions are"
    " never peaks, and plateaus of equal values are not peaks.",
    examples=[([1, 3, 2, 5, 4],), ([1, 2, 2, 1],)],
    tests=[([],), ([9],), ([1, 9],), ([1, 9, 1],), ([5, 4, 3],), ([0, 2, 0, 2, 0, 2],), ([3, 1, 3, 1, 3],)],
    level=1,
)
def local_peaks(values: list[int]) -> list[int]:
    return [i for i in range(1, len(values) - 1) if values[i - 1] < values[i] > values[i + 1]]
