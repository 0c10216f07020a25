from coderl.tasks.corpus.define import Family

FAMILY = Family("basics_lists", "first steps with lists and dicts: built-ins, comprehensions, simple filters")


@FAMILY.problem(
    "Return a list with the square of every odd number in `numbers`, in the original order. Even"
    " numbers are skipped.",
    "Go through numbers, keep the odd ones, and replace each of them by its square (the number times"
    " itself). Return the new list.",
    examples=[([1, 2, 3, 4, 5],), ([2, 4],)],
    tests=[([7],), ([-3, 0, 3],), ([10, 11, 12, 13],), ([9, 8, 1],), ([5, 5, 6],)],
    level=1,
)
def squares_of_odds(numbers: list[int]) -> list[int]:
    return [n * n for n in numbers if n % 2 == 1]


@FAMILY.problem(
    "`scores` maps names to numbers. Return the list of names whose score is greater than"
    " `threshold`, in the order they appear in the dictionary.",
    "A teacher keeps a dictionary from each student's name to a test score. List the students who"
    " scored more than threshold points, in the dictionary's order.",
    examples=[({"ann": 70, "bob": 50, "cy": 90}, 60), ({"a": 1}, 1)],
    tests=[({"x": 5, "y": 6}, 5), ({"p": 10, "q": 20, "r": 30}, 0), ({"m": -1, "n": -5}, -3),
           ({"d": 4, "e": 9, "f": 2}, 3), ({"solo": 8}, 10)],
    level=1,
)
def keys_above(scores: dict[str, int], threshold: int) -> list[str]:
    return [name for name, score in scores.items() if score > threshold]


@FAMILY.problem(
    "Return a new list in which every number n of `numbers` becomes n * factor + offset.",
    "Convert each reading in numbers with the formula reading * factor + offset and return the"
    " converted readings as a list in the same order.",
    examples=[([1, 2, 3], 2, 1), ([0, 5], 3, -2)],
    tests=[([4], 1, 0), ([10, 20], 0, 7), ([-1, 1], 5, 5), ([2, 3], 4, 1), ([6], -1, 6)],
    level=1,
)
def scale_and_shift(numbers: list[int], factor: int, offset: int) -> list[int]:
    return [n * factor + offset for n in numbers]


@FAMILY.problem(
    "Return a list of two items: the first item of `items` and the last item of `items`. items is"
    " not empty.",
    "A queue of people is given as the list items. Return [front, back]: the person at the front of"
    " the queue and the person at the back (with one person they are the same).",
    examples=[([1, 2, 3],), (["a"],)],
    tests=[([5, 6],), (["x", "y", "z", "w"],), ([9, 8, 7, 6, 5],), ([0, 1],), (["only", "two"],)],
    level=1,
)
def first_and_last_items(items: list) -> list:
    return [items[0], items[-1]]


@FAMILY.problem(
    "`prices` maps item names to prices. Return the names of the items whose price is at most"
    " `budget`, sorted alphabetically.",
    "You have budget coins. Looking at the price list prices (name to price), return an"
    " alphabetically sorted list of the things you can afford, meaning their price is less than or"
    " equal to budget.",
    examples=[({"tea": 3, "cake": 5, "pie": 8}, 5), ({"a": 10}, 5)],
    tests=[({"z": 1, "y": 2, "x": 3}, 3), ({"pen": 2, "ink": 7}, 2), ({"b": 4, "a": 4}, 4),
           ({"cup": 6, "bowl": 1, "ant": 9}, 8), ({"q": 5, "p": 2}, 1)],
    level=1,
)
def affordable_items(prices: dict[str, int], budget: int) -> list[str]:
    return sorted(name for name, price in prices.items() if price <= budget)


@FAMILY.problem(
    "a and b are lists of the same length. Return the list whose i-th item is the distance between"
    " a[i] and b[i], that is abs(a[i] - b[i]).",
    "Two runners record their times for each lap in the lists a and b (same number of laps). For"
    " every lap, return how far apart the two times are, as a non-negative number.",
    examples=[([1, 5, 3], [4, 2, 3]), ([10], [7])],
    tests=[([0, 0], [-2, 2]), ([5, 1], [1, 5]), ([7, 7, 7], [1, 7, 9]), ([-3], [-8]), ([2, 4], [2, 1])],
    level=1,
)
def absolute_differences(a: list[int], b: list[int]) -> list[int]:
    return [abs(x - y) for x, y in zip(a, b)]


@FAMILY.problem(
    "Return the position of the largest number in `numbers`, counting positions from 1 (the first"
    " item is at position 1). The numbers are all different and the list is not empty.",
    "Runners finish a race with the distances in numbers (all different). Return the 1-based place"
    " in the list of the runner with the biggest distance.",
    examples=[([3, 9, 4],), ([10, 1, 2],)],
    tests=[([1, 2, 3],), ([-5, -1, -9],), ([7],), ([4, 2, 8, 6],), ([0, 11, 5, 3],)],
    level=1,
)
def position_of_largest(numbers: list[int]) -> int:
    return numbers.index(max(numbers)) + 1


@FAMILY.problem(
    "Return a new list with every item of `items` that is not equal to `value`, in the original"
    " order.",
    "Take the list items and leave out all copies of value; keep everything else in the same order"
    " and return it.",
    examples=[([1, 2, 1, 3], 1), (["a", "b"], "c")],
    tests=[([5, 5, 5], 5), ([0, 1, 0], 0), (["x", "y", "x"], "y"), ([3, 4], 4), ([7, 8, 9], 1)],
    level=1,
)
def remove_value(items: list, value) -> list:
    return [x for x in items if x != value]


@FAMILY.problem(
    "Return a dictionary that maps each word of `words` with at least n characters to its length."
    " Shorter words are left out. The words are all different.",
    "From the list words, build a dictionary whose keys are the words that are n or more characters"
    " long and whose values are the lengths of those words.",
    examples=[(["hi", "hello", "hey"], 3), (["a", "bb"], 3)],
    tests=[(["cat", "horse"], 1), (["python", "go", "rust"], 4), (["abc"], 3), (["tree", "oak"], 4),
           (["x", "yy", "zzz"], 2)],
    level=1,
)
def lengths_of_long_words(words: list[str], n: int) -> dict[str, int]:
    return {w: len(w) for w in words if len(w) >= n}


@FAMILY.problem(
    "Return a list with every positive number of `numbers` multiplied by 2, in the original order."
    " Zero and negative numbers are left out.",
    "Keep only the numbers in the list that are greater than 0 and double each of them. Return the"
    " doubled numbers as a list.",
    examples=[([1, -2, 3],), ([0, 5],)],
    tests=[([-1, -2],), ([4, 0, -4, 2],), ([10],), ([3, 3, -3],), ([0, 1, 0],)],
    level=1,
)
def positives_doubled(numbers: list[int]) -> list[int]:
    return [2 * n for n in numbers if n > 0]


@FAMILY.problem(
    "Return how many strings in `words` start with the letter a or with the letter b.",
    "In a word game you score one point for each word of your list that begins with either of two"
    " chosen letters, a or b. Return the number of points.",
    examples=[(["apple", "avocado", "banana", "cherry"], "a", "b"), (["x"], "y", "z")],
    tests=[(["cat", "car", "dog", "cow"], "c", "d"), (["kiwi", "kale", "leek"], "k", "x"),
           (["b", "ab", "ba"], "b", "q"), (["moon", "sun"], "s", "m"), (["tip", "top", "map"], "p", "m")],
    level=1,
)
def count_starting_with_either(words: list[str], a: str, b: str) -> int:
    return sum(1 for w in words if w.startswith(a) or w.startswith(b))


@FAMILY.problem(
    "Return a list of two numbers: the length of the shortest string in `words` and the length of"
    " the longest string in `words`. words is not empty.",
    "Given a non-empty list of words, return [shortest, longest] where shortest is the smallest"
    " number of characters of any word and longest is the largest.",
    examples=[(["a", "abc", "ab"],), (["hello"],)],
    tests=[(["tree", "sky", "mountain"],), (["xx", "yy"],), (["longest", "s"],), (["four", "fives", "six"],)],
    level=1,
)
def shortest_and_longest(words: list[str]) -> list[int]:
    return [min(len(w) for w in words), max(len(w) for w in words)]


@FAMILY.problem(
    "Return True if both a and b are items of the list `items`, else False.",
    "Before baking you check the shelf, the list items. Return True only if you find both"
    " ingredient a and ingredient b on it.",
    examples=[([1, 2, 3], 1, 3), ([1, 2, 3], 1, 4)],
    tests=[([1, 2, 3], 5, 2), (["a", "b"], "b", "a"), ([7], 7, 7), ([4, 5], 6, 7), (["egg", "milk"], "egg", "flour")],
    level=1,
)
def contains_both(items: list, a, b) -> bool:
    return a in items and b in items


@FAMILY.problem(
    "Return True if every number in `numbers` is greater than `limit`, else False. numbers is not"
    " empty.",
    "A ride lets a group on only if every person is taller than limit. Given the heights in"
    " numbers, return whether the whole group may ride.",
    examples=[([5, 6, 7], 4), ([5, 6, 7], 5)],
    tests=[([1, 10], 0), ([3, -1], 0), ([9], 9), ([2, 8], 1), ([6, 4, 5], 3)],
    level=1,
)
def all_above(numbers: list[int], limit: int) -> bool:
    return all(n > limit for n in numbers)


@FAMILY.problem(
    "Return the words of `words` whose length is at least `low` and at most `high`, in the original"
    " order.",
    "A crossword needs words with between low and high letters (both limits allowed). From the list"
    " words, return the ones that fit, keeping their order.",
    examples=[(["a", "bb", "ccc", "dddd"], 2, 3), (["hello", "hi"], 1, 2)],
    tests=[(["one", "three"], 3, 5), (["x"], 2, 4), (["aa", "aaaa", "aaaaaa"], 4, 4),
           (["sun", "moon", "star", "planet"], 4, 6), (["ab", "abc"], 1, 1)],
    level=1,
)
def words_with_length_between(words: list[str], low: int, high: int) -> list[str]:
    return [w for w in words if low <= len(w) <= high]


@FAMILY.problem(
    "`prices` maps item names to whole-number prices. Return a new dictionary with every price"
    " raised by `percent` percent, where the increase is price * percent // 100 (rounded down).",
    "A shop raises all its prices by percent percent. For each item the new price is the old price"
    " plus old * percent // 100. Return the dictionary of new prices (same keys).",
    examples=[({"tea": 100, "cake": 250}, 10), ({"pen": 50}, 0)],
    tests=[({"a": 30, "b": 7}, 50), ({"x": 200}, 25), ({"q": 99, "r": 101}, 1), ({"m": 40, "n": 60}, 100)],
    level=1,
)
def raise_prices(prices: dict[str, int], percent: int) -> dict[str, int]:
    return {name: price + price * percent // 100 for name, price in prices.items()}


@FAMILY.problem(
    "Return the sum of the items of `numbers` at positions 0, 2, 4, ... (every other item, starting"
    " with the first).",
    "Add up the first item of numbers, the third, the fifth, and so on, skipping the items in"
    " between. Return the total.",
    examples=[([1, 2, 3, 4, 5],), ([10],)],
    tests=[([4, 100],), ([1, 1, 1, 1, 1, 1],), ([-2, 5, -3, 7],), ([3, 0, 3, 0, 3, 0, 3],), ([0, 9, 8],)],
    level=1,
)
def sum_of_even_indexes(numbers: list[int]) -> int:
    return sum(numbers[::2])


@FAMILY.problem(
    "Return how many values of the dictionary `d` are equal to `target`.",
    "A dictionary d records each person's favourite colour (or any other value). Count the people"
    " whose value is exactly target and return the count.",
    examples=[({"a": 1, "b": 2, "c": 1}, 1), ({"x": "red", "y": "blue"}, "red")],
    tests=[({"k": 0}, 5), ({"p": 3, "q": 3, "r": 3}, 3), ({"m": "go", "n": "stop"}, "wait"),
           ({"s": 2, "t": 1}, 2)],
    level=1,
)
def count_with_value(d: dict, target) -> int:
    return sum(1 for v in d.values() if v == target)


@FAMILY.problem(
    "Return a list where each string of `items` is written after its number and a period and a"
    " space, counting from 1: the first item becomes '1. ' + item, the second '2. ' + item, and so"
    " on.",
    "Turn a shopping list into numbered lines. Number the items starting at 1, and write each line"
    " as the number, a dot, a space, and the item.",
    examples=[(["eggs", "milk"],), (["x"],)],
    tests=[(["a", "b", "c"],), (["wake up", "code", "sleep"],), (["only"],), (["p", "q"],)],
    level=1,
)
def numbered_items(items: list[str]) -> list[str]:
    return [str(i) + ". " + item for i, item in enumerate(items, 1)]


@FAMILY.problem(
    "`ages` maps names to ages. Return a new dictionary with the same names and every age increased"
    " by 1.",
    "A year has passed. Given the dictionary ages (name to age), return a dictionary with everyone"
    " one year older.",
    examples=[({"ann": 30, "bob": 5},), ({"cy": 0},)],
    tests=[({"x": 99},), ({"a": 1, "b": 2, "c": 3},), ({"old": 100, "young": 10},), ({"z": 41},)],
    level=1,
)
def ages_next_year(ages: dict[str, int]) -> dict[str, int]:
    return {name: age + 1 for name, age in ages.items()}


@FAMILY.problem(
    "Return every second item of `items`, beginning at index `start`: the items at indexes start,"
    " start + 2, start + 4, and so on.",
    "Players stand in a line given by items. Starting with the player at index start, pick that"
    " player, skip one, pick the next, skip one, and so on. Return the picked players in order.",
    examples=[([1, 2, 3, 4, 5], 0), ([1, 2, 3, 4, 5], 1)],
    tests=[(["a", "b", "c"], 2), ([9, 8, 7, 6, 5, 4], 1), ([0], 0), ([1, 2, 3, 4, 5, 6, 7], 0),
           ([5, 6, 7, 8, 9, 10, 11], 3)],
    level=1,
)
def every_second_item(items: list, start: int) -> list:
    return items[start::2]


@FAMILY.problem(
    "Return the first even number in the list `numbers`. The list always contains at least one even"
    " number.",
    "Walk along numbers from the start and return the first number you meet that is even (divisible"
    " by 2). There is always one.",
    examples=[([1, 3, 4, 6],), ([2],)],
    tests=[([7, 9, 10],), ([-3, -8, 2],), ([5, 0, 2],), ([11, 13, 15, 16],), ([6, 1, 8],)],
    level=1,
)
def first_even(numbers: list[int]) -> int:
    for n in numbers:
        if n % 2 == 0:
            return n


@FAMILY.problem(
    "Return a list of two numbers: the sum of the positive numbers in `numbers` and the sum of the"
    " negative numbers in `numbers`. Zeros do not change either sum.",
    "A bank statement lists money in (positive amounts) and money out (negative amounts). Return"
    " [total in, total out], where total out is the sum of the negative amounts (so it is 0 or"
    " negative).",
    examples=[([1, -2, 3, -4],), ([5],)],
    tests=[([-1, -1],), ([0, 2, -2],), ([10, -3, 0, 7],), ([4, 4, -9],)],
    level=1,
)
def positive_and_negative_sums(numbers: list[int]) -> list[int]:
    return [sum(n for n in numbers if n > 0), sum(n for n in numbers if n < 0)]


@FAMILY.problem(
    "Return a list in which every item of `items` appears `times` times in a row, keeping the"
    " original order. times is at least 1.",
    "Copy each element of items times times, placing the copies next to each other, for example"
    " [1, 2] with times 2 gives [1, 1, 2, 2].",
    examples=[([1, 2], 2), (["a"], 3)],
    tests=[([5, 6, 7], 1), ([0], 4), (["x", "y"], 3), ([3, 1], 2)],
    level=1,
)
def repeat_each(items: list, times: int) -> list:
    return [x for x in items for _ in range(times)]


@FAMILY.problem(
    "Return the sum of the two largest numbers in `numbers`. The list has at least two numbers.",
    "A game keeps your two best scores. Given all your scores (at least two), return the two"
    " highest scores added together.",
    examples=[([1, 5, 3],), ([10, 10],)],
    tests=[([4, 2, 8, 6],), ([-1, -5, -3],), ([7, 1],), ([1, 2, 3, 4, 5],), ([9, 0, 9, 9],)],
    level=1,
)
def sum_of_two_largest(numbers: list[int]) -> int:
    return sum(sorted(numbers)[-2:])
