from coderl.tasks.corpus.define import Family

FAMILY = Family("recursion", "naturally recursive problems: nested data, counting paths, generating subsets and orders")


@FAMILY.problem(
    "Flatten `nested` (a list whose elements are values or further lists, nested to any depth) by `levels` levels:"
    " when levels >= 1 each list element of `nested` is replaced by its elements, when levels >= 2 the same happens"
    " to the lists inside those, and so on; lists nested deeper stay as they are. levels = 0 returns an unchanged"
    " copy. Keep the left-to-right order.",
    "Given a nested list and a non-negative integer levels, return the list flattened `levels` times, like"
    " JavaScript's Array.flat(levels): with levels = 1, [1, [2, [3]]] becomes [1, 2, [3]]; with levels = 2 it"
    " becomes [1, 2, 3]. Empty inner lists that get flattened disappear.",
    examples=[([1, [2, [3, [4]]], 5], 1), ([1, [2, [3, [4]]], 5], 5)],
    tests=[([], 3), ([[1], 2], 0), ([[[[1]]], 2], 2), ([1, [2, 3], [4, [5, [6, 7]]], 8], 2),
           ([[0, [-1]], [], [2, 2]], 1), ([["a", ["b"]], "c", [[]]], 9)],
)
def flatten_levels(nested: list, levels: int) -> list:
    out = []
    for item in nested:
        if isinstance(item, list) and levels > 0:
            out.extend(flatten_levels(item, levels - 1))
        else:
            out.append(item)
    return out


@FAMILY.problem(
    "Return the nesting depth of the list `nested`: a list that contains no lists (including the empty list) has"
    " depth 1, and otherwise the depth is 1 plus the largest depth among the lists it contains.",
    "Given a list nested whose elements may themselves be lists, compute how deeply it is nested. [] and [1, 2]"
    " have depth 1, [[]] has depth 2, and in general each level of brackets adds one, taking the deepest branch.",
    examples=[([1, [2, [3]]],), ([],)],
    tests=[([5, 6],), ([[]],), ([[[[]]]],), ([[1], [2, [3, [4]]], [5]],), ([[], [[]], 1],), ([[[1], 2], [[[3]]]],)],
)
def nesting_depth(nested: list) -> int:
    return 1 + max((nesting_depth(x) for x in nested if isinstance(x, list)), default=0)


@FAMILY.problem(
    "`tree` is a dictionary with string keys whose values are either dictionaries of the same kind or other values"
    " (leaves). Return the dotted path of every leaf, e.g. 'a.b.c' for tree['a']['b']['c'], sorted alphabetically."
    " An empty inner dictionary has no leaves and contributes nothing.",
    "Given a nested settings dict tree, list the full keys of all non-dict values by joining the keys on the way"
    " down with '.', and return them in sorted (alphabetical) order. {} gives [].",
    examples=[({"db": {"host": "x", "port": 1}, "debug": True},), ({"a": {}},)],
    tests=[({},), ({"z": 1, "a": 2},), ({"a": {"b": {"c": {"d": 0}}}},), ({"b": {"y": 1, "x": {}}, "a": {"z": [1]}},),
           ({"m": {"n": 1, "o": {"p": 2, "q": 3}}, "m2": 4},)],
)
def leaf_paths(tree: dict) -> list[str]:
    paths = []
    for key, value in tree.items():
        if isinstance(value, dict):
            paths.extend(key + "." + sub for sub in leaf_paths(value))
        else:
            paths.append(key)
    return sorted(paths)


@FAMILY.problem(
    "A king walks on a grid from the top-left cell (0, 0) to the bottom-right cell (rows-1, cols-1), and each move"
    " goes one cell right, one cell down, or one cell diagonally down-right. Return the number of different"
    " routes. A 1 x 1 grid has exactly 1 route (staying put); rows and cols are at least 1.",
    "Given grid dimensions rows and cols (both >= 1), count the paths from the top-left to the bottom-right corner"
    " using only the steps right, down and down-right diagonal. Solve it recursively: the number of routes to a"
    " cell is the sum of the routes to the cell above, to the left and diagonally up-left.",
    examples=[(2, 2), (3, 3)],
    tests=[(1, 1), (1, 5), (4, 1), (2, 3), (3, 4), (5, 5)],
)
def king_routes(rows: int, cols: int) -> int:
    from functools import cache

    @cache
    def count(r: int, c: int) -> int:
        if r == 0 or c == 0:
            return 1
        return count(r - 1, c) + count(r, c - 1) + count(r - 1, c - 1)

    return count(rows - 1, cols - 1)


@FAMILY.problem(
    "Return every subset of `items` as a list of lists. Order them by size (the empty subset first), and subsets of"
    " the same size by the positions of their elements in `items` (compare the position lists lexicographically)."
    " Inside each subset keep the elements in their original order.",
    "Given a list items (its elements are distinct), generate all 2**len(items) sub-lists: first the empty one,"
    " then all of size 1, size 2, and so on. Within one size, the sub-lists appear in the order itertools'"
    " combinations would produce them, i.e. by the indices picked, smallest first; elements stay in the order of"
    " items.",
    examples=[([1, 2, 3],), ([],)],
    tests=[([5],), ([3, 1],), ([4, 3, 2, 1],), (["a", "b", "c"],), ([0, -1, 7],)],
)
def subsets_by_size(items: list) -> list[list]:
    def choose(start: int, k: int) -> list[list]:
        if k == 0:
            return [[]]
        return [[items[i]] + rest for i in range(start, len(items)) for rest in choose(i + 1, k - 1)]

    return [s for k in range(len(items) + 1) for s in choose(0, k)]


@FAMILY.problem(
    "`candidates` holds distinct positive integers. Return every combination of them (each number used at most"
    " once) that adds up to `target`. Each combination is an ascending list, and the list of combinations is sorted"
    " lexicographically. A target of 0 has one combination, the empty list; if nothing works return [].",
    "Given distinct positive numbers candidates and a target, find all ways to pick some of the numbers, without"
    " reuse, whose sum is exactly target. Write each choice in increasing order and return all choices in"
    " lexicographic order (so [1, 2, 5] comes before [1, 3, 4] and [1, 7]).",
    examples=[([2, 3, 5, 1, 4], 6), ([4, 6], 5)],
    tests=[([], 0), ([1], 0), ([3], 3), ([8, 1, 2, 7, 5, 6], 8), ([10, 20, 30], 25), ([5, 4, 3, 2, 1], 10)],
)
def sum_combinations(candidates: list[int], target: int) -> list[list[int]]:
    nums = sorted(candidates)
    found = []

    def search(start: int, remaining: int, chosen: list[int]) -> None:
        if remaining == 0:
            found.append(chosen)
            return
        for i in range(start, len(nums)):
            if nums[i] > remaining:
                break
            search(i + 1, remaining - nums[i], chosen + [nums[i]])

    search(0, target, [])
    return found


@FAMILY.problem(
    "Return all the distinct strings that can be made by rearranging all the letters of `word`, sorted"
    " alphabetically. Repeated letters must not produce duplicate strings; the empty word gives [''].",
    "Given a string word, list its distinct permutations in sorted order. For 'aab' that is ['aab', 'aba', 'baa']"
    " (each arrangement once, even though two letters are equal).",
    examples=[("abc",), ("aab",)],
    tests=[("",), ("z",), ("aa",), ("ba",), ("abca",), ("bbaa",), ("dcba",)],
)
def distinct_permutations(word: str) -> list[str]:
    if len(word) <= 1:
        return [word]
    result = set()
    for i, ch in enumerate(word):
        for rest in distinct_permutations(word[:i] + word[i + 1:]):
            result.add(ch + rest)
    return sorted(result)


@FAMILY.problem(
    "Return all binary strings of length `n` that never contain two '1' characters next to each other, in"
    " increasing order (as binary numbers, which here is the same as alphabetical order). For n = 0 return [''].",
    "A row of n seats must be filled so that no two occupied seats ('1') are adjacent; empty seats are '0'. Given"
    " n, generate every valid row as a string of '0'/'1' and return them sorted ascending ('00' before '01').",
    examples=[(2,), (3,)],
    tests=[(0,), (1,), (4,), (5,)],
)
def no_adjacent_ones(n: int) -> list[str]:
    if n == 0:
        return [""]
    if n == 1:
        return ["0", "1"]
    return ["0" + s for s in no_adjacent_ones(n - 1)] + ["10" + s for s in no_adjacent_ones(n - 2)]


@FAMILY.problem(
    "Solve the Tower of Hanoi: move `n` disks from peg `source` to peg `target` using peg `spare`, never putting a"
    " larger disk on a smaller one, in the minimum number of moves. Return the moves as a list of (from_peg,"
    " to_peg) tuples. For n = 0 return [].",
    "Given n disks stacked on source, return the shortest list of moves (pairs of peg names (from, to)) that"
    " transfers the whole stack to target with the help of spare, moving one top disk at a time and never placing"
    " a disk on a smaller one. Recursively: move n-1 disks out of the way onto spare, move the largest, then move"
    " the n-1 disks onto it.",
    examples=[(2, "A", "C", "B"), (1, "L", "R", "M")],
    tests=[(0, "A", "C", "B"), (1, "x", "y", "z"), (3, "A", "C", "B"), (3, "A", "B", "C"), (4, "1", "3", "2")],
)
def hanoi_moves(n: int, source: str, target: str, spare: str) -> list[tuple[str, str]]:
    if n == 0:
        return []
    return hanoi_moves(n - 1, source, spare, target) + [(source, target)] + hanoi_moves(n - 1, spare, target, source)


@FAMILY.problem(
    "Expand the brace groups in `pattern`. A group such as '{a,bc}' lists alternatives separated by commas; groups"
    " are never nested. Return every string obtained by choosing one alternative per group, in the order you get"
    " by taking alternatives as written, with the earliest group changing slowest. A pattern without groups gives"
    " [pattern].",
    "Given a pattern like 'img{1,2}.{png,jpg}', produce all the names it describes: each {x,y,...} group (no"
    " nesting) is replaced by one of its options. List the results so that the first group varies slowest and the"
    " options keep their written order (not sorted): 'img1.png', 'img1.jpg', 'img2.png', 'img2.jpg'.",
    examples=[("a{b,c}d",), ("img{1,2}.{png,jpg}",)],
    tests=[("plain",), ("",), ("{z,y,x}",), ("{a,b}{c,d}{e,f}",), ("x{1}y{,2}",), ("pre-{b,a}-{10,9}-post",)],
)
def brace_expand(pattern: str) -> list[str]:
    start = pattern.find("{")
    if start == -1:
        return [pattern]
    end = pattern.index("}", start)
    rest = brace_expand(pattern[end + 1:])
    return [pattern[:start] + option + tail for option in pattern[start + 1:end].split(",") for tail in rest]


@FAMILY.problem(
    "`data` is a JSON-like value built from dictionaries, lists and plain values. Return how many times the string"
    " `key` is used as a dictionary key anywhere inside it, at any depth (inside lists too).",
    "Given a nested structure data (dicts, lists, numbers, strings) and a key name, count the dictionaries anywhere"
    " in data that contain key; keep searching inside the values of matching keys as well. Strings that merely"
    " equal key as values do not count.",
    examples=[({"id": 1, "items": [{"id": 2}, {"name": "id"}]}, "id"), ([], "x")],
    tests=[({"x": 1}, "y"), ({"x": {"x": {"x": 0}}}, "x"), ([[{"a": 1}], {"b": [{"a": 2, "c": {"a": 3}}]}], "a"),
           ("a", "a"), ({"k": ["k", {"k": None}], "j": {"k": [1, {"K": 2}]}}, "k")],
)
def count_key(data: object, key: str) -> int:
    if isinstance(data, dict):
        return (key in data) + sum(count_key(v, key) for v in data.values())
    if isinstance(data, list):
        return sum(count_key(v, key) for v in data)
    return 0


@FAMILY.problem(
    "Return a copy of the nested list `nested` (integers and lists, any depth) in which every integer equal to"
    " `old` is replaced by `new`, keeping the same nesting structure. Do not modify `nested` itself.",
    "Given nested, a list that may contain integers and further lists, build a new list with the same shape where"
    " each occurrence of old (at any depth) becomes new and every other number is unchanged.",
    examples=[([1, [2, 1], [[1]]], 1, 9), ([], 3, 4)],
    tests=[([5], 5, 0), ([5], 6, 0), ([[], [[]]], 1, 2), ([[0, [0, [1, 0]]], 0], 0, -1), ([2, [3, [2, [3]]]], 3, 3),
           ([[-1, 1], [[-1]]], -1, 1)],
)
def replace_nested(nested: list, old: int, new: int) -> list:
    return [replace_nested(x, old, new) if isinstance(x, list) else (new if x == old else x) for x in nested]


@FAMILY.problem(
    "Write the nested list `nested` (integers and lists, any depth) as an S-expression string: a list becomes its"
    " elements' texts separated by single spaces and wrapped in parentheses, an integer becomes its decimal text."
    " For example [1, [2, 3], []] becomes '(1 (2 3) ())'.",
    "Given a list nested of integers and inner lists, render it Lisp-style: '(' + the items joined by one space +"
    " ')', applying the same rule recursively to inner lists. The empty list is '()'.",
    examples=[([1, [2, 3], []],), ([],)],
    tests=[([7],), ([[[]]],), ([-1, [0, [5, -6]], 8],), ([[], []],), ([[1, 2], [3, [4, [5]]]],)],
)
def to_sexpr(nested: list) -> str:
    return "(" + " ".join(to_sexpr(x) if isinstance(x, list) else str(x) for x in nested) + ")"


@FAMILY.problem(
    "Return the number of ways to write the positive integer `n` as a sum of positive integers that are each at"
    " most `largest`, where the order of the parts does not matter (4 = 2 + 1 + 1 = 1 + 2 + 1 counts once). If"
    " `largest` is 0 there are no ways.",
    "Given n >= 1 and a cap largest, count the partitions of n into parts no bigger than largest. For n = 5 and"
    " largest = 2 the partitions are 2+2+1, 2+1+1+1 and 1+1+1+1+1, so the answer is 3. Recurse on whether the"
    " largest allowed part is used.",
    examples=[(5, 2), (4, 4)],
    tests=[(1, 1), (3, 0), (6, 3), (7, 10), (10, 4), (12, 1), (8, 8)],
)
def partitions_capped(n: int, largest: int) -> int:
    def count(total: int, cap: int) -> int:
        if total == 0:
            return 1
        if cap == 0:
            return 0
        if cap > total:
            return count(total, total)
        return count(total - cap, cap) + count(total, cap - 1)

    return count(n, largest)


@FAMILY.problem(
    "Return the list n, n // 2, n // 4, ... that keeps halving `n` (rounding down) and stops at 1. For n <= 0"
    " return [].",
    "Starting from n, write down n and repeat with n // 2 until you have written 1; return the numbers as a list."
    " A zero or negative n gives an empty list.",
    examples=[(10,), (0,)],
    tests=[(1,), (2,), (7,), (64,), (-5,), (100,)],
    level=1,
)
def halving_sequence(n: int) -> list[int]:
    return [] if n <= 0 else [n] + halving_sequence(n // 2)


@FAMILY.problem(
    "Return the ruler string of order `n`: order 0 (or less) is '', and order n is the order n-1 string, then"
    " str(n), then the order n-1 string again. So order 3 is '1213121'.",
    "Build a ruler pattern recursively: ruler_string(n) = ruler_string(n - 1) + str(n) + ruler_string(n - 1), with"
    " ruler_string(0) == ''. Negative n also gives ''.",
    examples=[(2,), (3,)],
    tests=[(0,), (1,), (-2,), (4,), (5,)],
    level=1,
)
def ruler_string(n: int) -> str:
    return "" if n < 1 else ruler_string(n - 1) + str(n) + ruler_string(n - 1)


@FAMILY.problem(
    "Return how many lists are nested inside `nested`, at any depth (the outer list itself does not count)."
    " [1, [2, [3]], []] contains 3 lists.",
    "Given a list nested whose items may be numbers or further lists, count every inner list, including lists"
    " inside inner lists and empty ones. A list with no inner lists gives 0.",
    examples=[([1, [2, [3]], []],), ([1, 2],)],
    tests=[([],), ([[]],), ([[[[]]]],), ([[1], [2], 3],), ([[1, [2, [3, [4]]]], [[5]]],)],
    level=1,
)
def count_lists(nested: list) -> int:
    return sum(1 + count_lists(x) for x in nested if isinstance(x, list))


@FAMILY.problem(
    "Return the countdown from `n` as one string: the numbers n, n-1, ..., 1 separated by spaces, followed by"
    " ' liftoff'. For n <= 0 return just 'liftoff'.",
    "Recursively build a rocket countdown: countdown_words(3) is '3 2 1 liftoff'. When n is zero or negative"
    " the result is 'liftoff' alone.",
    examples=[(3,), (0,)],
    tests=[(1,), (2,), (-4,), (5,), (10,)],
    level=1,
)
def countdown_words(n: int) -> str:
    return "liftoff" if n <= 0 else str(n) + " " + countdown_words(n - 1)


@FAMILY.problem(
    "Return `value` wrapped inside `n` lists: wrap_depth(5, 2) is [[5]]. For n <= 0 return value unchanged.",
    "Put value in a list, put that list in another list, and so on, n times in total, then return the result."
    " With n zero or negative nothing is wrapped.",
    examples=[(5, 2), (4, 0)],
    tests=[(7, 1), (0, 3), (9, -1), (-2, 4), (1, 5)],
    level=1,
)
def wrap_depth(value: int, n: int) -> int | list:
    return value if n <= 0 else [wrap_depth(value, n - 1)]


@FAMILY.problem(
    "Return `s` followed by `s` reversed, built recursively: the first character, then the mirror of the rest,"
    " then the first character again. 'abc' gives 'abccba' and '' gives ''.",
    "Mirror a string: mirror_string(s) is s[0] + mirror_string(s[1:]) + s[0], and the empty string mirrors to the"
    " empty string. So 'ab' becomes 'abba'.",
    examples=[("abc",), ("",)],
    tests=[("x",), ("ab",), ("aab",), ("Hi!",), ("1 2",)],
    level=1,
)
def mirror_string(s: str) -> str:
    return "" if not s else s[0] + mirror_string(s[1:]) + s[0]
