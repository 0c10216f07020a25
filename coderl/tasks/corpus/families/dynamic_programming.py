from coderl.tasks.corpus.define import Family

FAMILY = Family("dynamic_programming", "small dynamic programs: coins, stairs, subsequences, edit costs, grid paths")


@FAMILY.problem(
    "Return the number of different ways to pay exactly `amount` using coins whose values are in `coins` (distinct"
    " positive values, each usable any number of times). The order of the coins does not matter, so 1+2 and 2+1"
    " are the same way. Paying 0 has exactly one way (no coins).",
    "A cashier has unlimited coins of each value in coins. Given amount, count the distinct multisets of coins"
    " that add up to it exactly (order ignored). If it cannot be paid the answer is 0; an amount of 0 gives 1.",
    examples=[(5, [1, 2, 5]), (3, [2])],
    tests=[(0, [3]), (7, []), (4, [1]), (10, [2, 5, 3, 6]), (11, [5, 10]), (12, [1, 2, 3])],
)
def change_ways(amount: int, coins: list[int]) -> int:
    ways = [1] + [0] * amount
    for c in coins:
        for a in range(c, amount + 1):
            ways[a] += ways[a - c]
    return ways[amount]


@FAMILY.problem(
    "A parcel needs postage worth exactly `amount` cents. Stamps come in the values listed in `stamps` (unlimited"
    " supply), but at most `max_stamps` stamps fit on the parcel. Return the smallest number of stamps that makes"
    " exactly `amount`, or -1 if it cannot be done with at most `max_stamps` stamps. An amount of 0 needs 0 stamps.",
    "Given a target amount, the available stamp values stamps and the space limit max_stamps, compute the fewest"
    " stamps whose values sum to exactly amount. If the fewest possible is more than max_stamps, or the amount is"
    " unreachable, return -1.",
    examples=[(11, [1, 5, 6], 3), (7, [2, 4], 10)],
    tests=[(0, [3], 0), (6, [1, 3, 4], 2), (6, [1, 3, 4], 1), (13, [5, 4], 3), (10, [1], 9), (10, [1], 10),
           (17, [9, 6, 5, 1], 3), (9, [4, 6], 20), (14, [6, 4], 30), (3, [5], 10)],
)
def fewest_stamps(amount: int, stamps: list[int], max_stamps: int) -> int:
    best = [0] + [-1] * amount
    for a in range(1, amount + 1):
        options = [best[a - s] for s in stamps if s <= a and best[a - s] >= 0]
        if options:
            best[a] = min(options) + 1
    return best[amount] if best[amount] <= max_stamps else -1


@FAMILY.problem(
    "A staircase has `n` steps above the floor. In one move you may climb any number of steps listed in `steps`,"
    " but you must never land on a step whose number is in `broken` (steps are numbered 1 to n). Return the number"
    " of different ordered move sequences that end exactly on step n. For n = 0 the answer is 1; if step n itself"
    " is broken it is 0.",
    "Given the height n, the allowed jump sizes steps (distinct positive integers) and a list broken of step"
    " numbers that cannot be stood on, count the sequences of jumps from the floor (step 0) to the top step n"
    " without ever landing on a broken step. Different orders of the same jumps count separately; n = 0 counts as"
    " 1 way (no jumps).",
    examples=[(4, [1, 2], []), (4, [1, 2], [2])],
    tests=[(0, [1], []), (3, [2], []), (5, [1, 2, 3], []), (5, [1, 3], [3]), (6, [1, 2], [6]), (7, [2, 3], [1, 4]),
           (6, [1, 2, 3], [1, 5])],
)
def stair_ways(n: int, steps: list[int], broken: list[int]) -> int:
    ways = [1] + [0] * n
    for i in range(1, n + 1):
        if i not in broken:
            ways[i] = sum(ways[i - s] for s in steps if s <= i)
    return ways[n]


@FAMILY.problem(
    "Return the length of the longest non-decreasing subsequence of `nums`: the most elements you can keep, in"
    " their original order, so that each kept element is greater than or equal to the one kept before it. An"
    " empty list gives 0.",
    "A climber records altitudes in nums and wants the longest sub-sequence (not necessarily contiguous) that"
    " never goes down; staying level is allowed. Given nums, compute the length of that sub-sequence.",
    examples=[([3, 1, 2, 2, 5, 4],), ([5, 4, 3],)],
    tests=[([],), ([7],), ([2, 2, 2],), ([1, 3, 2, 3, 1, 4],), ([10, 9, 2, 5, 3, 7, 101, 18],),
           ([-1, -3, -2, 0, -2, 4, 4],)],
)
def longest_non_decreasing(nums: list[int]) -> int:
    best = []
    for i, x in enumerate(nums):
        best.append(1 + max((best[j] for j in range(i) if nums[j] <= x), default=0))
    return max(best, default=0)


@FAMILY.problem(
    "Return the cheapest cost of turning string `a` into string `b`, where inserting one character costs 1,"
    " deleting one character costs 1 and replacing one character by another costs `replace_cost`.",
    "Given two short strings a and b and the price replace_cost of a substitution, compute the minimum total price"
    " of an edit script from a to b. Insertions and deletions cost 1 each; characters are compared case-sensitively."
    " (With replace_cost = 2 a replacement is never better than a delete plus an insert.)",
    examples=[("kitten", "sitting", 1), ("kitten", "sitting", 2)],
    tests=[("", "", 3), ("", "abc", 1), ("abc", "", 5), ("abc", "abc", 1), ("abc", "xyz", 1), ("abc", "xyz", 3),
           ("Flaw", "lawn", 1), ("intention", "execution", 2), ("abcd", "ad", 3)],
)
def edit_cost(a: str, b: str, replace_cost: int) -> int:
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1]
            else:
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + replace_cost)
        prev = cur
    return prev[len(b)]


@FAMILY.problem(
    "Pick some elements of `values` so that no two picked elements are next to each other in the list, and return"
    " the largest possible sum of the picked elements. Picking nothing is allowed (sum 0), so the answer is never"
    " negative; values may be negative.",
    "Houses along a street hold the amounts in values (possibly negative). A collector may visit any set of"
    " houses as long as no two visited houses are adjacent. Given values, compute the best total collected; with"
    " no worthwhile houses (or none at all) the total is 0.",
    examples=[([2, 7, 9, 3, 1],), ([-4, -1],)],
    tests=[([],), ([5],), ([5, 6],), ([4, 1, 1, 4],), ([3, -2, 5, -1, 7],), ([1, 2, 3, 1, 5, 0, 2],),
           ([-1, 10, -1, -1, 10],)],
)
def max_non_adjacent_sum(values: list[int]) -> int:
    take, skip = 0, 0
    for v in values:
        take, skip = skip + v, max(take, skip)
    return max(take, skip)


@FAMILY.problem(
    "`grid` is a non-empty list of equal-length strings where '.' is an open cell and '#' a wall. Return the number"
    " of paths from the top-left cell to the bottom-right cell that move only right or down and never enter a"
    " wall. If either corner is a wall the answer is 0.",
    "A robot in a warehouse map grid ('.' free, '#' blocked) starts at the top-left corner and must reach the"
    " bottom-right one, stepping only one cell right or one cell down each time. Given grid, count its possible"
    " routes through free cells only. A 1 x 1 free grid has one route.",
    examples=[(["...", ".#.", "..."],), (["..", "#."],)],
    tests=[(["."],), (["#"],), (["...."],), ([".#", ".."],), (["..", ".#"],), (["....", ".#..", "...#", "#..."],),
           (["..", "#.", ".."],), ([".#.", "..."],)],
)
def blocked_grid_paths(grid: list[str]) -> int:
    rows, cols = len(grid), len(grid[0])
    ways = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "#":
                continue
            if r == 0 and c == 0:
                ways[r][c] = 1
            else:
                ways[r][c] = (ways[r - 1][c] if r > 0 else 0) + (ways[r][c - 1] if c > 0 else 0)
    return ways[rows - 1][cols - 1]


@FAMILY.problem(
    "`costs` is a non-empty rectangular grid of integers. Starting on the top-left cell and ending on the"
    " bottom-right cell, you may move one cell right, one cell down, or one cell diagonally down-right. Return the"
    " smallest possible sum of the costs of all cells on the route, both ends included.",
    "Given a cost map costs (a list of equal-length rows), find the cheapest route from the top-left to the"
    " bottom-right corner when each step goes right, down or down-right, where a route's price is the total of"
    " every cell it touches including the first and last.",
    examples=[([[1, 3, 1], [1, 5, 1], [4, 2, 1]],), ([[5]],)],
    tests=[([[1, 2, 3]],), ([[1], [2], [3]],), ([[1, 9], [9, 1]],), ([[3, 1, 1], [9, 9, 1], [1, 1, 1]],),
           ([[2, -1, 4], [0, 6, -3], [1, 1, 2]],), ([[1, 1, 1], [9, 9, 1]],), ([[0, -1], [-5, 0]],)],
)
def cheapest_route(costs: list[list[int]]) -> int:
    rows, cols = len(costs), len(costs[0])
    best = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            options = []
            if r > 0:
                options.append(best[r - 1][c])
            if c > 0:
                options.append(best[r][c - 1])
            if r > 0 and c > 0:
                options.append(best[r - 1][c - 1])
            best[r][c] = costs[r][c] + min(options, default=0)
    return best[rows - 1][cols - 1]


@FAMILY.problem(
    "A diff tool compares the lines of an old and a new version of a file. Return the largest number of lines"
    " that can be kept unchanged: the length of the longest sequence of lines that appears, in the same order"
    " (not necessarily contiguously), in both `old` and `new`. Lines are compared exactly.",
    "Given two lists of strings old and new, compute the length of their longest common subsequence, i.e. the"
    " most lines you can match up between the two lists without crossing (the i-th matched line of old comes"
    " before the (i+1)-th in both lists). Either list may be empty.",
    examples=[(["a", "b", "c", "d"], ["a", "c", "d", "e"]), (["x"], ["y"])],
    tests=[([], ["a"]), (["a", "a"], ["a"]), (["a", "b", "c"], ["c", "b", "a"]), (["A", "b"], ["a", "b"]),
           (["p", "q", "r", "p", "q"], ["q", "p", "r", "q", "p"]), (["1", "2", "3", "4"], ["1", "3", "2", "4"])],
)
def unchanged_lines(old: list[str], new: list[str]) -> int:
    prev = [0] * (len(new) + 1)
    for line in old:
        cur = [0]
        for j, other in enumerate(new):
            cur.append(prev[j] + 1 if line == other else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[len(new)]


@FAMILY.problem(
    "Item i has weight `weights[i]` and value `values[i]`. Choose a set of items, each at most once, whose total"
    " weight is at most `capacity`, and return the largest total value possible (0 if nothing fits).",
    "A hiker can carry capacity kilograms. Given the weights and values of the available items (parallel lists),"
    " compute the best total value of a selection of distinct items whose weights sum to no more than capacity"
    " (0 when nothing fits).",
    examples=[([1, 3, 4, 5], [1, 4, 5, 7], 7), ([5], [10], 4)],
    tests=[([], [], 10), ([2], [3], 2), ([2, 2, 2], [1, 2, 3], 4), ([4, 3, 2], [10, 4, 4], 5),
           ([1, 1, 1], [5, 5, 5], 0), ([3, 4, 5, 9, 4], [3, 4, 4, 10, 4], 11)],
)
def knapsack_best(weights: list[int], values: list[int], capacity: int) -> int:
    best = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for cap in range(capacity, w - 1, -1):
            best[cap] = max(best[cap], best[cap - w] + v)
    return best[capacity]


@FAMILY.problem(
    "`profits` lists a shop's profit (possibly negative) for consecutive days. Return the largest total profit of"
    " any run of consecutive days; an empty run is allowed, so if every day loses money (or the list is empty) the"
    " answer is 0.",
    "Given daily results profits, find the best sum over a contiguous stretch of days. Choosing no days at all is"
    " permitted and is worth 0, so the result is never negative.",
    examples=[([2, -5, 3, 4, -1, 2],), ([-3, -1],)],
    tests=[([],), ([4],), ([-2, 5],), ([1, -1, 1, -1, 1],), ([5, -2, 5, -20, 7],), ([-1, 3, -1, 3, -10, 2, 2],)],
)
def best_streak(profits: list[int]) -> int:
    best = current = 0
    for p in profits:
        current = max(0, current + p)
        best = max(best, current)
    return best


@FAMILY.problem(
    "Return the number of ways to split the string `text` into consecutive pieces so that every piece is one of"
    " the strings in `words` (a word may be used many times). The empty text has exactly one split (no pieces).",
    "Given a string text with no spaces and a vocabulary words, count the different segmentations of text into"
    " vocabulary words. For 'catsdog' with words ['cat', 'cats', 'sdog', 'dog'] there are 2: 'cat|sdog' and"
    " 'cats|dog'. If text cannot be segmented the count is 0.",
    examples=[("catsdog", ["cat", "cats", "sdog", "dog"]), ("abc", ["ab"])],
    tests=[("", ["a"]), ("a", []), ("aaaa", ["a", "aa"]), ("penpineapple", ["pen", "pine", "apple", "pineapple"]),
           ("abab", ["ab", "a", "b", "ba"]), ("xyz", ["x", "yz", "xy", "z", "xyz"])],
)
def segmentations(text: str, words: list[str]) -> int:
    ways = [1] + [0] * len(text)
    for end in range(1, len(text) + 1):
        ways[end] = sum(ways[end - len(w)] for w in words if w and text[:end].endswith(w))
    return ways[len(text)]


@FAMILY.problem(
    "A frog sits on the first of a row of stones with heights `heights` and wants to reach the last stone. From"
    " stone i it can jump to any stone i+1 .. i+`max_jump`, paying the absolute height difference between the two"
    " stones. Return the minimum total cost (0 if there is only one stone).",
    "Given the stone heights (a non-empty list) and the longest allowed jump max_jump (>= 1), compute the cheapest"
    " way for a frog to travel from index 0 to the last index, where a jump from i to j (0 < j - i <= max_jump)"
    " costs abs(heights[j] - heights[i]).",
    examples=[([10, 30, 40, 20], 1), ([10, 30, 40, 20], 2)],
    tests=[([5], 3), ([1, 100], 1), ([10, 20, 10], 1), ([10, 20, 10], 2), ([40, 10, 20, 70, 80, 10, 20, 70, 80, 60], 4),
           ([3, 9, 2, 8, 1, 7], 2)],
)
def frog_cost(heights: list[int], max_jump: int) -> int:
    cost = [0] * len(heights)
    for j in range(1, len(heights)):
        cost[j] = min(cost[i] + abs(heights[j] - heights[i]) for i in range(max(0, j - max_jump), j))
    return cost[-1]


@FAMILY.problem(
    "Return the length of the longest string that appears as a contiguous substring of both `a` and `b`"
    " (case-sensitive). If they share no character the answer is 0.",
    "Given two strings a and b, compute how long their longest common block of consecutive characters is. For"
    " 'abcdef' and 'zcdemf' it is 3 ('cde'). Letters are compared exactly, so 'A' and 'a' differ.",
    examples=[("abcdef", "zcdemf"), ("abc", "xyz")],
    tests=[("", "abc"), ("a", "a"), ("Abc", "abc"), ("aaaa", "aa"), ("xabxabcx", "zabcab"), ("banana", "ananas")],
)
def longest_common_block(a: str, b: str) -> int:
    best = 0
    prev = [0] * (len(b) + 1)
    for ch in a:
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if ch == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


@FAMILY.problem(
    "Split the items with weights `weights` into two groups (every item goes to exactly one group; a group may be"
    " empty) so that the group totals are as close as possible. Return the smallest possible absolute difference"
    " between the two totals.",
    "Two movers share a pile of boxes with the given weights. Given weights (non-negative integers), compute the"
    " minimum possible absolute difference between the total weight carried by the first and by the second mover"
    " when all boxes are shared out. No boxes gives 0.",
    examples=[([1, 6, 11, 5],), ([3, 3],)],
    tests=[([],), ([7],), ([2, 2, 3],), ([10, 1, 1, 1],), ([8, 6, 5, 4, 3],), ([0, 4, 9, 2],)],
)
def min_split_difference(weights: list[int]) -> int:
    total = sum(weights)
    reachable = {0}
    for w in weights:
        reachable |= {s + w for s in reachable}
    return min(abs(total - 2 * s) for s in reachable)


@FAMILY.problem(
    "`land` is a map given as equal-length strings where '.' is free ground and '#' is a tree. Return the area"
    " (side length squared) of the largest square made only of free cells, with sides parallel to the map. If"
    " there is no free cell (or the map is empty) return 0.",
    "Given a plot map land of '.' (free) and '#' (tree) rows, find the biggest axis-aligned square of free cells"
    " and return its area. A single free cell is a square of area 1.",
    examples=[(["..#.", "...#", "...."],), (["##", "##"],)],
    tests=[([],), (["."],), (["...."],), (["..", ".."],), (["#.", ".."],), ([".#..", "....", "....", "#..."],),
           (["#....", ".....", "...#.", ".....", "....#"],)],
)
def largest_free_square(land: list[str]) -> int:
    best = 0
    prev = []
    for row in land:
        cur = []
        for c, ch in enumerate(row):
            if ch == "#":
                cur.append(0)
            elif c == 0 or not prev:
                cur.append(1)
            else:
                cur.append(1 + min(prev[c], prev[c - 1], cur[c - 1]))
            best = max(best, cur[c])
        prev = cur
    return best * best


@FAMILY.problem(
    "A rod of length `length` can be cut into integer-length pieces. A piece of length k sells for `prices[k-1]`,"
    " and pieces longer than len(prices) cannot be sold, so they are not allowed. Return the maximum total price"
    " obtainable by cutting the rod (a rod of length 0 is worth 0).",
    "Given a non-empty price table prices (prices[0] is the price of a piece of length 1, prices[1] of length 2,"
    " ...) and a rod length, choose how to cut the whole rod into pieces whose lengths appear in the table so the"
    " sum of the piece prices is as large as possible, and return that sum.",
    examples=[([1, 5, 8, 9], 4), ([2], 3)],
    tests=[([3], 0), ([1, 5, 8, 9, 10, 17, 17, 20], 8), ([3, 5, 8, 9], 4), ([1, 1, 10], 5), ([2, 5], 7),
           ([0, 0, 0, 20], 6)],
)
def rod_value(prices: list[int], length: int) -> int:
    best = [0] * (length + 1)
    for n in range(1, length + 1):
        best[n] = max(best[n - k] + prices[k - 1] for k in range(1, min(n, len(prices)) + 1))
    return best[length]


@FAMILY.problem(
    "A staircase has `n` steps and each move climbs either 1 step or `big` steps (big >= 2). Return the number of"
    " ordered move sequences that reach exactly step n; n = 0 gives 1.",
    "Count the ways to climb n stairs when a single move is 1 stair or big stairs at once (big is at least 2)."
    " Different orders count separately, and climbing 0 stairs has exactly one way.",
    examples=[(4, 3), (0, 2)],
    tests=[(1, 2), (2, 2), (5, 2), (6, 3), (2, 5), (10, 4)],
    level=1,
)
def climb_ways(n: int, big: int) -> int:
    ways = [1]
    for i in range(1, n + 1):
        ways.append(ways[i - 1] + (ways[i - big] if i >= big else 0))
    return ways[n]


@FAMILY.problem(
    "`costs[i]` is the fee for standing on step i. You start below step 0, each move goes up 1 or 2 steps, and you"
    " finish above the last step. Return the smallest total fee; an empty list costs 0.",
    "Given the step fees costs, climb from the floor (before index 0) to the top (past the last index) moving 1 or"
    " 2 steps at a time, paying costs[i] for every step i you land on. Return the minimum you must pay.",
    examples=[([10, 15, 20],), ([],)],
    tests=[([5],), ([3, 4],), ([1, 100, 1, 1, 100, 1],), ([0, 0, 0],), ([7, 1, 7, 1, 7],), ([2, 9, 9, 2],)],
    level=1,
)
def cheapest_climb(costs: list[int]) -> int:
    a = b = 0
    for c in costs:
        a, b = b, min(a, b) + c
    return min(a, b)


@FAMILY.problem(
    "Return the n-th Pell number: P(0) = 0, P(1) = 1 and P(n) = 2 * P(n - 1) + P(n - 2). So P(4) is 12.",
    "Compute the sequence 0, 1, 2, 5, 12, 29, ... where each term is twice the previous term plus the one before"
    " it, and return the term at index n (n >= 0, index 0 is 0).",
    examples=[(4,), (0,)],
    tests=[(1,), (2,), (3,), (6,), (10,)],
    level=1,
)
def pell_number(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, 2 * b + a
    return a


@FAMILY.problem(
    "Starting from 1, each move either adds 1 or doubles the number. Return the fewest moves needed to reach"
    " exactly `n` (n >= 1); n = 1 needs 0 moves.",
    "Given a target n of at least 1, compute the minimum number of operations that turn 1 into n, where an"
    " operation is x -> x + 1 or x -> 2 * x. For example 10 needs 4 moves: 1, 2, 4, 5, 10.",
    examples=[(10,), (1,)],
    tests=[(2,), (3,), (7,), (16,), (15,), (100,)],
    level=1,
)
def fewest_ops_to_reach(n: int) -> int:
    best = [0, 0]
    for i in range(2, n + 1):
        best.append(best[i - 1] + 1 if i % 2 else min(best[i - 1], best[i // 2]) + 1)
    return best[n]


@FAMILY.problem(
    "`triangle` is a list of rows where row i has i + 1 numbers. Going from the top to the bottom row, each step"
    " moves to one of the two numbers just below (same index or index + 1). Return the smallest possible sum of a"
    " path; an empty triangle gives 0.",
    "Find the cheapest top-to-bottom path through a number triangle such as [[2], [3, 4], [6, 5, 7]]: from index"
    " i of a row you may go to index i or i + 1 of the next row, and the path's cost is the sum of its numbers."
    " Return that minimum (0 for []).",
    examples=[([[2], [3, 4], [6, 5, 7]],), ([],)],
    tests=[([[5]],), ([[1], [2, 3]],), ([[1], [9, 2], [1, 9, 9]],), ([[-1], [2, 3], [1, -1, -3]],),
           ([[3], [7, 4], [2, 4, 6], [8, 5, 9, 3]],)],
    level=1,
)
def triangle_min_path(triangle: list[list[int]]) -> int:
    best = [0] * (len(triangle) + 1)
    for row in reversed(triangle):
        best = [x + min(best[i], best[i + 1]) for i, x in enumerate(row)]
    return best[0]


@FAMILY.problem(
    "Return the number of paths from the top-left to the bottom-right cell of a `rows` x `cols` grid that move only"
    " right or down. If rows or cols is 0 or less the grid is empty and the answer is 0.",
    "Count the monotone routes across a rectangular grid of rows by cols cells, starting in the top-left cell,"
    " ending in the bottom-right cell and stepping one cell right or down each time. A 1 x 1 grid has one route.",
    examples=[(2, 3), (0, 4)],
    tests=[(1, 1), (1, 6), (3, 3), (4, 2), (3, -1), (5, 5)],
    level=1,
)
def grid_paths(rows: int, cols: int) -> int:
    from math import comb
    return comb(rows + cols - 2, rows - 1) if rows > 0 and cols > 0 else 0
