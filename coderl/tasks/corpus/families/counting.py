from coderl.tasks.corpus.define import Family

FAMILY = Family("counting", "frequencies, histograms, modes with tie rules, top-k with stable order")


@FAMILY.problem(
    "Return the most frequent word of `text`. Words are separated by whitespace, compared in lower"
    " case, and have the characters .,!? stripped from both ends; a word that becomes empty is"
    " ignored. On a tie, return the word whose first occurrence comes earliest. Return \"\" if"
    " there are no words.",
    "Find the word used most often in text. Split on whitespace, lower-case each word and strip"
    " the punctuation marks . , ! ? from its ends (dropping any word that ends up empty). If several"
    " words share the highest count, pick the one that appeared first. With no words at all, the"
    " answer is the empty string.",
    examples=[("The cat saw the dog. The dog ran!",)],
    tests=[("",), ("?! ...",), ("solo",), ("b a b a",), ("Yes, yes. NO no no! maybe",), ("x y z",), ("A b a B B",),
           ("one two two three three three",)],
)
def most_common_word(text: str) -> str:
    counts: dict[str, int] = {}
    for raw in text.split():
        word = raw.strip(".,!?").lower()
        if word:
            counts[word] = counts.get(word, 0) + 1
    if not counts:
        return ""
    best = max(counts.values())
    for word, count in counts.items():
        if count == best:
            return word
    return ""


@FAMILY.problem(
    "Return every value of `nums` that occurs the maximum number of times, sorted ascending. Return"
    " an empty list for an empty input.",
    "Given a list of integers, find all of its modes: the values whose count equals the highest"
    " count in the list. Give them in increasing order (a list with no elements has no modes).",
    examples=[([4, 1, 4, 1, 2],)],
    tests=[([],), ([0],), ([3, 2, 1],), ([5, 5, 5, 2, 2],), ([-3, 7, -3, 7, 0, 0, 1],), ([1, 2, 2, 3, 3, 3],)],
)
def all_modes(nums: list[int]) -> list[int]:
    if not nums:
        return []
    counts: dict[int, int] = {}
    for n in nums:
        counts[n] = counts.get(n, 0) + 1
    top = max(counts.values())
    return sorted(v for v, c in counts.items() if c == top)


@FAMILY.problem(
    "Return the `k` most frequent strings in `words`, most frequent first. Strings with equal"
    " counts keep the order of their first appearance in `words`. If there are fewer than `k`"
    " distinct strings, return them all.",
    "Search terms were logged in the list words. Report the top k terms by number of searches;"
    " when two terms were searched equally often, the one first seen earlier in the log ranks"
    " higher. Each term appears once in the answer, and all terms are returned when there are"
    " fewer than k different ones.",
    examples=[(["tea", "jam", "jam", "bun", "tea", "jam"], 2)],
    tests=[([], 2), (["a"], 0), (["a", "b", "c"], 2), (["z", "y", "y", "z", "x"], 3),
           (["p", "q", "q", "r", "r", "r", "s"], 2), (["m", "n", "n"], 5)],
)
def top_k_words(words: list[str], k: int) -> list[str]:
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts, key=lambda w: -counts[w])
    return ranked[:k]


@FAMILY.problem(
    "For every character of `s`, find the length of its longest run of consecutive repeats. Return"
    " a dictionary from each character to that length.",
    "Given the string s, return a dictionary that maps each character occurring in s to the"
    " longest number of times it appears back to back. For \"aabaaa\" the answer for 'a' is 3"
    " and for 'b' it is 1; an empty string gives an empty dictionary.",
    examples=[("xxyxxxz",)],
    tests=[("",), ("q",), ("abab",), ("aaaa",), ("bbaaabbbbcab",), ("  ..  ",)],
)
def longest_runs(s: str) -> dict[str, int]:
    best: dict[str, int] = {}
    previous = None
    run = 0
    for ch in s:
        run = run + 1 if ch == previous else 1
        previous = ch
        if run > best.get(ch, 0):
            best[ch] = run
    return best


@FAMILY.problem(
    "Put the integers `values` into buckets of size `width`: the bucket of v starts at the largest"
    " multiple of `width` that is not greater than v (so -1 with width 10 falls in the bucket"
    " starting at -10). Return a dictionary from bucket start to the number of values in it.",
    "Build a histogram of the integer list values with bins of the given positive width. A bin is"
    " named by its lower bound, a multiple of width, and holds the values from that bound up to"
    " but excluding bound + width (negative values count too). Return {bin start: count} for the"
    " bins that are not empty.",
    examples=[([3, 12, 17, 25, 19], 10)],
    tests=[([], 5), ([0], 5), ([5, 4], 5), ([-1, -10, -11, 0], 10), ([1, 2, 3, 4, 5, 6, 7], 3), ([14, 15, 29], 15)],
)
def bucket_counts(values: list[int], width: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    for v in values:
        start = v // width * width
        counts[start] = counts.get(start, 0) + 1
    return counts


@FAMILY.problem(
    "Draw a text bar chart of `counts` (label -> count): one line per label, in alphabetical order"
    " of labels, made of the label padded on the right with spaces to the length of the longest"
    " label, then \"|\", then one \"*\" per unit of count. Return the list of lines.",
    "Render the dictionary counts as a horizontal histogram. Sort the labels alphabetically; each"
    " line is the label left-justified to the width of the longest label, a vertical bar \"|\", and"
    " as many asterisks as the label's count (a count of 0 gives no asterisks). An empty"
    " dictionary gives an empty list.",
    examples=[({"cats": 3, "ox": 1, "bees": 0},)],
    tests=[({},), ({"a": 2},), ({"bb": 1, "a": 3},), ({"long": 2, "s": 4, "mid": 0},), ({"x": 0, "y": 5},)],
)
def star_histogram(counts: dict[str, int]) -> list[str]:
    width = max((len(label) for label in counts), default=0)
    return [label.ljust(width) + "|" + "*" * counts[label] for label in sorted(counts)]


@FAMILY.problem(
    "For each element of `nums`, count how many elements of `nums` are strictly greater than it."
    " Return these counts as a list in the same order.",
    "Given a list of exam scores nums, return for every score the number of scores in the list that"
    " beat it (are strictly higher). Equal scores do not count.",
    examples=[([3, 1, 4, 1],)],
    tests=[([],), ([5],), ([2, 2, 2],), ([-1, 0, 1],), ([10, 9, 10, 3, 9],)],
)
def count_greater(nums: list[int]) -> list[int]:
    return [sum(1 for y in nums if y > x) for x in nums]


@FAMILY.problem(
    "A ransom-style note must be glued together from letters cut out of `supply`. Ignoring case and"
    " every character that is not a letter, return a dictionary from each lower-case letter that"
    " `note` needs more of than `supply` provides to how many are missing. Return {} when the"
    " supply suffices.",
    "Compare letter counts of note and supply, case-insensitively and considering letters only."
    " For each letter that occurs more often in note than in supply, report the shortfall (note"
    " count minus supply count) under the lower-case letter; letters with no shortfall are left"
    " out.",
    examples=[("Meet at Noon", "a magazine about tomatoes")],
    tests=[("", "abc"), ("abc", ""), ("Aa", "a"), ("hello", "HELLO world"), ("x-y z!", "zz"),
           ("bbb ccc", "bcb")],
)
def letters_needed(note: str, supply: str) -> dict[str, int]:
    need: dict[str, int] = {}
    for ch in note.lower():
        if ch.isalpha():
            need[ch] = need.get(ch, 0) + 1
    for ch in supply.lower():
        if ch in need:
            need[ch] -= 1
    return {ch: n for ch, n in need.items() if n > 0}


@FAMILY.problem(
    "Count the decimal digits used to write all the integers in `nums` (minus signs are ignored)."
    " Return a list of 10 counts where index d holds how many times digit d was used.",
    "Given a list of integers, tally their digits: write each number in base 10 without its sign"
    " and return [count of 0s, count of 1s, ..., count of 9s] over all of them.",
    examples=[([120, -11, 7],)],
    tests=[([],), ([0],), ([-9, 99],), ([1234567890],), ([505, 50, -5, 10000],)],
)
def digit_tally(nums: list[int]) -> list[int]:
    text = "".join(str(abs(n)) for n in nums)
    return [text.count(str(d)) for d in range(10)]


@FAMILY.problem(
    "Return the candidate in `votes` that received strictly more than half of all votes, or None"
    " if no candidate has such a majority.",
    "Each string in votes is one ballot naming a candidate. Declare the winner only if they got an"
    " absolute majority (more than half of the ballots); otherwise, including when there are no"
    " ballots, return None.",
    examples=[(["ann", "bob", "ann"],), (["ann", "bob"],)],
    tests=[([],), (["x"],), (["a", "b", "a", "b"],), (["c", "a", "c", "b", "c"],), (["p", "q", "r", "q", "q", "p"],),
           (["d", "d", "e", "e", "d"],)],
)
def majority(votes: list[str]) -> str | None:
    counts: dict[str, int] = {}
    for v in votes:
        counts[v] = counts.get(v, 0) + 1
    for name, count in counts.items():
        if count * 2 > len(votes):
            return name
    return None


@FAMILY.problem(
    "Votes in `votes` are counted one at a time, in order. Return the first candidate whose running"
    " count reaches `target` (a positive integer), or None if nobody ever reaches it.",
    "In a race to `target` votes, ballots are read from the list in order and each adds one to its"
    " candidate's tally. Name the candidate whose tally hits target first; return None when the"
    " ballots run out before anyone gets there.",
    examples=[(["b", "a", "b", "a", "a"], 2)],
    tests=[([], 1), (["z"], 1), (["z"], 2), (["a", "b", "b", "a", "a", "b"], 3), (["q", "p", "p", "q"], 2),
           (["m", "n", "o"], 1)],
)
def first_to_reach(votes: list[str], target: int) -> str | None:
    counts: dict[str, int] = {}
    for v in votes:
        counts[v] = counts.get(v, 0) + 1
        if counts[v] == target:
            return v
    return None


@FAMILY.problem(
    "For every window of `k` consecutive elements of `nums` (k >= 1), count how many distinct"
    " values the window holds. Return the counts from left to right; if `k` is larger than the"
    " list, return [].",
    "Slide a window of width k along the list nums, one position at a time, starting at the"
    " beginning and stopping when the window reaches the end. Return the number of different values"
    " inside each window position (an empty list when nums has fewer than k elements).",
    examples=[([1, 2, 1, 3, 3], 3)],
    tests=[([], 1), ([4], 1), ([4, 4], 3), ([5, 5, 5, 5], 2), ([1, 2, 3, 1, 2, 3], 3), ([7, 8, 7, 7, 9], 5),
           ([1, 1, 2], 2)],
)
def distinct_in_windows(nums: list[int], k: int) -> list[int]:
    return [len(set(nums[i : i + k])) for i in range(len(nums) - k + 1)]


@FAMILY.problem(
    "Return the character of `s` (spaces excluded) that occurs the fewest times. If several"
    " characters are equally rare, return the one that first appears earliest in `s`. Return \"\""
    " if `s` has no characters other than spaces.",
    "Find the rarest non-space character in the string s: the one with the smallest count, and on a"
    " tie, the one whose first occurrence is leftmost. Case matters ('A' and 'a' differ). If there"
    " is nothing but spaces, return the empty string.",
    examples=[("banana bread",)],
    tests=[("",), ("   ",), ("z",), ("aAa",), ("ccbbaa",), ("xx yy z zy",), ("m n m n o o",)],
)
def rarest_char(s: str) -> str:
    counts: dict[str, int] = {}
    for ch in s:
        if ch != " ":
            counts[ch] = counts.get(ch, 0) + 1
    if not counts:
        return ""
    low = min(counts.values())
    for ch, count in counts.items():
        if count == low:
            return ch
    return ""


@FAMILY.problem(
    "Count the letters of `text`, ignoring case and every character that is not a letter. Return a"
    " list of (lower-case letter, count) tuples sorted alphabetically.",
    "Tally how often each letter occurs in text, treating 'A' and 'a' as the same letter and"
    " skipping digits, spaces and punctuation. Return the tally as (letter, count) pairs in"
    " alphabetical order; [] when text has no letters.",
    examples=[("Banana!",)],
    tests=[("",), ("123 ?!",), ("z",), ("AaA bB",), ("Hello, World",), ("c b a C",)],
    level=1,
)
def letter_tally(text: str) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for ch in text.lower():
        if ch.isalpha():
            counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts.items())


@FAMILY.problem(
    "Return the values that occur exactly twice in `nums`, each listed once, in increasing order.",
    "Find the numbers of nums that appear two times, no more and no fewer, and return them sorted"
    " from smallest to largest without repeats. Return [] if there are none.",
    examples=[([4, 1, 4, 2, 2, 2, 7],)],
    tests=[([],), ([5],), ([5, 5],), ([3, 3, 3],), ([9, -1, 9, 0, -1, 0, 0, 8],), ([1, 2, 1, 2, 1],)],
    level=1,
)
def values_seen_twice(nums: list[int]) -> list[int]:
    return sorted({x for x in nums if nums.count(x) == 2})


@FAMILY.problem(
    "Return the word length that occurs most often among `words`. If several lengths are equally"
    " common, return the smallest of them. Return 0 for an empty list.",
    "Measure every string in words and report which length is the most frequent; a tie goes to the"
    " shorter length, and no words at all gives 0.",
    examples=[(["to", "be", "or", "not", "to", "be"],), (["ab", "cde"],)],
    tests=[([],), ([""],), (["abc"],), (["aaa", "bb", "cc", "ddd", "e"],), (["xyz", "q", "uvw", "rst", "p", "o"],),
           (["four", "five", "one", "two"],)],
    level=1,
)
def most_common_length(words: list[str]) -> int:
    lengths = [len(word) for word in words]
    return max(sorted(set(lengths)), key=lengths.count) if lengths else 0


@FAMILY.problem(
    "Return the number of even values in `nums` minus the number of odd values (the result is"
    " negative when odd values are more numerous).",
    "Count the even and the odd integers of nums and return evens minus odds. Zero and negative"
    " even numbers count as even; an empty list gives 0.",
    examples=[([2, 5, 8, 4],)],
    tests=[([],), ([0],), ([7],), ([-3, -4, -5],), ([1, 3, 5, 2],), ([10, 11, 12, 13],)],
    level=1,
)
def even_minus_odd(nums: list[int]) -> int:
    return sum(1 if x % 2 == 0 else -1 for x in nums)


@FAMILY.problem(
    "Return a list [negatives, zeros, positives] with how many values of `nums` are below zero,"
    " equal to zero and above zero.",
    "Sort the integers of nums into three piles by sign and return the pile sizes as a list of"
    " three counts: first the negative numbers, then the zeros, then the positive numbers. An"
    " empty list gives [0, 0, 0].",
    examples=[([3, -1, 0, 7, -5],)],
    tests=[([],), ([0],), ([-4],), ([9, 9],), ([0, 0, -1, 2, -3, 0, 5],), ([-1, 1, -2, 2, 1],)],
    level=1,
)
def sign_tally(nums: list[int]) -> list[int]:
    return [sum(1 for x in nums if x < 0), nums.count(0), sum(1 for x in nums if x > 0)]
