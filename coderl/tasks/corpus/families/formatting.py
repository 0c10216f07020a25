from coderl.tasks.corpus.define import Family

FAMILY = Family("formatting", "padding, alignment, number formatting, small text tables and reports")


@FAMILY.problem(
    "Return the integer `n` as a string padded on the left with zeros so that the whole string,"
    " including a leading '-' for negative numbers, is at least `width` characters long. The minus"
    " sign always comes before the zeros. Numbers already that long are not padded.",
    "Given an integer `n` and a minimum `width`, format `n` in decimal with leading zeros inserted"
    " between the sign and the digits until the total length (sign included) reaches `width`;"
    " e.g. -42 with width 5 becomes '-0042'.",
    examples=[(42, 5), (-42, 5)],
    tests=[(0, 3), (7, 1), (12345, 3), (-5, 2), (-1, 3), (-123, 6), (99, 4)],
)
def zero_pad(n: int, width: int) -> str:
    sign = "-" if n < 0 else ""
    return sign + str(abs(n)).rjust(width - len(sign), "0")


@FAMILY.problem(
    "Write the integer `n` with its digits grouped in threes from the right, the groups separated"
    " by the string `sep`. A negative number keeps its '-' in front, and the separator is never"
    " placed next to the sign.",
    "Given an integer `n` and a separator `sep` (such as ',' or a space), return the decimal"
    " representation of `n` with `sep` inserted between every group of three digits counted from"
    " the right, for example 1234567 with '.' gives '1.234.567'.",
    examples=[(1234567, ","), (-1000, " ")],
    tests=[(0, ","), (999, ","), (1000, "."), (-999999, "_"), (-1, ","), (100000, "'"), (12345678901, ", ")],
)
def group_thousands(n: int, sep: str) -> str:
    digits = str(abs(n))
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return ("-" if n < 0 else "") + sep.join(groups)


@FAMILY.problem(
    "Format a non-negative number of `seconds` as a duration. With at least one hour, return"
    " 'Hh MMm SSs' (hours unpadded, minutes and seconds two digits); otherwise with at least one"
    " minute, return 'Mm SSs'; otherwise return 'Ss' with the seconds unpadded.",
    "A media player shows track lengths compactly. Given `seconds`, split it into hours, minutes"
    " and seconds and produce e.g. '1h 02m 05s' when there are hours, '2m 05s' when there are"
    " minutes but no hours, and '5s' otherwise (including '0s'). Only the leading unit is written"
    " without zero padding.",
    examples=[(3725,), (125,)],
    tests=[(0,), (59,), (60,), (3599,), (3600,), (90061,), (7205,)],
)
def format_duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


@FAMILY.problem(
    "Return a human-readable size for `size` bytes. Below 1024 return the exact count followed by"
    " ' B' (like '512 B'). Otherwise divide by 1024 repeatedly, moving through the units KB, MB, GB"
    " and TB, until the value is below 1024 or the unit is TB, and return the value with exactly"
    " one decimal (as Python's '.1f' format gives) followed by a space and the unit.",
    "Given a byte count `size` (non-negative), pick the largest unit among B, KB, MB, GB and TB"
    " (each 1024 times the previous) that keeps the number below 1024, stopping at TB. Bytes are"
    " written as a whole number ('1023 B'); the other units are written with one digit after the"
    " decimal point using '.1f' formatting, e.g. '1.5 KB'.",
    examples=[(512,), (1536,)],
    tests=[(0,), (1023,), (1024,), (1048576,), (5000000000,), (3 * 1024 ** 5,), (1048575,)],
)
def human_bytes(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    units = ["KB", "MB", "GB", "TB"]
    value = size / 1024
    index = 0
    while value >= 1024 and index < len(units) - 1:
        value /= 1024
        index += 1
    return f"{value:.1f} {units[index]}"


@FAMILY.problem(
    "Lay out `rows` (lists of strings, possibly of different lengths) as text columns. Each"
    " column's width is the length of its longest cell; every cell is left-justified to its"
    " column's width and the cells of a row are joined by two spaces. Remove trailing spaces from"
    " each line and return the list of lines.",
    "Given a table `rows` whose rows may have different numbers of cells, return one string per row"
    " in which column k is padded on the right to the widest entry of column k across all rows,"
    " with two spaces between neighbouring columns and no trailing whitespace at the end of a"
    " line.",
    examples=[([["name", "qty"], ["apple", "3"], ["fig", "12"]],)],
    tests=[([],), ([["solo"]],), ([["a", "bb", "c"], ["ddd"]],), ([["x", ""], ["", "y"]],), ([["a", "", "b"], ["c"]],),
           ([["id", "item", "price"], ["1", "tea", "2.50"], ["22", "coffee", "3"]],)],
)
def align_columns(rows: list[list[str]]) -> list[str]:
    widths: list[int] = []
    for row in rows:
        for k, cell in enumerate(row):
            if k == len(widths):
                widths.append(0)
            widths[k] = max(widths[k], len(cell))
    return ["  ".join(cell.ljust(widths[k]) for k, cell in enumerate(row)).rstrip() for row in rows]


@FAMILY.problem(
    "Right-align `lines`: first remove leading and trailing whitespace from each string, then pad"
    " each stripped string on the left with spaces so that all of them have the length of the"
    " longest stripped string. Return the new list in the same order.",
    "Given a list of strings `lines`, return a list in which every string, after stripping the"
    " whitespace around it, is right-justified to the width of the longest stripped string (an"
    " empty list gives an empty list).",
    examples=[(["7", " 42", "100 "],)],
    tests=[([],), (["same", "size"],), (["", "a"],), (["total:", "3", "  x"],), (["one"],), ([" a   ", "bb"],)],
)
def right_align(lines: list[str]) -> list[str]:
    stripped = [line.strip() for line in lines]
    width = max((len(line) for line in stripped), default=0)
    return [line.rjust(width) for line in stripped]


@FAMILY.problem(
    "Draw a box around `lines`. With W the length of the longest line (0 for no lines), the border"
    " line is '+', then W + 2 dashes, then '+'. Return the border, then one line per input line"
    " written as '| ' + the line padded with spaces to W + ' |', then the border again.",
    "Given a list of strings `lines`, return the lines of an ASCII frame around them: a top and a"
    " bottom edge made of '+' and '-' and, between them, each text line left-aligned between"
    " '| ' and ' |'. All lines of the frame have the same length, which is 4 more than the longest"
    " text line.",
    examples=[(["hi", "there"],)],
    tests=[([],), ([""],), (["x"],), (["long line", "", "mid"],), (["a", "bb", "ccc"],)],
)
def box_text(lines: list[str]) -> list[str]:
    width = max((len(line) for line in lines), default=0)
    border = "+" + "-" * (width + 2) + "+"
    return [border] + ["| " + line.ljust(width) + " |" for line in lines] + [border]


@FAMILY.problem(
    "Return `part` as a percentage of `whole`, written with one decimal (Python's '.1f' format)"
    " followed by '%'. If `whole` is 0 return 'n/a'.",
    "A dashboard shows ratios like '42.9%'. Given integers `part` and `whole`, compute"
    " 100 * part / whole and format it with exactly one digit after the decimal point and a"
    " trailing percent sign; a zero `whole` is shown as 'n/a'.",
    examples=[(3, 7), (5, 0)],
    tests=[(0, 5), (0, 0), (1, 3), (2, 3), (7, 4), (3, 1), (-1, 8)],
)
def format_percent(part: int, whole: int) -> str:
    if whole == 0:
        return "n/a"
    return f"{100 * part / whole:.1f}%"


@FAMILY.problem(
    "Format an amount of money given in `cents` as dollars: '$', the whole dollars with commas"
    " between groups of three digits, '.', and exactly two digits of cents. Negative amounts get a"
    " '-' before the '$'.",
    "Given an integer number of `cents`, return the price as a string like '$1,234.05' (dollar"
    " part grouped with commas, cents always two digits). For negative values put the minus sign"
    " first, as in '-$3.10'.",
    examples=[(123405,), (-310,)],
    tests=[(0,), (-1,), (100,), (-99,), (100000000,), (99999,)],
)
def format_cents(cents: int) -> str:
    dollars, rest = divmod(abs(cents), 100)
    sign = "-" if cents < 0 else ""
    return f"{sign}${dollars:,}.{rest:02d}"


@FAMILY.problem(
    "Return the non-negative integer `n` followed by its English ordinal suffix: 'st' for numbers"
    " ending in 1, 'nd' for 2, 'rd' for 3, and 'th' otherwise — except that numbers whose last two"
    " digits are 11, 12 or 13 always take 'th'.",
    "Given `n` >= 0, write it as an ordinal such as '1st', '22nd', '103rd', '11th' or '112th'. The"
    " suffix depends on the last digit (1 -> st, 2 -> nd, 3 -> rd, anything else -> th), but any"
    " number ending in 11, 12 or 13 uses 'th'.",
    examples=[(1,), (112,)],
    tests=[(3,), (11,), (13,), (21,), (42,), (212,), (1004,)],
)
def ordinal(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@FAMILY.problem(
    "Join `items` into an English list: no items gives '', one item is returned as is, two items"
    " are joined with ' and ', and three or more are separated by ', ' with ', and ' before the"
    " last item (the serial comma).",
    "Given a list of strings `items`, produce a phrase such as 'red, green, and blue': with exactly"
    " two items write 'a and b', with a single item just that item, with none the empty string, and"
    " otherwise comma-separate the items and put 'and' before the final one, keeping the comma"
    " before 'and'.",
    examples=[(["red", "green", "blue"],), (["salt", "pepper"],)],
    tests=[([],), (["only"],), (["a", "b"],), (["a", "b", "c", "d"],), (["x", "", "z"],)],
)
def join_english(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return items[0] + " and " + items[1]
    return ", ".join(items[:-1]) + ", and " + items[-1]


@FAMILY.problem(
    "Return a text progress bar of `width` cells for `done` out of `total` steps: '[' + filled"
    " cells '#' + empty cells '-' + ']'. The number of filled cells is done * width // total"
    " (rounded down), with `done` first clamped into the range 0..total. If `total` is 0 the bar"
    " is completely filled.",
    "Given progress `done` of `total` and a bar `width`, draw the bar between square brackets"
    " using '#' for completed cells and '-' for the rest. Completed cells are width times the"
    " completed fraction, rounded down; values of `done` below 0 or above `total` are treated as 0"
    " or `total`, and a job with total 0 counts as finished.",
    examples=[(3, 10, 10), (1, 3, 8)],
    tests=[(0, 2, 4), (5, 5, 4), (7, 5, 4), (-2, 5, 4), (2, 3, 5), (0, 0, 3), (99, 100, 10)],
)
def progress_bar(done: int, total: int, width: int) -> str:
    if total == 0:
        filled = width
    else:
        done = min(max(done, 0), total)
        filled = done * width // total
    return "[" + "#" * filled + "-" * (width - filled) + "]"


@FAMILY.problem(
    "Build one fixed-width record line from `fields` and `widths` (lists of equal length): each"
    " field is cut to at most its width, then padded to exactly its width. A cut field made only of"
    " digits (and not empty) is padded on the left with '0'; any other field is padded on the right"
    " with spaces. Concatenate the padded fields with no separator.",
    "Legacy bank files use fixed-width columns. Given the strings `fields` and their column"
    " `widths`, truncate every field that is too long to its width, then pad it to fill the column"
    " exactly: purely numeric fields (non-empty after cutting, all characters digits) get leading"
    " zeros, anything else gets trailing spaces. Return the concatenation of all columns.",
    examples=[(["ACME", "42", "ok"], [6, 5, 3])],
    tests=[([], []), (["toolongname"], [4]), (["123456"], [3]), (["", "7"], [2, 3]),
           (["-5", "12a", "0"], [4, 4, 2]), (["x", "y"], [0, 1])],
)
def fixed_width_record(fields: list[str], widths: list[int]) -> str:
    out = []
    for field, width in zip(fields, widths):
        cut = field[:width]
        out.append(cut.rjust(width, "0") if cut.isdigit() else cut.ljust(width))
    return "".join(out)


@FAMILY.problem(
    "Convert a 24-hour time (`hour` from 0 to 23, `minute` from 0 to 59) to 12-hour notation"
    " 'H:MM AM' or 'H:MM PM'. Hours 0-11 are AM and 12-23 are PM; hour 0 is shown as 12 and hour"
    " 12 as 12, the hour is not zero-padded and the minutes always have two digits.",
    "Given `hour` and `minute` of a 24-hour clock, return the time as it appears on a 12-hour"
    " clock, e.g. '12:05 AM' for 0:05, '1:30 PM' for 13:30 and '12:00 PM' for noon.",
    examples=[(0, 5), (13, 30)],
    tests=[(12, 0), (11, 59), (23, 9), (1, 0), (10, 10), (0, 0)],
)
def clock_12h(hour: int, minute: int) -> str:
    suffix = "AM" if hour < 12 else "PM"
    shown = hour % 12
    if shown == 0:
        shown = 12
    return f"{shown}:{minute:02d} {suffix}"


@FAMILY.problem(
    "Return report lines for the dictionary `data`, one per key in alphabetical order, each made"
    " of the key, a run of dots, and the value, so that the line is exactly `width` characters"
    " long. At least one dot is always written, even if that makes the line longer than `width`.",
    "Given `data` mapping names to integers and a line `width`, produce a dotted leader report"
    " like 'apples.....3': keys sorted alphabetically, each followed by as many '.' as needed to"
    " make key + dots + value exactly `width` characters, but never fewer than one dot.",
    examples=[({"pears": 12, "apples": 3}, 12)],
    tests=[({}, 10), ({"x": 1}, 3), ({"x": 1}, 2), ({"longname": 100}, 5), ({"b": -4, "a": 0, "c": 55}, 6)],
)
def dotted_report(data: dict[str, int], width: int) -> list[str]:
    lines = []
    for key in sorted(data):
        value = str(data[key])
        dots = max(1, width - len(key) - len(value))
        lines.append(key + "." * dots + value)
    return lines


@FAMILY.problem(
    "Summarise the non-negative integers `nums` (unsorted, possibly with duplicates) as a compact"
    " string. Sort the distinct values; every run of three or more consecutive integers is written"
    " 'first-last', and values in shorter runs are written individually. Join the parts with ','."
    " An empty list gives ''.",
    "A printer dialog shows page selections like '1-4,6,7,9-12'. Given page numbers `nums` in any"
    " order with possible repeats, return that notation: distinct pages in increasing order,"
    " collapsing each stretch of at least three consecutive pages into 'a-b' while pairs and"
    " single pages are listed one by one, all separated by commas without spaces.",
    examples=[([4, 1, 2, 3, 6, 7, 9, 10, 11, 12],), ([5, 5, 6],)],
    tests=[([],), ([3],), ([2, 1],), ([1, 2, 3],), ([8, 1, 3, 2, 3, 5, 9, 10, 7],), ([0, 2, 4, 5, 6, 7, 20],)],
)
def compress_ranges(nums: list[int]) -> str:
    values = sorted(set(nums))
    parts = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i:j + 1])
        i = j + 1
    return ",".join(parts)


@FAMILY.problem(
    "Render `counts` as a horizontal bar chart: one line per label, ordered by count from highest"
    " to lowest and alphabetically among equal counts. Each line is the label left-justified to"
    " the length of the longest label, then ' | ', then as many '*' as the count.",
    "Given a dictionary `counts` of label -> non-negative count, return the lines of a text"
    " histogram. Sort labels by decreasing count, ties alphabetically; pad every label with spaces"
    " on the right to the longest label's length, follow it with ' | ' and a bar of count"
    " asterisks (a zero count leaves the bar empty but keeps ' | ').",
    examples=[({"cat": 3, "dog": 5, "bird": 1},)],
    tests=[({},), ({"x": 0},), ({"a": 2, "b": 2, "c": 1},), ({"long label": 1, "s": 4},), ({"z": 3, "y": 0, "w": 3},)],
)
def histogram_bars(counts: dict[str, int]) -> list[str]:
    width = max((len(label) for label in counts), default=0)
    order = sorted(counts, key=lambda label: (-counts[label], label))
    return [label.ljust(width) + " | " + "*" * counts[label] for label in order]


@FAMILY.problem(
    "Return the integer `n` as a string with an explicit sign: '+' before positive numbers, '-'"
    " before negative ones, and zero written as '0' with no sign.",
    "Given an integer `n`, format it the way score changes are shown, e.g. '+5' or '-3'; a"
    " positive number gets a leading plus sign and 0 stays plain '0'.",
    examples=[(5,), (-3,)],
    tests=[(0,), (1,), (-1,), (120,), (-4500,)],
    level=1,
)
def with_sign(n: int) -> str:
    if n > 0:
        return "+" + str(n)
    return str(n)


@FAMILY.problem(
    "Return the strings of `items` as a bulleted list: each item on its own line, prefixed with"
    " '- ', and the lines joined by '\\n' (no newline at the end). An empty list gives ''.",
    "Given a list of strings `items`, build the text of a bulleted list in which every line is"
    " '- ' followed by one item, in order, with a single newline between lines; no items means an"
    " empty string.",
    examples=[(["milk", "eggs"],), ([],)],
    tests=[(["one"],), (["", "x"],), (["a", "b", "c"],), (["buy bread", "call mum"],)],
    level=1,
)
def bullet_lines(items: list[str]) -> str:
    return "\n".join("- " + item for item in items)


@FAMILY.problem(
    "Return `title` with one space on each side, centred in a line of `width` characters filled"
    " with '=' (as Python's str.center does). If the padded title is already at least `width`"
    " long, return it without '=' characters.",
    "Given `title` and a line `width`, make a banner: put a space before and after `title`, then"
    " centre that string in `width` characters using '=' as the fill character, exactly like"
    " str.center(width, '='). A title too long for the width just gets its two spaces.",
    examples=[("Menu", 12), ("Results", 5)],
    tests=[("", 4), ("", 1), ("ab", 9), ("abc", 10), ("x", 3), ("Report", 20)],
    level=1,
)
def banner(title: str, width: int) -> str:
    return (" " + title + " ").center(width, "=")


@FAMILY.problem(
    "Format the dictionary `data` as one line 'key=value' pairs separated by ', ', with the keys in"
    " alphabetical order. An empty dictionary gives ''.",
    "Given a dictionary `data` from strings to integers, return a string like 'a=1, b=2': each"
    " entry written as key, '=', value, the entries sorted by key and separated by a comma and a"
    " space.",
    examples=[({"b": 2, "a": 1},), ({},)],
    tests=[({"x": 0},), ({"zeta": -1, "alpha": 10, "mid": 5},), ({"B": 1, "a": 2},), ({"k": 7, "j": 7},)],
    level=1,
)
def key_value_line(data: dict[str, int]) -> str:
    return ", ".join(key + "=" + str(data[key]) for key in sorted(data))


@FAMILY.problem(
    "Return the numbers in `nums` as one line in which every number is right-aligned in a field of"
    " `width` characters (width >= 1) and the fields are separated by a single space. A number"
    " that does not fit in `width` characters is shown as `width` '#' characters instead, like a"
    " spreadsheet does. An empty list gives ''.",
    "Given a list of integers `nums` and a column `width` (at least 1), pad each number on the"
    " left with spaces to `width` characters and join the fields with one space. When a number's"
    " text is longer than `width`, its field is filled with '#' characters instead.",
    examples=[([1, 22, 333], 3), ([5, -7, 1234], 2)],
    tests=[([], 4), ([0], 2), ([10, 200, 3], 2), ([-1, 12], 4), ([123456], 3), ([7, 80, 9], 1),
           ([-10, 100], 3)],
    level=1,
)
def aligned_row(nums: list[int], width: int) -> str:
    return " ".join("#" * width if len(str(n)) > width else str(n).rjust(width) for n in nums)


@FAMILY.problem(
    "Return a short label for the non-negative count `n`: below 1000 the number itself, otherwise"
    " the number of whole thousands followed by 'k' (rounded down, so 1999 is '1k').",
    "Given a like counter `n` (n >= 0), display it compactly: values under 1000 are written as"
    " they are, larger values as n // 1000 followed by the letter 'k', e.g. 25400 becomes '25k'.",
    examples=[(999,), (25400,)],
    tests=[(0,), (1000,), (1999,), (42,), (1000000,), (10500,)],
    level=1,
)
def thousands_label(n: int) -> str:
    if n < 1000:
        return str(n)
    return str(n // 1000) + "k"
