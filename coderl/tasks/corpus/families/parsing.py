from coderl.tasks.corpus.define import Family

FAMILY = Family("parsing", "parse small text formats: key=value lists, CSV, versions, durations, RPN, queries")


@FAMILY.problem(
    "Parse `text`, a list of `key=value` pairs separated by semicolons, into a dict. Strip spaces"
    " around keys and values, skip segments that are empty or contain no `=`, split each segment"
    " at its first `=` only, and let a later pair overwrite an earlier one with the same key.",
    "A settings string looks like `\"host = a; port=80;;debug\"`. Given text, build a dictionary"
    " from its semicolon-separated `key=value` segments: keys and values are whitespace-stripped,"
    " a segment is split at the first `=` (the value may contain more `=`), segments without `=`"
    " (or blank ones) are ignored, and when a key repeats the last value wins.",
    examples=[("host = example.org; port=8080",), ("a=1;;b;a=2",)],
    tests=[("",), ("  ;  ; ",), ("token=abc=def",), ("x = 1 ; y= 2;x=3",), ("=empty; k=",),
           ("name=Ann Lee;age=30;city= Oslo ",)],
)
def parse_key_values(text: str) -> dict[str, str]:
    result = {}
    for segment in text.split(";"):
        if "=" not in segment:
            continue
        key, value = segment.split("=", 1)
        result[key.strip()] = value.strip()
    return result


@FAMILY.problem(
    "Parse `text` as a simple CSV document with no quoting: rows are separated by newlines and"
    " fields by commas. Strip spaces around every field and skip lines that are empty or contain"
    " only whitespace. Return the rows as a list of lists of strings, in order.",
    "Given text holding comma-separated rows (one per line, no quotes or escapes), return a list"
    " with one list of field strings per non-blank line. Each field has its surrounding whitespace"
    " removed; blank lines produce no row, but empty fields inside a row are kept as \"\".",
    examples=[("name, age\nAnn, 31\n\nBo,7",)],
    tests=[("",), ("\n  \n",), ("a,,b",), ("x\ny\n",), (" 1 , 2 ,3 \n4,5, 6\n\n7 ",), ("solo",)],
)
def parse_simple_csv(text: str) -> list[list[str]]:
    rows = []
    for line in text.split("\n"):
        if line.strip():
            rows.append([field.strip() for field in line.split(",")])
    return rows


@FAMILY.problem(
    "Compare two version strings `a` and `b` made of dot-separated non-negative integers, each"
    " optionally prefixed by `v` or `V`. Missing trailing parts count as 0, so \"1.2\" equals"
    " \"1.2.0\". Return -1 if a is older than b, 1 if it is newer, and 0 if they are equal.",
    "A package manager must decide which of two versions a and b is newer. Versions look like"
    " \"v1.10.2\" or \"2.0\": an optional leading v/V, then integers separated by dots, compared"
    " numerically part by part from the left (a shorter version is padded with zeros). Return 1"
    " when a is newer, -1 when b is newer, and 0 when they are the same version.",
    examples=[("1.2", "1.10"), ("v2.0", "2")],
    tests=[("1.0.1", "1"), ("3.4.5", "3.4.5"), ("V10.0", "9.9.9"), ("1.2", "1.2.0.1"),
           ("0.9", "v0.10"), ("2.1", "2.0.9"), ("1.2.0", "v1.2"), ("1.2", "1.2.0")],
)
def compare_versions(a: str, b: str) -> int:
    pa = [int(p) for p in a.lstrip("vV").split(".")]
    pb = [int(p) for p in b.lstrip("vV").split(".")]
    size = max(len(pa), len(pb))
    pa += [0] * (size - len(pa))
    pb += [0] * (size - len(pb))
    return (pa > pb) - (pa < pb)


@FAMILY.problem(
    "Convert a duration string such as \"1h30m\" or \"2d4h15s\" into a number of seconds. `text`"
    " is a sequence of integers each followed by a unit letter: d (day), h (hour), m (minute) or"
    " s (second); units may appear in any order and may repeat (their amounts add up). An empty"
    " string is 0 seconds.",
    "Given text like \"45m\" or \"1d2h3m4s\" (numbers immediately followed by one of the units d,"
    " h, m, s), return the total length in seconds, where a day is 86400 seconds, an hour 3600"
    " and a minute 60. Every number counts, even when a unit is used twice; \"\" gives 0.",
    examples=[("1h30m",), ("2d15s",)],
    tests=[("",), ("90s",), ("10m5m",), ("1d1h1m1s",), ("3h",), ("120m2d",), ("0h7s",)],
)
def duration_to_seconds(text: str) -> int:
    sizes = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    total = 0
    number = ""
    for ch in text:
        if ch.isdigit():
            number += ch
        else:
            total += int(number) * sizes[ch]
            number = ""
    return total


@FAMILY.problem(
    "Evaluate `expression`, an arithmetic expression in reverse Polish notation whose tokens are"
    " separated by spaces. Tokens are integers (possibly negative, like -3) and the operators +,"
    " -, * and / where / is floor division (Python's //). Return the result, or None if the"
    " expression is malformed (an operator finds fewer than two operands, or not exactly one value"
    " is left at the end) or divides by zero.",
    "A pocket calculator reads postfix input: given expression such as \"3 4 + 2 *\", push numbers"
    " on a stack and let each of + - * / pop two values (the first popped is the right operand)"
    " and push the result, using floor division for /. Return the single value left, or None when"
    " the input is not a valid postfix expression (stack underflow, leftover values, empty input)"
    " or when it divides by zero. Negative numbers such as -5 are single tokens.",
    examples=[("3 4 + 2 *",), ("7 2 /",)],
    tests=[("",), ("5",), ("1 +",), ("1 2",), ("10 3 -",), ("-7 2 /",), ("4 0 /",),
           ("2 3 4 * + 5 -",)],
)
def eval_rpn(expression: str) -> int | None:
    stack = []
    for token in expression.split():
        if token in ("+", "-", "*", "/"):
            if len(stack) < 2:
                return None
            right = stack.pop()
            left = stack.pop()
            if token == "+":
                stack.append(left + right)
            elif token == "-":
                stack.append(left - right)
            elif token == "*":
                stack.append(left * right)
            else:
                if right == 0:
                    return None
                stack.append(left // right)
        else:
            stack.append(int(token))
    return stack[0] if len(stack) == 1 else None


@FAMILY.problem(
    "Parse the URL query string `query` (an optional leading `?` is ignored) into a dict mapping"
    " each key to the list of its values in order of appearance. Pairs are separated by `&`, a"
    " pair is split at its first `=`, a pair without `=` gets the value \"\", empty pairs are"
    " skipped, and every `+` in keys and values stands for a space.",
    "Given query, the part of a URL after the question mark (it may still start with `?`), return"
    " a dictionary from key to a list of all values given for that key, in the order they appear."
    " Split on `&`, skip empty pieces, split each piece at the first `=` (no `=` means the value is"
    " the empty string), and replace `+` with a space in both key and value.",
    examples=[("?tag=a&tag=b&q=hello+world",)],
    tests=[("",), ("?",), ("?flag&x=1",), ("a=1&&a=2&b=",), ("eq=a=b&first+name=Jo+Ann",),
           ("k=3&j=1&k=2",)],
)
def parse_query_string(query: str) -> dict[str, list[str]]:
    if query.startswith("?"):
        query = query[1:]
    result = {}
    for pair in query.split("&"):
        if not pair:
            continue
        key, _, value = pair.partition("=")
        result.setdefault(key.replace("+", " "), []).append(value.replace("+", " "))
    return result


@FAMILY.problem(
    "Bump the semantic version `version` (\"MAJOR.MINOR.PATCH\") according to `part`, which is"
    " \"major\", \"minor\" or \"patch\". Increasing a part resets every part to its right to 0."
    " Return the new version string; if part is none of the three, return version unchanged.",
    "Release tooling: given version like \"1.4.2\" and the name of the part to bump, return the"
    " next version. \"patch\" adds one to the last number, \"minor\" adds one to the middle number"
    " and zeroes the patch, \"major\" adds one to the first number and zeroes the other two. Any"
    " other part name leaves version as it is.",
    examples=[("1.4.2", "minor"), ("0.9.9", "patch")],
    tests=[("1.4.2", "major"), ("1.4.2", "patch"), ("2.0.0", "build"), ("0.0.0", "minor"),
           ("9.19.99", "patch"), ("3.7.1", "major"), ("10.1.9", "minor")],
)
def bump_version(version: str, part: str) -> str:
    major, minor, patch = (int(x) for x in version.split("."))
    if part == "major":
        major, minor, patch = major + 1, 0, 0
    elif part == "minor":
        minor, patch = minor + 1, 0
    elif part == "patch":
        patch += 1
    return f"{major}.{minor}.{patch}"


@FAMILY.problem(
    "Convert a stopwatch reading `text` into seconds. The reading is \"SS\", \"MM:SS\" or"
    " \"HH:MM:SS\" (fields are non-negative integers and need not be padded), so \"1:05\" is 65"
    " seconds and \"2:00:01\" is 7201 seconds.",
    "Given text with one, two or three colon-separated numbers, read them as seconds, minutes:"
    " seconds or hours:minutes:seconds and return the total number of seconds.",
    examples=[("1:05",), ("2:00:01",)],
    tests=[("42",), ("0:00",), ("10:00",), ("1:1:1",), ("0:59:59",), ("3:07",)],
)
def clock_to_seconds(text: str) -> int:
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


@FAMILY.problem(
    "`text` is a CSV table without quoting whose first line is a header of column names. Return"
    " the values of the column named `column` from every following row, in order, with spaces"
    " around values stripped. Rows that are blank are skipped, a row too short for the column"
    " contributes \"\", and an unknown column (or empty text) gives [].",
    "Given the CSV text (header line first, comma-separated, no quotes) and a column name, extract"
    " that column as a list of strings. Header names and values are whitespace-stripped, blank"
    " lines are ignored, missing trailing fields read as the empty string, and if column is not"
    " in the header return an empty list.",
    examples=[("name,age\nAnn,31\nBo,7", "age")],
    tests=[("", "x"), ("a,b\n1,2", "c"), ("a, b ,c\n1,2,3\n\n4, 5 ,6", "b"), ("k,v\nx\n   \ny,1", "v"),
           ("id\n1\n2\n3", "id"), ("p,q\n1,2\n3,4", "p")],
)
def csv_column(text: str, column: str) -> list[str]:
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return []
    header = [name.strip() for name in lines[0].split(",")]
    if column not in header:
        return []
    index = header.index(column)
    values = []
    for line in lines[1:]:
        fields = line.split(",")
        values.append(fields[index].strip() if index < len(fields) else "")
    return values


@FAMILY.problem(
    "Parse `text` in a tiny INI format into a dict of sections, each a dict of string keys to"
    " string values. A line `[name]` starts a section (name stripped); a line `key = value` (split"
    " at the first `=`, both sides stripped) belongs to the current section, or to the section \"\""
    " if no header has appeared yet. Blank lines, lines starting with `#` or `;` after leading"
    " spaces, and other lines without `=` are ignored. A section that is declared but has no keys"
    " still appears with an empty dict; a repeated key keeps the last value.",
    "Given the text of a configuration file, return {section: {key: value}}. Section headers look"
    " like `[server]`; settings look like `port = 80`; settings before the first header go into"
    " section \"\" (which only exists if it has settings). Comment lines (first non-space"
    " character `#` or `;`), blank lines and lines with no `=` are skipped. Strip whitespace"
    " around names, keys and values; later duplicates override earlier ones.",
    examples=[("[db]\nhost = x\nport=5\n# note\n[cache]",)],
    tests=[("",), ("a=1\n[s]\nb=2",), ("  ; hidden=1\n[x]\nk = v = w\nk=2",), ("[ top ]\nnoequals",),
           ("[s]\nlist = [1,2]\n[bad=1",),
           ("[a]\nx=1\n[b]\n[a]\ny=2",), ("#c=1\nz = 9",)],
)
def parse_ini(text: str) -> dict[str, dict[str, str]]:
    sections = {}
    current = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            sections.setdefault(current, {})
        elif "=" in line:
            key, value = line.split("=", 1)
            sections.setdefault(current, {})[key.strip()] = value.strip()
    return sections


@FAMILY.problem(
    "Parse a human-friendly number `text` such as \"1.5k\", \"20M\" or \"300\" into an integer."
    " An optional final suffix multiplies the number: k or K by 1000, m or M by 1000000, b or B by"
    " 1000000000. The number part may have a decimal point; round the result to the nearest"
    " integer.",
    "Social media counters show \"12.3K\" followers. Given text made of a decimal number and an"
    " optional case-insensitive suffix (k = thousand, m = million, b = billion), return the value"
    " it stands for as an int, rounded to the nearest whole number.",
    examples=[("1.5k",), ("20M",)],
    tests=[("300",), ("0.25K",), ("12.5k",), ("7b",), ("3.4m",), ("12",), ("999.9",)],
)
def parse_abbreviated_number(text: str) -> int:
    scale = {"k": 1000, "m": 1000000, "b": 1000000000}
    suffix = text[-1].lower()
    if suffix in scale:
        return round(float(text[:-1]) * scale[suffix])
    return round(float(text))


@FAMILY.problem(
    "Split the arithmetic expression `expr` into tokens: each maximal run of digits is one number"
    " token and each of the characters + - * / ( ) is its own token. Any other character, such"
    " as a space, is dropped but still ends a number, so \"1 2\" gives [\"1\", \"2\"]. Return the"
    " tokens as a list of strings in order.",
    "Write the tokenizer of a calculator. Given expr such as \"12+(3 * 45)\", return the list of"
    " its tokens, where consecutive digits form a single number token, every operator or"
    " parenthesis (+, -, *, /, (, )) is a separate token, and whitespace is skipped (so \"1 2\""
    " gives two tokens).",
    examples=[("12+(3 * 45)",)],
    tests=[("",), ("   ",), ("7",), ("1 2",), ("((10-2)/4)*300",), ("-5+66",)],
)
def tokenize_expression(expr: str) -> list[str]:
    tokens = []
    number = ""
    for ch in expr:
        if ch.isdigit():
            number += ch
            continue
        if number:
            tokens.append(number)
            number = ""
        if ch in "+-*/()":
            tokens.append(ch)
    if number:
        tokens.append(number)
    return tokens


@FAMILY.problem(
    "Evaluate `expr`, made of non-negative integers joined by the operators +, - and *, strictly"
    " from left to right with no operator precedence, so \"2+3*4\" is 20. Spaces may appear"
    " anywhere between tokens and are ignored.",
    "A cheap four-function calculator applies each operator as soon as it is typed. Given expr"
    " like \"10 - 4 * 3\" (non-negative whole numbers and + - * only), return the value obtained by"
    " applying the operators one after another from the left, ignoring the usual precedence"
    " rules. The result may be negative.",
    examples=[("2+3*4",), ("10 - 4 * 3",)],
    tests=[("7",), ("1-5",), ("2*3-10",), ("12 + 30*2 - 4",), ("0*99+1",), ("5 - 2 - 1",)],
)
def evaluate_left_to_right(expr: str) -> int:
    text = expr.replace(" ", "")
    result = 0
    op = "+"
    number = ""
    for ch in text + "+":
        if ch.isdigit():
            number += ch
            continue
        value = int(number)
        if op == "+":
            result += value
        elif op == "-":
            result -= value
        else:
            result *= value
        op, number = ch, ""
    return result


@FAMILY.problem(
    "Parse a screen resolution `text` of the form \"WIDTHxHEIGHT\" (the separator is x or X, and"
    " spaces before or after either number are ignored) into a tuple (width, height) of positive integers. Return None"
    " if the text does not have exactly two parts made only of digits or if either number is 0.",
    "Given text such as \"1920x1080\" or \"800 X 600\", return (width, height) as integers;"
    " whitespace around the numbers does not matter. If the text is not two digit-only numbers"
    " separated by a single x/X, or a dimension is zero, return None instead.",
    examples=[("1920x1080",), ("800 X 600",)],
    tests=[("",), ("1024",), ("0x480",), ("640x0",), ("12x34x56",), ("a0x10",), (" 3X4 ",), ("5x-5",),
           ("-5x5",)],
)
def parse_resolution(text: str) -> tuple[int, int] | None:
    parts = text.lower().split("x")
    if len(parts) != 2:
        return None
    width, height = parts[0].strip(), parts[1].strip()
    if not (width.isdigit() and height.isdigit()):
        return None
    if int(width) == 0 or int(height) == 0:
        return None
    return (int(width), int(height))


@FAMILY.problem(
    "Count log lines by level. Each line of `lines` that starts with a level in square brackets,"
    " like \"[warn] disk low\", counts once for that level, upper-cased; lines that do not start"
    " with `[` or have no closing `]` are ignored. Return a dict from level to count.",
    "Given a list of log lines, tally how many lines carry each severity. The severity is the"
    " text between a leading `[` and the first `]`, compared case-insensitively and reported in"
    " upper case (\"[Info]\" and \"[INFO]\" are the same). Lines without a leading bracketed"
    " level are not counted. Return {level: count}.",
    examples=[(["[INFO] start", "[warn] disk", "[info] stop", "plain"],)],
    tests=[([],), (["no level", " [INFO] indented"],), (["[ERROR] x", "[error]", "[Error] y"],),
           (["[broken line", "[DEBUG]a", "[debug] b", "[WARN]c"],), (["[] empty"],)],
)
def count_log_levels(lines: list[str]) -> dict[str, int]:
    counts = {}
    for line in lines:
        if not line.startswith("[") or "]" not in line:
            continue
        level = line[1:line.index("]")].upper()
        counts[level] = counts.get(level, 0) + 1
    return counts


@FAMILY.problem(
    "Parse `text`, integers separated by commas with optional spaces around them, into a list of"
    " ints. Empty pieces (such as in \"\" or \"1,,2\") are skipped.",
    "Given a string like \" 4, -2,10\", split it on commas and return the numbers as integers in"
    " order, ignoring pieces that are blank.",
    examples=[(" 4, -2,10",), ("",)],
    tests=[("7",), ("1,,2",), (" , ",), ("0, 0,0",), ("-5 ,15, 300 ,",)],
    level=1,
)
def parse_int_list(text: str) -> list[int]:
    return [int(piece) for piece in text.split(",") if piece.strip()]


@FAMILY.problem(
    "Return the extension of `filename`: the text after its last dot, in lower case. If filename"
    " has no dot, return \"\".",
    "Given a file name such as \"photo.JPG\" or \"backup.tar.gz\", return what follows the final"
    " '.', lower-cased; a name without any '.' has the empty extension \"\".",
    examples=[("photo.JPG",), ("README",)],
    tests=[("backup.tar.gz",), (".bashrc",), ("notes.",), ("",), ("Data.CSV",), ("a.b.Txt",)],
    level=1,
)
def file_extension(filename: str) -> str:
    return filename.rsplit(".", 1)[1].lower() if "." in filename else ""


@FAMILY.problem(
    "Return how many fields the record `line` has when it is split on the separator `sep`. An"
    " empty line has 0 fields; otherwise empty fields between separators still count.",
    "Given a line of delimited data and its delimiter sep, count its fields: \"a;b;;c\" with \";\""
    " has 4. The empty string is treated as having no fields at all.",
    examples=[("a;b;;c", ";"), ("", ",")],
    tests=[("", ";"), ("x", ","), (",", ","), ("1|2|3", "|"), ("one two", ","), ("a,b,c,", ","), ("::", ":")],
    level=1,
)
def count_fields(line: str, sep: str) -> int:
    return len(line.split(sep)) if line else 0


@FAMILY.problem(
    "Return the last component of the slash-separated `path`, ignoring any trailing slashes. For"
    " \"/\" or \"\" return \"\".",
    "Given a path such as \"/usr/local/bin/\" or \"docs/readme.md\", strip trailing '/' characters"
    " and return the part after the last remaining '/' (the whole string if there is none).",
    examples=[("/usr/local/bin/",), ("docs/readme.md",)],
    tests=[("file.txt",), ("/",), ("",), ("a/b//",), ("/home",), ("x/y/z",)],
    level=1,
)
def last_path_part(path: str) -> str:
    return path.rstrip("/").split("/")[-1]


@FAMILY.problem(
    "Return True if `text`, ignoring surrounding whitespace and letter case, is one of \"yes\","
    " \"true\", \"on\" or \"1\"; return False for anything else.",
    "A config file writes switches as words. Given the raw value text, strip it, lower-case it and"
    " report whether it means enabled: only \"yes\", \"true\", \"on\" and \"1\" do.",
    examples=[(" Yes ",), ("off",)],
    tests=[("TRUE",), ("1",), ("0",), ("",), ("On",), ("yes please",), ("no",)],
    level=1,
)
def parse_bool(text: str) -> bool:
    return text.strip().lower() in ("yes", "true", "on", "1")


@FAMILY.problem(
    "Return the major version number of `version`, the integer before the first dot. version is"
    " made of dot-separated integers and may start with \"v\" or \"V\"; with no dot, the whole"
    " number is the major version.",
    "Given a version string such as \"v2.10.3\" or \"7\", drop a leading v/V and return the first"
    " dot-separated part as an int.",
    examples=[("v2.10.3",), ("7",)],
    tests=[("10.0",), ("V0.9.1",), ("3",), ("12.4",), ("v1",)],
    level=1,
)
def major_version(version: str) -> int:
    return int(version.lstrip("vV").split(".")[0])
