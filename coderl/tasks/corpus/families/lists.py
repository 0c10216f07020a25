from coderl.tasks.corpus.define import Family

FAMILY = Family("lists", "list transformations: filter, rotate, chunk, interleave, dedupe keeping order")


@FAMILY.problem(
    "Return every `step`-th element of `items`, beginning at index `start` (so the elements at"
    " start, start + step, start + 2*step, ...). `step` is at least 1. If `start` is at or past the"
    " end of the list, return an empty list.",
    "Given a list items, a starting index start (0 or more) and a stride step (1 or more), build the"
    " list of elements found at positions start, start + step, start + 2 * step and so on while the"
    " position is still inside the list. An out-of-range start gives [].",
    examples=[([10, 20, 30, 40, 50, 60], 1, 2), ([1, 2, 3], 0, 1)],
    tests=[([], 0, 3), ([5, 6, 7], 3, 1), ([4, 8, 15, 16, 23, 42, 99], 2, 3), ([9], 0, 5),
           ([1, 2, 3, 4, 5, 6, 7, 8], 0, 2), ([3, 1, 4, 1, 5], 4, 2)],
)
def every_nth(items: list[int], start: int, step: int) -> list[int]:
    out = []
    i = start
    while i < len(items):
        out.append(items[i])
        i += step
    return out


@FAMILY.problem(
    "Remove duplicates from `items`, keeping only the LAST occurrence of each value. The result"
    " lists the kept values in the order in which those last occurrences appear in `items`.",
    "A playlist history `items` may mention the same song several times. Produce the list of"
    " distinct songs ordered by when each was played most recently, earliest first: every song"
    " appears once, at the position of its final occurrence. An empty history gives [].",
    examples=[(["a", "b", "a", "c", "b"],)],
    tests=[([],), (["x"],), (["x", "x", "x"],), (["p", "q", "r"],), (["r", "q", "p", "q", "r", "s"],),
           (["b", "a", "b", "a"],)],
)
def dedupe_keep_last(items: list[str]) -> list[str]:
    seen = set()
    out = []
    for item in reversed(items):
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out[::-1]


@FAMILY.problem(
    "Return `words` with case-insensitive duplicates removed: a word is dropped when an earlier"
    " word is equal to it ignoring upper/lower case. Kept words retain their original spelling and"
    " order.",
    "Given a list of strings words, keep the first word of every group of words that differ only"
    " in letter case, discard the later ones, and return the kept words unchanged and in their"
    " original order.",
    examples=[(["Apple", "apple", "Pear", "APPLE", "pear", "fig"],)],
    tests=[([],), (["one"],), (["Go", "GO", "go", "gO"],), (["a", "b", "A", "c", "B"],),
           (["Tree", "tree", "TREES"],), (["x", "y", "z"],)],
)
def dedupe_ignore_case(words: list[str]) -> list[str]:
    seen = set()
    out = []
    for word in words:
        key = word.lower()
        if key not in seen:
            seen.add(key)
            out.append(word)
    return out


@FAMILY.problem(
    "Rotate `items` to the left by `k` positions and return the new list: the first k elements move"
    " to the end. `k` may be larger than the length (it wraps around) or negative (a negative k"
    " rotates to the right by -k). An empty list stays empty.",
    "Given a list items and an integer k, produce the list that starts at element k (counting"
    " modulo the length) and wraps around to the beginning; a negative k shifts elements to the"
    " right instead. Return [] for an empty list. Do not modify items.",
    examples=[([1, 2, 3, 4, 5], 2), ([1, 2, 3], -1)],
    tests=[([], 3), ([7], 5), ([1, 2, 3, 4], 0), ([1, 2, 3, 4], 6), ([1, 2, 3, 4, 5], -7),
           ([9, 8, 7, 6, 5, 4], 1), ([1, 2, 3], 3)],
)
def rotate_left(items: list[int], k: int) -> list[int]:
    if not items:
        return []
    k %= len(items)
    return items[k:] + items[:k]


@FAMILY.problem(
    "Split `items` into consecutive chunks of length `size` (size >= 1). If the last chunk is"
    " shorter than size, pad it at the end with copies of `fill` until it has length size. Return"
    " the list of chunks; an empty input gives [].",
    "Packing eggs: items are eggs in a row, to be placed into cartons holding exactly size eggs"
    " each, filling cartons in order. The final carton, if not full, is topped up with the"
    " placeholder value fill. Return the cartons as a list of lists ([] when there are no eggs).",
    examples=[([1, 2, 3, 4, 5], 2, 0)],
    tests=[([], 3, 0), ([1, 2, 3], 3, 9), ([1, 2, 3, 4], 3, -1), ([5], 4, 7),
           ([1, 2, 3, 4, 5, 6, 7], 2, 0), ([8, 9], 1, 0)],
)
def chunk_padded(items: list[int], size: int, fill: int) -> list[list[int]]:
    chunks = []
    for i in range(0, len(items), size):
        chunk = items[i:i + size]
        chunk += [fill] * (size - len(chunk))
        chunks.append(chunk)
    return chunks


@FAMILY.problem(
    "Interleave the lists `a` and `b`: take the first element of a, then the first of b, then the"
    " second of a, and so on. When one list runs out, append the rest of the other list unchanged.",
    "Given two lists a and b (possibly of different lengths, possibly empty), return a single list"
    " that alternates their elements starting with a; once the shorter list is exhausted the"
    " remaining elements of the longer one follow in order.",
    examples=[([1, 3, 5], [2, 4]), ([1], [10, 20, 30])],
    tests=[([], []), ([], [1, 2]), ([1, 2], []), ([1, 2, 3], [4, 5, 6]), ([7, 8, 9, 10, 11], [0]),
           ([5], [6])],
)
def interleave(a: list[int], b: list[int]) -> list[int]:
    out = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            out.append(a[i])
        if i < len(b):
            out.append(b[i])
    return out


@FAMILY.problem(
    "Remove commented-out sections from `lines`. A section starts at an element equal to `start`"
    " and ends at the next element after it equal to `end`; both markers and everything between"
    " them are removed. If a start marker has no matching end, everything from it to the end of the"
    " list is removed. An `end` outside a section is kept as ordinary text. Return the remaining"
    " elements in order.",
    "Given a list of strings lines and two marker strings start and end, drop every block that"
    " begins with a line equal to start and runs through the next line equal to end (inclusive)."
    " An unterminated block extends to the end of the list, and end lines that do not close a block"
    " stay. Return what is left.",
    examples=[(["a", "<", "b", ">", "c"], "<", ">")],
    tests=[([], "<", ">"), (["a", "b"], "<", ">"), (["x", "<", "y", "z"], "<", ">"),
           ([">", "a", "<", ">", "b"], "<", ">"), (["<", "<", ">", ">", "c", "<", "d", ">"], "<", ">"),
           (["begin", "k", "stop", "m", "begin", "stop", "n"], "begin", "stop")],
)
def strip_sections(lines: list[str], start: str, end: str) -> list[str]:
    out = []
    inside = False
    for line in lines:
        if inside:
            if line == end:
                inside = False
        elif line == start:
            inside = True
        else:
            out.append(line)
    return out


@FAMILY.problem(
    "Return the elements of `values` that lie between `low` and `high`, both inclusive, in their"
    " original order. If low is greater than high the two bounds are swapped first.",
    "Given a list of integers values and two bounds low and high (in either order), keep only the"
    " values that are at least the smaller bound and at most the larger bound, preserving order"
    " and duplicates.",
    examples=[([5, 1, 9, 3, 7], 3, 7), ([5, 1, 9], 9, 4)],
    tests=[([], 0, 10), ([1, 2, 3, 4, 5], 2, 4), ([10, -5, 0, 5, -10], 5, -5), ([4, 4, 4], 4, 4),
           ([1, 100, 50], 51, 99), ([3, 8, 2, 8], 8, 2)],
)
def keep_in_range(values: list[int], low: int, high: int) -> list[int]:
    lo, hi = min(low, high), max(low, high)
    return [v for v in values if lo <= v <= hi]


@FAMILY.problem(
    "Split `values` at every 0: return the groups of consecutive non-zero numbers, in order, as a"
    " list of lists. Zeros themselves are not included and empty groups (from leading, trailing or"
    " repeated zeros) are left out.",
    "A sensor writes a 0 between separate bursts of readings. Given the stream values, return the"
    " list of bursts, each burst being the run of non-zero readings between zeros; ignore empty"
    " bursts. A stream with no non-zero readings gives [].",
    examples=[([3, 4, 0, 5, 0, 0, 6, 7, 8],)],
    tests=[([],), ([0, 0],), ([1, 2, 3],), ([0, 1, 0],), ([-1, 0, -2, -3, 0],), ([9, 0, 0, 0, 9, 9],)],
)
def split_on_zeros(values: list[int]) -> list[list[int]]:
    groups = []
    current = []
    for v in values:
        if v == 0:
            if current:
                groups.append(current)
            current = []
        else:
            current.append(v)
    if current:
        groups.append(current)
    return groups


@FAMILY.problem(
    "Rearrange `values` so that all negative numbers come first, then all zeros, then all positive"
    " numbers. Within each of the three groups keep the original relative order. Return a new list.",
    "Given a list of integers values, return a stable three-way partition of it: the negatives in"
    " their original order, followed by the zeros, followed by the positives in their original"
    " order.",
    examples=[([3, -1, 0, -4, 2, 0],)],
    tests=[([],), ([0],), ([5, 4, 3],), ([-2, -9, -1],), ([1, 0, -1, 2, 0, -2],), ([0, 7, -7, 0, 7],)],
)
def partition_by_sign(values: list[int]) -> list[int]:
    return [v for v in values if v < 0] + [v for v in values if v == 0] + [v for v in values if v > 0]


@FAMILY.problem(
    "Return the list of differences between neighbouring elements of `values`: element i of the"
    " result is values[i + 1] - values[i]. Lists with fewer than two elements give [].",
    "Given a list of daily readings values, compute how much each day changed from the day before:"
    " a list one shorter than values where each entry is the later reading minus the earlier one."
    " With zero or one reading the answer is [].",
    examples=[([3, 7, 4, 4, 10],)],
    tests=[([],), ([5],), ([1, 2],), ([10, 0, -10],), ([-3, 5, 2, 2, -8, 0],)],
)
def neighbour_differences(values: list[int]) -> list[int]:
    return [values[i + 1] - values[i] for i in range(len(values) - 1)]


@FAMILY.problem(
    "Run-length encode `items`: return a list of (value, count) tuples, one for each maximal run of"
    " equal consecutive elements, in order. An empty list gives [].",
    "Given a list of strings items, group equal adjacent elements and describe each group as a"
    " tuple (element, length of the group). The same element may appear in several tuples if its"
    " runs are separated. Return the tuples in order.",
    examples=[(["a", "a", "b", "a", "a", "a"],)],
    tests=[([],), (["z"],), (["x", "y", "z"],), (["q", "q", "q", "q"],), (["a", "b", "b", "a", "b"],),
           (["up", "up", "down", "up"],), (["m", "m", "m", "n", "n"],)],
)
def run_lengths(items: list[str]) -> list[tuple[str, int]]:
    runs = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1] = (item, runs[-1][1] + 1)
        else:
            runs.append((item, 1))
    return runs


@FAMILY.problem(
    "Return a copy of `values` in which no value appears more than `max_repeat` times in a row:"
    " from every run of equal consecutive elements keep only the first max_repeat of them"
    " (max_repeat >= 1). Separate runs of the same value are limited independently.",
    "A chat filter stops a user from repeating the same message too often in a row. Given the"
    " message ids values and the limit max_repeat (at least 1), drop each message that would be the"
    " (max_repeat + 1)-th or later consecutive copy of the same id, and return the surviving ids"
    " in order.",
    examples=[([1, 1, 1, 2, 2, 1, 1, 1, 1], 2)],
    tests=[([], 1), ([5, 5, 5], 1), ([5, 5, 5], 3), ([1, 2, 3], 1), ([7, 7, 7, 7, 8, 7, 7, 7], 3),
           ([0, 0, 1, 1, 1, 0, 0, 0], 2)],
)
def limit_repeats(values: list[int], max_repeat: int) -> list[int]:
    out = []
    run = 0
    for i, v in enumerate(values):
        if i > 0 and values[i - 1] == v:
            run += 1
        else:
            run = 1
        if run <= max_repeat:
            out.append(v)
    return out


@FAMILY.problem(
    "Return the indices of the elements of `items` that are within `tolerance` of `target`, that is"
    " whose absolute difference from target is at most tolerance (tolerance >= 0). List the indices"
    " in increasing order; return [] when no element qualifies.",
    "A quality check measures parts; items holds the measured sizes, target the ideal size and"
    " tolerance the allowed deviation. Return the positions (0-based, ascending) of the parts whose"
    " size differs from target by no more than tolerance in either direction, or [] if none do.",
    examples=[([10, 13, 7, 11, 9], 10, 1)],
    tests=[([], 1, 0), ([1, 2, 3], 5, 1), ([7], 7, 0), ([5, 6, 4, 5], 5, 0), ([3, 1, 8, -1, 2, 0], 1, 2),
           ([20, 14, 16, 12, 18], 15, 3)],
)
def positions_near(items: list[int], target: int, tolerance: int) -> list[int]:
    return [i for i, item in enumerate(items) if abs(item - target) <= tolerance]


@FAMILY.problem(
    "Swap adjacent elements of `items` in pairs: the elements at indices 0 and 1 trade places, then"
    " 2 and 3, and so on. If the length is odd, the last element stays where it is. Return a new"
    " list.",
    "Given a list items, produce the list where each consecutive pair (first and second, third and"
    " fourth, ...) appears in reversed order; a leftover final element without a partner is kept at"
    " the end unchanged.",
    examples=[([1, 2, 3, 4, 5],)],
    tests=[([],), ([9],), ([1, 2],), ([6, 5, 4, 3, 2, 1],), ([1, 1, 2, 3, 5, 8, 13],)],
)
def swap_pairs(items: list[int]) -> list[int]:
    out = list(items)
    for i in range(0, len(out) - 1, 2):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


@FAMILY.problem(
    "Insert the string `sep` into `items` after every `k` elements (k >= 1), but never at the very"
    " end of the list. Return the new list; an empty list stays empty.",
    "Given a list of strings items, a separator sep and a group size k (at least 1), return the"
    " items with sep placed between each complete group of k consecutive items and the next item."
    " No separator is added after the last item, even when the last group is complete.",
    examples=[(["a", "b", "c", "d", "e"], "|", 2)],
    tests=[([], "-", 1), (["x"], "-", 1), (["a", "b", "c"], "-", 1), (["a", "b", "c", "d"], "/", 2),
           (["p", "q"], "*", 5), (["1", "2", "3", "4", "5", "6", "7"], ",", 3)],
)
def insert_every(items: list[str], sep: str, k: int) -> list[str]:
    out = []
    for i, item in enumerate(items):
        if i > 0 and i % k == 0:
            out.append(sep)
        out.append(item)
    return out


@FAMILY.problem(
    "Return a list of exactly `n` elements taken from `items` in order, starting again from the"
    " beginning whenever the end is reached. If `items` is empty or n is 0 or negative, return [].",
    "A round-robin scheduler assigns n jobs to the workers listed in items, one job each in turn,"
    " wrapping around to the first worker after the last. Return the worker for each of the n jobs"
    " in order ([] when there are no workers or n <= 0).",
    examples=[(["ann", "bob", "cy"], 7)],
    tests=[([], 3), (["solo"], 4), (["a", "b"], 0), (["a", "b", "c"], 2), (["a", "b"], -2),
           (["w", "x", "y", "z"], 9)],
)
def cycle_take(items: list[str], n: int) -> list[str]:
    if not items:
        return []
    return [items[i % len(items)] for i in range(n)]


@FAMILY.problem(
    "Return the sum of the numbers in `nums` that are strictly greater than `threshold`. If no"
    " number is greater, return 0.",
    "Given a list of integers nums and a limit threshold, add up only the elements above the limit"
    " (elements equal to threshold are not included) and return the total, 0 when there are none.",
    examples=[([1, 5, 8, 3], 4), ([2, 2], 2)],
    tests=[([], 0), ([10], 9), ([10], 10), ([-5, -1, 0, 3], -2), ([4, 4, 5, 6], 4), ([7, 1, 7, 1], 0)],
    level=1,
)
def sum_above(nums: list[int], threshold: int) -> int:
    return sum(n for n in nums if n > threshold)


@FAMILY.problem(
    "Return a copy of `nums` in which every negative number is replaced by `value`. Zero and"
    " positive numbers are kept as they are.",
    "Given a list of integers nums and a substitute value, produce a new list of the same length"
    " where each element below zero has been swapped for value and every other element is"
    " unchanged.",
    examples=[([3, -1, 0, -7], 0), ([-2, 5], 9)],
    tests=[([], 1), ([0], -5), ([-1], 4), ([1, 2, 3], 0), ([-3, -2, -1], -9), ([5, -5, 5, -5], 2)],
    level=1,
)
def replace_negatives(nums: list[int], value: int) -> list[int]:
    return [value if n < 0 else n for n in nums]


@FAMILY.problem(
    "Return the leading elements of `nums` that are positive: stop at the first element that is"
    " zero or negative and leave it and everything after it out. If the first element is not"
    " positive, return [].",
    "Given a list of integers nums, collect elements from the front for as long as they are"
    " greater than 0, and return the collected prefix; an empty list gives [].",
    examples=[([3, 1, 0, 5],), ([-1, 4],)],
    tests=[([],), ([7],), ([0],), ([1, 2, 3],), ([2, 9, -4, 8, 1],), ([5, 5, 0, 0],)],
    level=1,
)
def leading_positives(nums: list[int]) -> list[int]:
    out = []
    for n in nums:
        if n <= 0:
            break
        out.append(n)
    return out


@FAMILY.problem(
    "Return the last `n` elements of `items` in reverse order (the very last element first). If"
    " `n` is 0 return []; if `n` is larger than the list, return the whole list reversed.",
    "Given a list items and a count n (n >= 0), take the final n elements and list them from the"
    " end backwards, so [1, 2, 3, 4] with n = 2 gives [4, 3]; n larger than the length reverses"
    " the entire list.",
    examples=[([1, 2, 3, 4], 2), ([5, 6], 9)],
    tests=[([], 3), ([1, 2, 3], 0), ([1, 2, 3], 1), ([1, 2, 3], 3), ([9, 8, 7, 6, 5], 4), ([4], 1)],
    level=1,
)
def last_n_reversed(items: list[int], n: int) -> list[int]:
    if n <= 0:
        return []
    return items[::-1][:n]


@FAMILY.problem(
    "Return the element-wise maximum of the lists `a` and `b`: element i of the result is the"
    " larger of a[i] and b[i]. If the lists have different lengths, stop at the end of the shorter"
    " one.",
    "Given two lists of integers a and b, pair them up position by position and keep the bigger"
    " value of each pair; positions that exist in only one list are dropped, so an empty list"
    " gives [].",
    examples=[([1, 5, 3], [4, 2, 3]), ([7, 8, 9], [1])],
    tests=[([], [1, 2]), ([3], []), ([-1, -5], [-2, -4]), ([0, 0, 0], [0, 1, -1]), ([10, 20], [20, 10, 30]),
           ([2, 9, 4, 7], [8, 1, 6, 3])],
    level=1,
)
def pairwise_max(a: list[int], b: list[int]) -> list[int]:
    return [max(a[i], b[i]) for i in range(min(len(a), len(b)))]


@FAMILY.problem(
    "Return `items` without its first `k` and its last `k` elements. If that removes everything"
    " (2 * k is at least the length), return []. `k` is 0 or more; k = 0 returns a copy.",
    "Given a list items and a trim count k (k >= 0), cut k elements off each end of the list and"
    " return the middle part that is left, which is [] when the list is too short.",
    examples=[([1, 2, 3, 4, 5], 1), ([1, 2, 3], 2)],
    tests=[([], 0), ([], 2), ([7, 8], 0), ([7, 8], 1), ([1, 2, 3, 4, 5, 6], 2), ([1, 2, 3, 4, 5], 2)],
    level=1,
)
def trim_ends(items: list[int], k: int) -> list[int]:
    if 2 * k >= len(items):
        return []
    return items[k:len(items) - k]
