from coderl.tasks.corpus.define import Family

FAMILY = Family("dicts_sets", "dictionaries and sets: invert, merge with rules, group by key, set algebra")


@FAMILY.problem(
    "Return the sorted list of keys of `mapping` whose value equals `target`. Return an empty list"
    " when no key has that value.",
    "Given a dictionary mapping names to integers, collect every name whose integer is exactly"
    " target and return those names in alphabetical order (an empty list if there are none).",
    examples=[({"ann": 3, "bob": 5, "cid": 3}, 3)],
    tests=[({}, 1), ({"x": 1}, 2), ({"zed": 0, "amy": 0, "kim": 0}, 0), ({"a": -2, "b": 2, "c": -2}, -2),
           ({"q": 7, "p": 8, "r": 7, "s": 6}, 7)],
)
def keys_with_value(mapping: dict[str, int], target: int) -> list[str]:
    return sorted(k for k, v in mapping.items() if v == target)


@FAMILY.problem(
    "Group the keys of `mapping` by their value: return a dictionary from each value to the"
    " alphabetically sorted list of keys that have it, keeping only values shared by at least"
    " `min_size` keys.",
    "Given a dictionary from student name to team colour, produce a dictionary from colour to the"
    " list of its students sorted alphabetically, leaving out colours with fewer than min_size"
    " students. An empty mapping gives an empty dictionary.",
    examples=[({"tom": "red", "amy": "blue", "eve": "red"}, 1), ({"tom": "red", "amy": "blue", "eve": "red"}, 2)],
    tests=[({}, 1), ({"a": "x"}, 1), ({"a": "x"}, 0), ({"d": "k", "c": "k", "b": "k", "a": "k"}, 4),
           ({"p": "one", "q": "two", "r": "one", "s": "three"}, 2), ({"Bo": "g", "al": "g", "Cy": "h"}, 1),
           ({"a": "u", "b": "v", "c": "v", "d": "w", "e": "w", "f": "w"}, 3)],
)
def group_keys_by_value(mapping: dict[str, str], min_size: int) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for key in sorted(mapping):
        groups.setdefault(mapping[key], []).append(key)
    return {value: keys for value, keys in groups.items() if len(keys) >= min_size}


@FAMILY.problem(
    "Merge two stock dictionaries `a` and `b` (item -> quantity change) by adding the quantities of"
    " items present in both. Leave out every item whose combined quantity is zero or negative.",
    "Two warehouses report stock as item -> count, and counts may be negative adjustments. Return"
    " the combined stock dictionary where each item's count is its sum over a and b, keeping only"
    " items whose total is strictly positive.",
    examples=[({"nut": 4, "bolt": 2}, {"bolt": -2, "gear": 1})],
    tests=[({}, {}), ({"a": 1}, {}), ({}, {"b": -3, "c": 3}), ({"x": 5, "y": -1}, {"x": -6, "y": 2}),
           ({"p": 2, "q": 3}, {"p": 3, "r": 0, "s": 1})],
)
def merge_stock(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    total = dict(a)
    for item, qty in b.items():
        total[item] = total.get(item, 0) + qty
    return {item: qty for item, qty in total.items() if qty > 0}


@FAMILY.problem(
    "Merge the dictionaries `a` and `b` of string values. Keys found in only one dictionary keep"
    " their value. For a key in both, keep the longer of the two strings; if they have the same"
    " length, keep the value from `a`.",
    "Combine two label dictionaries a and b into one. When both define a label for the same key, the"
    " longer text wins, and on equal length the text from a wins. Every key of either input"
    " appears in the result.",
    examples=[({"k1": "hi", "k2": "yes"}, {"k2": "no", "k3": "ok"})],
    tests=[({}, {}), ({}, {"z": "zz"}), ({"a": "abc"}, {"a": "xyz"}), ({"a": "ab"}, {"a": "abc"}),
           ({"a": "", "b": "long", "c": "mid"}, {"a": "x", "b": "tiny", "c": "midd", "d": ""})],
)
def merge_prefer_longer(a: dict[str, str], b: dict[str, str]) -> dict[str, str]:
    merged = dict(a)
    for key, value in b.items():
        if key not in merged or len(value) > len(merged[key]):
            merged[key] = value
    return merged


@FAMILY.problem(
    "Return the tags that appear in exactly one of the lists `a` and `b`, comparing them case"
    " insensitively. Give the tags in lower case, sorted alphabetically, without duplicates.",
    "Two bloggers tagged their posts with the word lists a and b. Ignoring upper/lower case, which"
    " tags did only one of them use? Return them lower-cased, each once, in alphabetical order.",
    examples=[(["Python", "web", "Data"], ["data", "AI"])],
    tests=[([], []), (["x"], []), (["A", "a"], ["a"]), (["Go", "rust", "go"], ["RUST", "zig", "Zig"]),
           (["m", "n", "o"], ["p", "O", "q"])],
)
def exclusive_tags(a: list[str], b: list[str]) -> list[str]:
    return sorted({t.lower() for t in a} ^ {t.lower() for t in b})


@FAMILY.problem(
    "Given a list of integer lists `groups`, return the sorted list of the numbers that occur in"
    " every group. Return an empty list when `groups` is empty.",
    "Several shoppers each list the product ids in their basket (groups). Find the product ids that"
    " every single shopper bought, each once, in increasing order. With no shoppers, return [].",
    examples=[([[1, 2, 3], [2, 3, 4], [3, 2]],)],
    tests=[([],), ([[5, 1, 5]],), ([[1, 2], []],), ([[4, 4, 6], [6, 4], [4, 6, 8]],),
           ([[-1, 0, 1], [1, -1], [2, -1, 1]],), ([[1, 2], [3, 4]],)],
)
def common_to_all(groups: list[list[int]]) -> list[int]:
    if not groups:
        return []
    common = set(groups[0])
    for group in groups[1:]:
        common &= set(group)
    return sorted(common)


@FAMILY.problem(
    "Group the non-empty strings of `words` by their first letter, lower-cased. Return a dictionary"
    " from that letter to the list of words starting with it, in their original order. Empty"
    " strings are ignored.",
    "Build an index of words: the key is the lower-case version of a word's first character and the"
    " value lists the words (unchanged, in input order) under that key. Skip any empty string in"
    " words.",
    examples=[(["apple", "Avocado", "banana", "", "apricot"],)],
    tests=[([],), ([""],), (["Zed"],), (["b", "B", "b"],), (["cat", "dog", "Cow", "duck", "ant", "Dove"],)],
)
def index_by_initial(words: list[str]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for word in words:
        if word:
            index.setdefault(word[0].lower(), []).append(word)
    return index


@FAMILY.problem(
    "Return a copy of `record` where keys are renamed according to `renames` (old name -> new"
    " name); keys not in `renames` keep their name. If several keys end up with the same name,"
    " their values are added together.",
    "A sensor record maps field names to integer readings. Apply the rename table renames to every"
    " field name (fields missing from the table are left alone), and when two fields collide under"
    " the same final name, store the sum of their readings. Return the new dictionary.",
    examples=[({"tmp": 20, "hum": 40}, {"tmp": "temp"})],
    tests=[({}, {"a": "b"}), ({"a": 1}, {}), ({"a": 1, "b": 2}, {"a": "b"}), ({"x": 3, "y": 4}, {"x": "y", "y": "x"}),
           ({"p": 1, "q": 2, "r": 3, "s": -4}, {"p": "t", "q": "t", "r": "s"})],
)
def rename_keys(record: dict[str, int], renames: dict[str, str]) -> dict[str, int]:
    result: dict[str, int] = {}
    for key, value in record.items():
        name = renames.get(key, key)
        result[name] = result.get(name, 0) + value
    return result


@FAMILY.problem(
    "Return the names in `required` that are not keys of `given`, in the order they first appear"
    " in `required` and without repeats.",
    "A form must contain every field listed in required. Given the submitted fields as a"
    " dictionary given, report which required fields are missing, each only once, keeping the"
    " order of the required list. Return [] when nothing is missing.",
    examples=[(["name", "age", "email"], {"age": 30})],
    tests=[([], {"a": 1}), (["a"], {}), (["a", "b"], {"a": 0, "b": 0}), (["x", "y", "x", "z", "y"], {"z": 1}),
           (["c", "b", "a"], {"b": 2})],
)
def missing_fields(required: list[str], given: dict[str, int]) -> list[str]:
    missing: list[str] = []
    for name in required:
        if name not in given and name not in missing:
            missing.append(name)
    return missing


@FAMILY.problem(
    "Decide whether the list of `(left, right)` pairs describes a one-to-one pairing: every left"
    " value is always paired with the same right value, and every right value is always paired"
    " with the same left value. Repeating an identical pair is allowed. An empty list is one-to-one.",
    "Each tuple in pairs records that a left item was matched with a right item. Return True if"
    " no left item was ever matched with two different right items and no right item with two"
    " different left items (duplicated identical pairs are fine), otherwise False.",
    examples=[([("a", "x"), ("b", "y"), ("a", "x")],), ([("a", "x"), ("b", "x")],)],
    tests=[([],), ([("p", "q")],), ([("a", "x"), ("a", "y")],), ([("a", "b"), ("b", "a")],),
           ([("m", "1"), ("n", "2"), ("o", "3"), ("n", "2"), ("p", "1")],), ([("k", "k"), ("j", "j")],)],
)
def is_one_to_one(pairs: list[tuple[str, str]]) -> bool:
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    for left, right in pairs:
        if forward.setdefault(left, right) != right:
            return False
        if backward.setdefault(right, left) != left:
            return False
    return True


@FAMILY.problem(
    "Return the Jaccard similarity of the lists `a` and `b` as a whole percentage: the number of"
    " distinct values in both, times 100, integer-divided by the number of distinct values in"
    " either. If both lists are empty, return 100.",
    "Treat a and b as sets of integers and compute 100 * |a & b| // |a | b| (floor division). Two"
    " empty lists count as identical and give 100.",
    examples=[([1, 2, 3], [2, 3, 4])],
    tests=[([], []), ([1], []), ([5, 5], [5]), ([1, 2, 3], [4, 5, 6]), ([1, 2, 3, 4, 5, 6], [6, 1, 1, 7, 8, 9]),
           ([0, 1], [1, 2, 3])],
)
def jaccard_percent(a: list[int], b: list[int]) -> int:
    union = set(a) | set(b)
    return 100 * len(set(a) & set(b)) // len(union) if union else 100


@FAMILY.problem(
    "Follow the dot-separated `path` of keys into the nested dictionary `data` and return the value"
    " found there. If any key along the way is missing, or a value along the way is not a"
    " dictionary, return `default`. An empty `path` returns `data` itself.",
    "Configuration is stored as nested dictionaries. Given a lookup string such as"
    " \"db.port\", walk data one key at a time and return what you reach; return default as"
    " soon as a key does not exist or you would have to index into something that is not a"
    " dictionary. The empty path means the whole data.",
    examples=[({"db": {"port": 5432, "host": "x"}}, "db.port", -1), ({"a": 1}, "a.b", 0)],
    tests=[({}, "x", None), ({"a": {"b": {"c": 3}}}, "a.b.c", 0), ({"a": {"b": {"c": 3}}}, "a.b", 0),
           ({"a": {"b": 2}}, "a.c", "none"), ({"k": 5}, "", 0), ({"a": {"b": 0}}, "a.b", 9),
           ({"x": {"y": "s"}}, "x.y.z", -1)],
)
def dotted_get(data: dict, path: str, default: object) -> object:
    if not path:
        return data
    current: object = data
    for key in path.split("."):
        if not isinstance(current, dict) or key not in current:
            return default
        current = current[key]
    return current


@FAMILY.problem(
    "Flatten the nested dictionary `data` into a single-level dictionary whose keys are the paths"
    " to each non-dictionary value, joined with `sep`. Nested empty dictionaries contribute no"
    " keys. Keep the keys in the order they are met walking the input.",
    "Given nested settings data (values are either plain values or further dictionaries), return"
    " a flat dictionary mapping each full key path, written with the separator sep between the"
    " parts (e.g. \"a.b\"), to its leaf value, in the order encountered. Empty sub-dictionaries"
    " produce nothing.",
    examples=[({"a": 1, "b": {"c": 2, "d": {"e": 3}}}, ".")],
    tests=[({}, "."), ({"x": {}}, "/"), ({"x": 1, "y": [1, 2]}, "."), ({"a": {"b": {"c": {"d": 4}}}}, "_"),
           ({"k": {"a": 1, "b": {}}, "m": {"n": "v"}, "z": 0}, "/")],
)
def flatten_keys(data: dict, sep: str) -> dict:
    flat: dict = {}

    def walk(node: dict, prefix: str) -> None:
        for key, value in node.items():
            path = prefix + sep + key if prefix else key
            if isinstance(value, dict):
                walk(value, path)
            else:
                flat[path] = value

    walk(data, "")
    return flat


@FAMILY.problem(
    "Compare the dictionaries `old` and `new` and return a dictionary with three keys: \"added\""
    " (keys only in `new`), \"removed\" (keys only in `old`) and \"changed\" (keys in both whose"
    " values differ). Each list is sorted alphabetically.",
    "Given two versions of a settings dictionary, old and new, describe the difference as"
    " {\"added\": [...], \"removed\": [...], \"changed\": [...]} where added lists keys that"
    " appear only in new, removed those only in old, and changed the shared keys with different"
    " values. Sort every list; use empty lists when there is nothing to report.",
    examples=[({"a": 1, "b": 2, "c": 3}, {"b": 2, "c": 4, "d": 5})],
    tests=[({}, {}), ({"x": 1}, {"x": 1}), ({}, {"z": 1, "y": 2}), ({"q": 0, "p": 1}, {}),
           ({"m": 1, "k": 2, "j": 3, "i": 4}, {"m": 2, "k": 2, "j": 0, "h": 1})],
)
def dict_changes(old: dict[str, int], new: dict[str, int]) -> dict[str, list[str]]:
    return {
        "added": sorted(k for k in new if k not in old),
        "removed": sorted(k for k in old if k not in new),
        "changed": sorted(k for k in old if k in new and old[k] != new[k]),
    }


@FAMILY.problem(
    "Return the key of `scores` with the largest value. If several keys tie, return the one that"
    " is alphabetically first. Return None for an empty dictionary.",
    "Given a dictionary of player -> points, name the leader: the player with the most points,"
    " breaking ties by choosing the alphabetically smallest name. With no players, return None.",
    examples=[({"dan": 4, "ali": 9, "bo": 9},)],
    tests=[({},), ({"x": -5},), ({"z": 1, "y": 1, "x": 0},), ({"a": -3, "b": -1, "c": -2},),
           ({"k": 2, "m": 7, "j": 6, "l": 7},)],
)
def leader(scores: dict[str, int]) -> str | None:
    if not scores:
        return None
    return min(scores, key=lambda name: (-scores[name], name))


@FAMILY.problem(
    "Given a friendship graph `friends` (person -> list of friends), return the sorted list of"
    " people who are friends of a friend of `person` but are neither `person` nor already one of"
    " their friends. A person missing from the graph has no friends.",
    "Suggest new contacts: from the adjacency dictionary friends, collect everyone reachable from"
    " person in exactly two steps who is not person and not a direct friend of person. Return the"
    " suggestions in alphabetical order, each once ([] if there are none).",
    examples=[({"ann": ["bob"], "bob": ["ann", "cat", "dan"], "cat": ["bob"]}, "ann")],
    tests=[({}, "x"), ({"a": []}, "a"), ({"a": ["b"], "b": ["a"]}, "a"),
           ({"a": ["b", "c"], "b": ["c", "d"], "c": ["e", "a"], "d": [], "e": []}, "a"),
           ({"p": ["q"], "q": ["r", "s", "r"], "s": ["p", "t"]}, "p"), ({"p": ["q"], "q": ["z"]}, "q")],
)
def friend_suggestions(friends: dict[str, list[str]], person: str) -> list[str]:
    direct = set(friends.get(person, []))
    found = set()
    for friend in direct:
        for other in friends.get(friend, []):
            if other != person and other not in direct:
                found.add(other)
    return sorted(found)


@FAMILY.problem(
    "Return the total price of the items named in `basket`, looking each one up in `prices`. An"
    " item missing from `prices` costs 0, and an item listed twice is paid twice.",
    "Given a price list prices (item -> price) and a list of item names basket, add up the price of"
    " every entry of basket; names that prices does not know add nothing. An empty basket costs 0.",
    examples=[({"tea": 3, "bun": 2}, ["tea", "bun", "tea", "jam"])],
    tests=[({}, []), ({"a": 5}, []), ({}, ["a", "b"]), ({"a": 1, "b": 10}, ["b", "b", "b"]),
           ({"x": -2, "y": 7, "z": 0}, ["z", "y", "x", "w"])],
    level=1,
)
def basket_total(prices: dict[str, int], basket: list[str]) -> int:
    return sum(prices.get(item, 0) for item in basket)


@FAMILY.problem(
    "Return the keys of `scores` ordered by their value from highest to lowest; keys with equal"
    " values are ordered alphabetically.",
    "Given a dictionary scores of name -> points, list the names from the most points to the"
    " fewest, putting names with the same points in alphabetical order. An empty dictionary gives"
    " [].",
    examples=[({"bo": 3, "al": 5, "cy": 3},)],
    tests=[({},), ({"x": 0},), ({"c": 1, "b": 1, "a": 1},), ({"p": -1, "q": 4, "r": 2},),
           ({"m": 2, "k": 9, "z": 9, "a": -5},)],
    level=1,
)
def keys_by_score(scores: dict[str, int]) -> list[str]:
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [name for name, _ in ranked]


@FAMILY.problem(
    "Return the sorted list of keys that appear in both `a` and `b` with the same value in each.",
    "Compare two dictionaries a and b and list, in alphabetical order, the keys that both of them"
    " have and that map to equal values in both. Return [] when there are none.",
    examples=[({"x": 1, "y": 2, "z": 3}, {"y": 2, "z": 4, "w": 1})],
    tests=[({}, {}), ({"a": 1}, {}), ({"a": 1}, {"a": 1}), ({"a": 1}, {"a": 2}),
           ({"k": 0, "j": 5, "i": 7, "h": 1}, {"h": 1, "i": 7, "j": 6, "g": 0})],
    level=1,
)
def matching_entries(a: dict[str, int], b: dict[str, int]) -> list[str]:
    return sorted(key for key in a if key in b and a[key] == b[key])


@FAMILY.problem(
    "Return how many different values of `mapping` are shared by two or more keys.",
    "Look at the values of the dictionary mapping and count the distinct values that occur for more"
    " than one key. A dictionary whose values are all different gives 0.",
    examples=[({"a": 1, "b": 2, "c": 1, "d": 3},)],
    tests=[({},), ({"a": 5},), ({"a": 5, "b": 5},), ({"a": 1, "b": 2, "c": 3},),
           ({"p": 0, "q": 0, "r": 7, "s": 7, "t": 7, "u": 8},)],
    level=1,
)
def shared_value_count(mapping: dict[str, int]) -> int:
    values = list(mapping.values())
    return len({v for v in values if values.count(v) > 1})


@FAMILY.problem(
    "Return a new dictionary equal to `counts` but with the count of `word` increased by 1; a word"
    " not yet in `counts` gets the count 1. Do not modify `counts`.",
    "Record one more sighting of word in the tally counts (word -> number of sightings): return a"
    " copy of the tally in which word's number is one higher, or 1 if word was not there before.",
    examples=[({"owl": 2}, "owl"), ({"owl": 2}, "jay")],
    tests=[({}, "a"), ({"a": 0}, "a"), ({"a": 5, "b": 1}, "b"), ({"x": 3}, "y"), ({"k": -1, "m": 4}, "k")],
    level=1,
)
def add_sighting(counts: dict[str, int], word: str) -> dict[str, int]:
    result = dict(counts)
    result[word] = result.get(word, 0) + 1
    return result


@FAMILY.problem(
    "Return the values of `mapping` for the keys in `keys`, in the order of `keys`; keys that"
    " `mapping` does not have are skipped.",
    "Given a dictionary mapping and a list of keys to look up, return the list of the values found,"
    " one per key that exists in mapping, keeping the order of keys (a key asked twice gives its"
    " value twice).",
    examples=[({"a": 1, "b": 2, "c": 3}, ["c", "x", "a"])],
    tests=[({}, []), ({"a": 1}, []), ({}, ["a"]), ({"a": 1, "b": 2}, ["b", "b", "a"]),
           ({"p": 0, "q": -4, "r": 9}, ["s", "q", "p", "t", "r"])],
    level=1,
)
def values_for_keys(mapping: dict[str, int], keys: list[str]) -> list[int]:
    return [mapping[key] for key in keys if key in mapping]
