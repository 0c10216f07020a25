from coderl.tasks.corpus.define import Family

FAMILY = Family("strings", "string manipulation: transform, clean, split/join, case")


@FAMILY.problem(
    "Convert the snake_case identifier `name` to lowerCamelCase. Split `name` on underscores and"
    " ignore empty pieces (so repeated, leading or trailing underscores disappear). The first piece"
    " is written entirely in lower case; every later piece gets an upper-case first letter and the"
    " rest lower case. Return an empty string if there are no pieces.",
    "Given a snake_case `name`, build its lowerCamelCase form: the underscore-separated pieces"
    " (empty pieces dropped) are glued together, the first one all lower case and each following"
    " one capitalised (first letter upper, remaining letters lower). A name made only of"
    " underscores gives ''.",
    examples=[("user_account_id",), ("__private__value",)],
    tests=[("",), ("___",), ("HTTP_STATUS_CODE",), ("a",), ("x__y_z_",), ("already",), ("mixed_CaSe_wORDS",)],
)
def snake_to_camel(name: str) -> str:
    parts = [p for p in name.split("_") if p]
    if not parts:
        return ""
    return parts[0].lower() + "".join(p[0].upper() + p[1:].lower() for p in parts[1:])


@FAMILY.problem(
    "Return the kebab-case form of the camelCase or PascalCase identifier `name`: put a hyphen"
    " before every upper-case letter that is not the first character, then make the whole result"
    " lower case. Every upper-case letter starts a new part, so consecutive capitals are split"
    " apart too.",
    "A style checker wants identifiers like `parseHttpRequest` written as `parse-http-request`."
    " Given `name`, insert '-' in front of each upper-case character except one at index 0 and"
    " lower-case everything. An empty name stays empty.",
    examples=[("parseHttpRequest",), ("UserID",)],
    tests=[("",), ("x",), ("Already",), ("lower",), ("getXMLValue",), ("A",), ("aB",)],
)
def camel_to_kebab(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0:
            out.append("-")
        out.append(ch.lower())
    return "".join(out)


@FAMILY.problem(
    "Tidy the multi-line string `text`: within each line (lines are separated by '\\n'), replace"
    " every run of spaces and tabs by a single space and remove whitespace at both ends of the line."
    " Lines that end up empty are dropped. Return the remaining lines joined by '\\n' ('' if none"
    " remain).",
    "Given `text` made of '\\n'-separated lines, return a cleaned copy in which every line has"
    " exactly one space between its words and no leading or trailing whitespace, and blank lines"
    " (empty or whitespace only) are removed entirely. The kept lines stay in order, joined by"
    " newlines.",
    examples=[("  hello   \t world \n\n  bye ",)],
    tests=[("",), ("   \n\t\n",), ("one",), ("a  b\nc\t\td",), ("\n x  y \n\n z\n",), ("tight words",)],
)
def tidy_lines(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


@FAMILY.problem(
    "Hide all but the last `visible` characters of `secret` by replacing each hidden character"
    " with '*'. If `visible` is 0 every character is hidden; if `visible` is at least the length of"
    " `secret`, return `secret` unchanged.",
    "A payment page shows card numbers like '************1234'. Given the string `secret` and a"
    " non-negative count `visible`, return a string of the same length in which only the final"
    " `visible` characters are kept and every earlier character is an asterisk. When `visible` is"
    " zero the result is all asterisks; when it covers the whole string nothing is masked.",
    examples=[("4111222233334444", 4), ("abc", 5)],
    tests=[("", 3), ("secret", 0), ("secret", 1), ("secret", 6), ("secret", 5), ("pin", 9)],
)
def mask_secret(secret: str, visible: int) -> str:
    hidden = max(0, len(secret) - visible)
    return "*" * hidden + secret[hidden:]


@FAMILY.problem(
    "Return the initials of `full_name`: the first letter of every name part, upper-cased and"
    " each followed by a period, with nothing between them. Parts are separated by whitespace or"
    " by hyphens, and empty parts are ignored. A name with no parts gives ''.",
    "Given a person's `full_name`, produce initials such as 'J.L.P.' for 'jean-luc picard'. Both"
    " spaces and hyphens split the name into parts (ignore empty parts); take the first character"
    " of each part, write it in upper case followed by '.', and concatenate.",
    examples=[("jean-luc picard",), ("Ada Lovelace",)],
    tests=[("",), ("   ",), ("madonna",), ("mary  ann -  smith",), ("o'neil ryan",), ("a-b-c d",)],
)
def initials(full_name: str) -> str:
    parts = full_name.replace("-", " ").split()
    return "".join(p[0].upper() + "." for p in parts)


@FAMILY.problem(
    "Shorten `text` to whole words. Take the whitespace-separated words of `text` in order and keep"
    " the longest prefix of them whose single-space-joined length is at most `limit`. If every word"
    " fits, return the words joined by single spaces. Otherwise return the kept words joined by"
    " single spaces followed by '...' (just '...' if not even the first word fits).",
    "Given `text` and a character budget `limit`, build a preview: join words with one space for as"
    " long as the joined string stays within `limit` characters. If some words had to be dropped,"
    " append '...' directly after the kept words (the dots do not count toward the limit); if"
    " nothing was dropped, return the joined words as they are.",
    examples=[("the quick brown fox", 10), ("short", 10)],
    tests=[("", 5), ("hello world", 11), ("hello world", 10), ("hello world", 5), ("a b c d", 3),
           ("  spaced   out   words ", 100), ("one two", 0)],
)
def truncate_words(text: str, limit: int) -> str:
    words = text.split()
    kept: list[str] = []
    length = 0
    for word in words:
        extra = len(word) + (1 if kept else 0)
        if length + extra > limit:
            return " ".join(kept) + "..."
        kept.append(word)
        length += extra
    return " ".join(kept)


@FAMILY.problem(
    "Interleave the characters of `a` and `b`, one at a time, starting with whichever string is"
    " longer (with `a` first when they have equal length). When one string runs out, append the"
    " rest of the other.",
    "Given two strings `a` and `b`, merge them by alternating characters. The longer string"
    " supplies the first character; if both are the same length, `a` goes first. Once the shorter"
    " string is exhausted, the remaining characters of the longer one are added in order.",
    examples=[("abc", "12"), ("xy", "1234")],
    tests=[("", ""), ("", "zz"), ("q", ""), ("ab", "12"), ("a", "123"), ("hello", "world!")],
)
def interleave_longer_first(a: str, b: str) -> str:
    first, second = (a, b) if len(a) >= len(b) else (b, a)
    out = []
    for i in range(len(first)):
        out.append(first[i])
        if i < len(second):
            out.append(second[i])
    return "".join(out)


@FAMILY.problem(
    "Remove every parenthesised part of `text`, including the parentheses, and return the rest."
    " Parentheses may be nested; everything from an opening '(' to its matching ')' disappears. A"
    " ')' that has no matching '(' is kept as an ordinary character, and if a '(' is never closed,"
    " everything from it to the end is removed.",
    "Given `text`, delete the contents of round brackets together with the brackets themselves,"
    " handling nesting by tracking depth. Characters at depth zero are kept, except that an"
    " unmatched closing ')' at depth zero is kept as is. An opening bracket that is never closed"
    " swallows the rest of the string.",
    examples=[("call (me) maybe",), ("a(b(c)d)e",)],
    tests=[("",), ("no brackets",), ("x)y(z",), ("(all gone)",), ("keep) this (drop (deep)) end",),
           ("((a)(b))c",)],
)
def strip_parenthesised(text: str) -> str:
    depth = 0
    out = []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Reverse the letters of every word of `text` that has at least `min_len` characters, leaving"
    " shorter words as they are. Words are separated by single spaces and the spaces are kept"
    " exactly where they were.",
    "Given a sentence `text` whose words are separated by single spaces and a threshold `min_len`,"
    " return the sentence with each word of length `min_len` or more written backwards; words"
    " shorter than `min_len` are unchanged and the word order stays the same.",
    examples=[("hello big world", 4), ("ab cd", 1)],
    tests=[("", 2), ("abc", 3), ("abc", 4), ("one two three four", 4), ("a  b", 1), ("Stressed Desserts", 9)],
)
def reverse_long_words(text: str, min_len: int) -> str:
    return " ".join(w[::-1] if len(w) >= min_len else w for w in text.split(" "))


@FAMILY.problem(
    "Title-case the headline `text`: each whitespace-separated word gets an upper-case first letter"
    " and the rest lower case, except words whose lower-case form is in `minor`, which are written"
    " entirely in lower case. The first word is always capitalised, even if it is minor. Return the"
    " words joined by single spaces.",
    "A newspaper styles headlines so that small words like 'of' and 'the' stay lower case. Given"
    " `text` and the list `minor` of lower-case small words, return the headline with words joined"
    " by one space: the first word and every word not in `minor` (compared case-insensitively) is"
    " capitalised (first letter upper, rest lower); minor words after the first are all lower case.",
    examples=[("the lord OF the rings", ["of", "the"]), ("war and peace", ["and"])],
    tests=[("", ["a"]), ("a tale", ["a"]), ("THE END", []), ("gone with the wind", ["with", "the"]),
           ("  of  mice AND MEN ", ["of", "and"]), ("x", [])],
)
def headline_case(text: str, minor: list[str]) -> str:
    out = []
    for i, word in enumerate(text.split()):
        if i > 0 and word.lower() in minor:
            out.append(word.lower())
        else:
            out.append(word[0].upper() + word[1:].lower())
    return " ".join(out)


@FAMILY.problem(
    "Return `text` with every run of identical consecutive characters shortened to at most"
    " `max_run` characters. Runs that are already short enough are unchanged. `max_run` is at"
    " least 1.",
    "Given `text` and a positive limit `max_run`, squeeze stuttering such as 'sooooo' down to"
    " 'soo' (for max_run 2): scan the string and drop a character whenever it would make the"
    " current run of equal characters longer than `max_run`.",
    examples=[("sooooo goood", 2), ("aaabbb", 1)],
    tests=[("", 3), ("abc", 1), ("aaaa", 3), ("aaaa", 4), ("aabbaa", 1), ("!!!??!!!", 2), ("xxyyyzzzz", 3)],
)
def limit_runs(text: str, max_run: int) -> str:
    from itertools import groupby

    return "".join(ch * min(len(list(group)), max_run) for ch, group in groupby(text))


@FAMILY.problem(
    "Return the longest common directory prefix of the '/'-separated paths in `paths`. Compare"
    " whole components, not characters: split each path on '/', keep the longest list of leading"
    " components shared by all paths, and join it back with '/'. Return '' for an empty list or"
    " when the first components already differ.",
    "Given a list of file paths `paths` such as 'src/app/main.py', find the deepest folder they all"
    " live under: the longest run of leading '/'-separated components that every path has in"
    " common, re-joined with '/'. 'src/ap' is never a result for 'src/app' and 'src/apple', since"
    " components are compared as whole strings. No paths, or no shared first component, gives ''.",
    examples=[(["src/app/main.py", "src/app/util.py", "src/lib.py"],), (["a/b", "c/d"],)],
    tests=[([],), (["only/one/path"],), (["src/app/x", "src/apple/y"],), (["a/b/c", "a/b/c"],),
           (["a/b/c/d", "a/b/c", "a/b/x/d"],), (["/root/a", "/root/b"],),
           (["src", "src/app"],), (["x/same", "y/same"],)],
)
def common_directory(paths: list[str]) -> str:
    if not paths:
        return ""
    common = paths[0].split("/")
    for path in paths[1:]:
        parts = path.split("/")
        n = 0
        while n < len(common) and n < len(parts) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    return "/".join(common)


@FAMILY.problem(
    "Return `text` with its two halves swapped. For an even length the second half comes first,"
    " then the first half. For an odd length the middle character stays in the middle: the part"
    " after it, then the middle character, then the part before it.",
    "Given `text`, cut it into a front half and a back half of equal length (leaving the middle"
    " character aside when the length is odd) and return back + middle + front.",
    examples=[("abcdef",), ("abcde",)],
    tests=[("",), ("a",), ("ab",), ("abc",), ("hello world",), ("12345678",)],
)
def swap_halves(text: str) -> str:
    half = len(text) // 2
    return text[len(text) - half:] + text[half:len(text) - half] + text[:half]


@FAMILY.problem(
    "Remove from `text` every character that appears in `banned`, ignoring case: a letter in"
    " `banned` removes both its lower-case and upper-case forms. All other characters are kept in"
    " order.",
    "Given a string `text` and a string `banned` listing forbidden characters, return `text`"
    " without any of them. Letters are matched case-insensitively, so banning 'a' also removes 'A'.",
    examples=[("Banana Split", "an"), ("keep me", "")],
    tests=[("", "abc"), ("ABCabc", "B"), ("hello, world!", ", !"), ("Mississippi", "SP"), ("xyz", "q")],
)
def remove_banned(text: str, banned: str) -> str:
    return "".join(ch for ch in text if ch.lower() not in banned.lower())


@FAMILY.problem(
    "Split the command line `text` into arguments. Arguments are separated by one or more spaces,"
    " except inside double quotes: a double-quoted section may contain spaces, and the quotes"
    " themselves are not part of the argument. Quotes may appear in the middle of an argument"
    " ('a\"b c\"d' is one argument 'ab cd'), and an empty pair of quotes on its own gives an empty"
    " argument. An unclosed quote runs to the end of the text.",
    "Given a shell-like string `text`, return the list of its arguments in order. Spaces separate"
    " arguments only when they are outside double quotes; the '\"' characters are dropped from the"
    " output. A token that consisted only of quotes (like \"\") still counts as an argument, the"
    " empty string.",
    examples=[('cp "my file.txt" backup',), ('  a  b ',)],
    tests=[("",), ('""',), ('say "hello  world"',), ('a"b c"d e',), ('"unclosed quote here',),
           ('x "" y',), ("plain",)],
)
def split_arguments(text: str) -> list[str]:
    args: list[str] = []
    current: list[str] = []
    in_quotes = False
    started = False
    for ch in text:
        if ch == '"':
            in_quotes = not in_quotes
            started = True
        elif ch == " " and not in_quotes:
            if started:
                args.append("".join(current))
                current = []
                started = False
        else:
            current.append(ch)
            started = True
    if started:
        args.append("".join(current))
    return args


@FAMILY.problem(
    "Turn `title` into a URL slug: lower-case it, keep ASCII letters and digits, and replace every"
    " run of other characters by a single hyphen. The slug never starts or ends with a hyphen; a"
    " title with no letters or digits gives ''.",
    "Given a blog post `title`, return its slug. Lower-case letters a-z and digits 0-9 are kept"
    " (upper-case letters are lowered first); any maximal stretch of other characters becomes one"
    " '-', and hyphens at either end are removed.",
    examples=[("Hello, World!",), ("  10 Tips & Tricks  ",)],
    tests=[("",), ("!!!",), ("Already-a-slug",), ("C++ vs. C#",), ("a",), ("Café au lait",)],
)
def slugify(title: str) -> str:
    out = []
    for ch in title.lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


@FAMILY.problem(
    "Replace only the `n`-th occurrence (counting from 1, non-overlapping, left to right) of the"
    " non-empty string `old` in `text` with `new`. If `text` has fewer than `n` occurrences, return"
    " `text` unchanged.",
    "Given `text`, a non-empty search string `old`, its replacement `new`, and a 1-based index `n`,"
    " find occurrences of `old` scanning left to right (after a match, the search continues after"
    " it) and substitute `new` for the `n`-th one only. Return `text` as it was when there is no"
    " `n`-th occurrence.",
    examples=[("a-b-c-d", "-", "+", 2), ("aaaa", "aa", "X", 2)],
    tests=[("", "x", "y", 1), ("abc", "z", "y", 1), ("cat cat cat", "cat", "dog", 1),
           ("cat cat cat", "cat", "dog", 3), ("cat cat cat", "cat", "dog", 4), ("aaa", "aa", "b", 2),
           ("xyxyxy", "xy", "", 2)],
)
def replace_nth(text: str, old: str, new: str, n: int) -> str:
    start = 0
    for _ in range(n):
        index = text.find(old, start)
        if index == -1:
            return text
        start = index + len(old)
    return text[:index] + new + text[start:]


@FAMILY.problem(
    "Join the strings of `parts` with `sep` between them, skipping the empty strings. If no"
    " non-empty part is left, return ''.",
    "Given a list of strings `parts` and a separator `sep`, return the non-empty parts, in order,"
    " glued together with `sep`; empty strings are left out so no separator is doubled.",
    examples=[(["a", "", "b", "c"], "-"), (["", ""], ",")],
    tests=[([], "+"), (["x"], ", "), (["", "x", ""], "/"), (["red", "green", "", "blue"], ", "),
           (["a", "b"], ""), (["", "", "z", "", "z"], "|")],
    level=1,
)
def join_nonempty(parts: list[str], sep: str) -> str:
    return sep.join(p for p in parts if p != "")


@FAMILY.problem(
    "Return the last `k` characters of `text` in upper case. If `k` is 0 return ''; if `k` is at"
    " least the length of `text`, return all of `text` in upper case.",
    "Given a string `text` and a count `k` (k >= 0), take the final `k` characters (the whole"
    " string when it is shorter than `k`, nothing when `k` is 0) and return them upper-cased.",
    examples=[("invoice", 3), ("ab", 5)],
    tests=[("", 2), ("hello", 0), ("hello", 1), ("hello", 5), ("Mixed Case", 4), ("abc", 10)],
    level=1,
)
def last_k_upper(text: str, k: int) -> str:
    if k <= 0:
        return ""
    return text[-k:].upper()


@FAMILY.problem(
    "If `text` starts with `prefix`, ignoring upper/lower case, return `text` with that prefix"
    " removed; otherwise return `text` unchanged. An empty prefix removes nothing.",
    "Given `text` and `prefix`, strip `prefix` from the front of `text` when `text` begins with it"
    " (the comparison ignores case, the rest of `text` keeps its case). If `text` does not start"
    " with `prefix`, return it as it is.",
    examples=[("Mr. Smith", "mr. "), ("hello", "he")],
    tests=[("", "a"), ("abc", ""), ("ABCdef", "abc"), ("abc", "abcd"), ("xabc", "abc"), ("Re: Re: hi", "RE: ")],
    level=1,
)
def strip_prefix_ci(text: str, prefix: str) -> str:
    if text.lower().startswith(prefix.lower()):
        return text[len(prefix):]
    return text


@FAMILY.problem(
    "Return `text` with each letter repeated `n` times in place, so 'ab' with n = 3 becomes"
    " 'aaabbb'. Characters that are not letters (spaces, digits, punctuation) are kept once. If"
    " `n` is 0 the letters disappear.",
    "Given a string `text` and a count `n` (n >= 0), build a new string in which every letter of"
    " `text` is written `n` times in a row, while every non-letter character is copied just once;"
    " n = 1 gives `text` back.",
    examples=[("ab", 3), ("hi!", 2)],
    tests=[("", 4), ("xyz", 0), ("a1b", 1), ("a b", 2), ("q", 5), ("1a2-", 3), ("Go 2!", 0)],
    level=1,
)
def stretch_letters(text: str, n: int) -> str:
    return "".join(ch * n if ch.isalpha() else ch for ch in text)


@FAMILY.problem(
    "Replace every vowel of `text` (a, e, i, o, u, in either case) with the string `mark` and"
    " return the result. All other characters are kept.",
    "Given `text` and a replacement string `mark`, return `text` where each of the letters"
    " a, e, i, o, u, A, E, I, O, U has been swapped for `mark` (y is not a vowel).",
    examples=[("Hello World", "*"), ("sky", "_")],
    tests=[("", "#"), ("AEIOU aeiou", "."), ("banana", "oo"), ("rhythm", "*"), ("Queue", ""), ("y u no", "-")],
    level=1,
)
def mark_vowels(text: str, mark: str) -> str:
    return "".join(mark if ch.lower() in "aeiou" else ch for ch in text)


@FAMILY.problem(
    "Return True if `text` ends with at least one of the strings in `suffixes`, comparing without"
    " regard to upper/lower case, and False otherwise. An empty list of suffixes gives False.",
    "Given a file name or word `text` and a list `suffixes`, decide case-insensitively whether"
    " `text` ends with any of them; return False when `suffixes` is empty.",
    examples=[("Photo.JPG", [".png", ".jpg"]), ("notes.txt", [".md"])],
    tests=[("", []), ("abc", []), ("", [""]), ("report.PDF", [".pdf"]), ("data.csv", [".tsv", ".json"]),
           ("README", ["me", "txt"]), ("a", ["ba"])],
    level=1,
)
def ends_with_any(text: str, suffixes: list[str]) -> bool:
    return any(text.lower().endswith(s.lower()) for s in suffixes)
