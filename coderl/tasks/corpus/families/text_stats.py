from coderl.tasks.corpus.define import Family

FAMILY = Family("text_stats", "word, character and line statistics over text")


@FAMILY.problem(
    "Return a dictionary mapping each word length to the number of words of `text` with that"
    " length. Words are the whitespace-separated pieces of `text`, counted as they are"
    " (punctuation included). Text without words gives an empty dictionary.",
    "Given `text`, build a histogram of word lengths: split on whitespace and, for every word,"
    " add one to the entry for len(word). Only lengths that occur appear as keys.",
    examples=[("the cat sat on a mat",)],
    tests=[("",), ("   ",), ("word",), ("aa bb  cc d",), ("hello, world! hi",), ("x yy zzz yy x",)],
)
def word_length_histogram(text: str) -> dict[int, int]:
    counts: dict[int, int] = {}
    for word in text.split():
        counts[len(word)] = counts.get(len(word), 0) + 1
    return counts


@FAMILY.problem(
    "Return the average length of the whitespace-separated words of `text`, rounded to 2 decimals."
    " Punctuation counts as part of a word. If `text` has no words, return 0.0.",
    "Given `text`, compute the mean number of characters per word (words are separated by"
    " whitespace), rounded to 2 decimals; text with no words has average 0.0.",
    examples=[("to be or not",), ("   ",)],
    tests=[("",), ("a",), ("hello world",), ("one two three",), ("  x   yy  zzzz ",), ("Hi, there!",)],
)
def average_word_length(text: str) -> float:
    words = text.split()
    if not words:
        return 0.0
    return round(sum(len(w) for w in words) / len(words), 2)


@FAMILY.problem(
    "Return the letter that occurs most often in `text`, in lower case. Letters are counted"
    " case-insensitively and non-letters are ignored. If several letters tie, return the one that"
    " comes first in the alphabet. Return '' if `text` contains no letters.",
    "Given `text`, find its most frequent letter, treating 'A' and 'a' as the same letter and"
    " skipping digits, spaces and punctuation. Break ties alphabetically (earliest wins) and answer"
    " with a lower-case letter, or with the empty string when there are no letters at all.",
    examples=[("Hello World",), ("bab ABA",)],
    tests=[("",), ("123 !?",), ("z",), ("Zebra zoo",), ("cbacba",), ("AAAb bbb",), ("x1y2Y3",)],
)
def most_common_letter(text: str) -> str:
    lowered = text.lower()
    letters = sorted({ch for ch in lowered if ch.isalpha()})
    if not letters:
        return ""
    return max(letters, key=lowered.count)


@FAMILY.problem(
    "Count the sentences in `text`. A sentence ends at a run of one or more of the characters '.',"
    " '!' and '?' (so '...' or '?!' ends just one sentence). Text after the last terminator also"
    " counts as a sentence if it contains any non-whitespace character. Return 0 for text with no"
    " visible content.",
    "Given a paragraph `text`, return how many sentences it has. Each maximal group of"
    " consecutive '.', '!' or '?' closes one sentence, but only if some non-whitespace text came"
    " before it since the previous terminator; an unterminated final sentence (non-blank trailing"
    " text) counts as well.",
    examples=[("Hi there. How are you?! Fine",), ("Wait... what",)],
    tests=[("",), ("   ",), ("One.",), ("...",), ("a. b. c.",), ("No end here",), ("Yes!!! No?  ok . ",)],
)
def count_sentences(text: str) -> int:
    count = 0
    pending = False
    for ch in text:
        if ch in ".!?":
            if pending:
                count += 1
                pending = False
        elif not ch.isspace():
            pending = True
    return count + (1 if pending else 0)


@FAMILY.problem(
    "Return the 1-based number of the longest line of `text`, where lines are separated by '\\n'."
    " If several lines share the greatest length, return the first of them. Return 0 if `text` is"
    " the empty string.",
    "A code reviewer wants to know which line of a file is the widest. Given the file contents"
    " `text` (lines split on newline characters), return the line number, counting from 1, of the"
    " longest line; on a tie report the earliest such line, and report 0 for an empty file.",
    examples=[("short\nmuch longer\nmid",), ("ab\ncd",)],
    tests=[("",), ("one line",), ("\n\nx",), ("a\nbb\nbb\nc",), ("aaa\nbb\nccc\n",), ("x\n\nyy\nzzz",)],
)
def longest_line_number(text: str) -> int:
    if not text:
        return 0
    best = 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) > len(lines[best]):
            best = i
    return best + 1


@FAMILY.problem(
    "Return a pair (vowels, consonants) counting the ASCII letters of `text`. The vowels are a, e,"
    " i, o and u in either case; every other ASCII letter (including y) is a consonant. Digits,"
    " spaces, punctuation and non-ASCII characters are not counted.",
    "Given `text`, count how many of its characters are vowels (aeiou, upper or lower case) and how"
    " many are consonants (the other 21 English letters, y among them), and return both numbers as"
    " a tuple in that order.",
    examples=[("Hello, World",), ("rhythm",)],
    tests=[("",), ("AEIOU",), ("xyz 123",), ("Quiet Yelp!",), ("naïve",), ("bcd aei BCD",)],
)
def vowel_consonant_counts(text: str) -> tuple[int, int]:
    vowels = consonants = 0
    for ch in text:
        if ch.isascii() and ch.isalpha():
            if ch.lower() in "aeiou":
                vowels += 1
            else:
                consonants += 1
    return (vowels, consonants)


@FAMILY.problem(
    "Return the `k` most frequent words of `text` as a list of (word, count) pairs. Words are the"
    " whitespace-separated tokens, lower-cased. Order the pairs by count, highest first, and break"
    " ties alphabetically. If there are fewer than `k` distinct words, return all of them.",
    "Given `text` and a number `k`, build a leaderboard of words: lower-case the whitespace-separated"
    " tokens, count each one, sort by decreasing count with alphabetical order among equal counts,"
    " and return the first `k` (word, count) tuples (fewer if the text has fewer distinct words).",
    examples=[("b a b c a b", 2)],
    tests=[("", 3), ("one", 1), ("x y z", 2), ("The the THE a A b", 5), ("d c b a d c", 3), ("p q p", 0)],
)
def top_words(text: str, k: int) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:k]


@FAMILY.problem(
    "Return how many lines of `text` are blank, that is empty or containing only whitespace. Lines"
    " are separated by '\\n'; the empty string has one (blank) line.",
    "Given `text`, split it on newline characters and count the resulting lines that have no"
    " non-whitespace characters. Note that a trailing newline creates a final empty line, which"
    " counts.",
    examples=[("a\n\n  \nb",), ("x\n",)],
    tests=[("",), ("abc",), ("\n",), (" \t \nword\n\n",), ("a\nb\nc",), ("\n\n\n",)],
)
def blank_line_count(text: str) -> int:
    return sum(1 for line in text.split("\n") if not line.strip())


@FAMILY.problem(
    "Return the longest run of one repeated character in `text` as a pair (character, length)."
    " If several runs are equally long, report the one that appears first. Return ('', 0) for an"
    " empty string.",
    "Given `text`, scan for consecutive repeats of the same character and return a tuple of the"
    " character with the longest such run and the run's length; ties go to the earliest run, and"
    " the empty text yields ('', 0).",
    examples=[("aabbbcc",), ("abc",)],
    tests=[("",), ("z",), ("aabb",), ("abbbbcccc",), ("xx  yy   ",), ("1222233333",)],
)
def longest_char_run(text: str) -> tuple[str, int]:
    from itertools import groupby

    best_char, best_len = "", 0
    for ch, group in groupby(text):
        length = len(list(group))
        if length > best_len:
            best_char, best_len = ch, length
    return (best_char, best_len)


@FAMILY.problem(
    "Return the sum of all whole numbers written in `text`. A number is a maximal run of digits; a"
    " '-' immediately before the run makes it negative. Return 0 if there are no digits.",
    "An invoice scanner adds up every integer it sees in a line of `text`. Each maximal sequence of"
    " consecutive digits is one number, negated when the character right before it is a minus"
    " sign. Sum them all (0 when there are none).",
    examples=[("paid 12, owes -5, tip 3",), ("a1b22",)],
    tests=[("",), ("no numbers",), ("12 minus-",), ("-4 then 2",), ("x-7y-08",), ("a5 b-6",), ("--4 and 0",)],
)
def sum_numbers_in_text(text: str) -> int:
    total = 0
    i = 0
    while i < len(text):
        if text[i].isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            value = int(text[i:j])
            total += -value if i > 0 and text[i - 1] == "-" else value
            i = j
        else:
            i += 1
    return total


@FAMILY.problem(
    "Return a list with the number of whitespace-separated words on each line of the script"
    " `text`, in order, skipping comment lines. Lines are separated by '\\n'; a comment line is one"
    " whose first non-whitespace character is '#', and it is left out of the list. Other blank lines"
    " give 0, and the empty string is a single line with 0 words.",
    "Given a script `text`, split it into lines on newline characters and report, for every line"
    " that is not a comment, how many words it contains (words are separated by spaces or tabs)."
    " Comment lines, whose first non-whitespace character is '#', are omitted; blank lines count as"
    " 0 words.",
    examples=[("one two\n  # note\nthree\n",)],
    tests=[("",), ("# only",), ("a b c",), ("\n\n",), ("  x  y \n\tz",), ("a # b\n\t#c d\nd e f",)],
)
def words_per_line(text: str) -> list[int]:
    return [len(line.split()) for line in text.split("\n") if not line.lstrip().startswith("#")]


@FAMILY.problem(
    "Return the percentage of words in `text` that are not stop words, rounded to 2 decimals."
    " Words are the whitespace-separated tokens of `text`, lower-cased before being compared with"
    " `stopwords` (which is given in lower case). Return 0.0 when `text` has no words.",
    "Lexical density: given `text` and a list `stopwords` of lower-case filler words, compute 100"
    " times the number of content words (tokens whose lower-case form is not in `stopwords`)"
    " divided by the total number of whitespace-separated tokens, rounded to 2 decimals; an empty"
    " text has density 0.0.",
    examples=[("the cat and the hat", ["the", "and"])],
    tests=[("", ["a"]), ("a a a", ["a"]), ("big red dog", []), ("The END of it", ["the", "of"]),
           ("x y z", ["y"]), ("A B", ["a"])],
)
def content_word_percent(text: str, stopwords: list[str]) -> float:
    words = text.lower().split()
    if not words:
        return 0.0
    content = sum(1 for w in words if w not in stopwords)
    return round(100 * content / len(words), 2)


@FAMILY.problem(
    "Return the first word of `text` that repeats an earlier word, in lower case. Words are the"
    " whitespace-separated tokens, lower-cased and with the characters . , ! ? stripped from both"
    " ends; tokens that become empty are skipped. 'First' means the repeat that occurs earliest in"
    " the text. Return None if no word repeats.",
    "Given `text`, read the words left to right (split on whitespace, lower-case, strip '.,!?' from"
    " the ends, skip empty results) and return the first word that you have already seen before;"
    " if you reach the end without a repeat, return None.",
    examples=[("It was the best of times, it was the worst",), ("all different here",)],
    tests=[("",), ("a",), ("b a c a b",), ("Stop. stop!",), ("... ... x",), ("one two three two one",)],
)
def first_repeated_word(text: str) -> str | None:
    seen: set[str] = set()
    for token in text.split():
        word = token.lower().strip(".,!?")
        if not word:
            continue
        if word in seen:
            return word
        seen.add(word)
    return None


@FAMILY.problem(
    "For each non-blank line of `text` (lines separated by '\\n'), compute its indentation level:"
    " the number of leading space characters divided by `width`, rounded down. Blank lines (empty"
    " or only whitespace) are skipped. Return the levels in order.",
    "Given source code `text` indented with spaces and the indent size `width`, return the list of"
    " indentation levels of its lines, where a line's level is its count of leading spaces floor-"
    "divided by `width`. Lines with no non-whitespace content are left out.",
    examples=[("def f():\n    return 1\n", 4)],
    tests=[("", 4), ("x", 2), ("a\n  b\n    c\n   d", 2), ("  \n\n      deep", 4), ("\tx\n y", 1),
           ("if a:\n    if b:\n        go()\n\n    end()", 4)],
)
def indentation_levels(text: str, width: int) -> list[int]:
    levels = []
    for line in text.split("\n"):
        if line.strip():
            levels.append((len(line) - len(line.lstrip(" "))) // width)
    return levels


@FAMILY.problem(
    "Classify the characters of `text` and return a dictionary with exactly the keys 'letters',"
    " 'digits', 'spaces' and 'other', mapping each to how many characters fall in that class."
    " Letters are characters for which str.isalpha() is true, digits those for which str.isdigit()"
    " is true, spaces any whitespace character, and everything else is 'other'. All four keys are"
    " always present.",
    "Given `text`, count its letters (isalpha), digits (isdigit), whitespace characters (isspace)"
    " and remaining characters, and return them as {'letters': ..., 'digits': ..., 'spaces': ...,"
    " 'other': ...}, including classes with a count of zero.",
    examples=[("Room 101!",)],
    tests=[("",), ("abc",), ("  \t\n",), ("a1 b2 #",), ("$$$ 42",), ("Ünïcode 7?",)],
)
def character_classes(text: str) -> dict[str, int]:
    counts = {"letters": 0, "digits": 0, "spaces": 0, "other": 0}
    for ch in text:
        if ch.isalpha():
            counts["letters"] += 1
        elif ch.isdigit():
            counts["digits"] += 1
        elif ch.isspace():
            counts["spaces"] += 1
        else:
            counts["other"] += 1
    return counts


@FAMILY.problem(
    "Return how many whitespace-separated words of `text` have more than `n` characters."
    " Punctuation attached to a word counts as part of it. Text with no words gives 0.",
    "Given `text` and a length `n`, split `text` on whitespace and count the words whose length is"
    " strictly greater than `n` (a word of exactly `n` characters is not counted).",
    examples=[("the quick brown fox", 3), ("a bb ccc", 5)],
    tests=[("", 0), ("   ", 1), ("one three", 3), ("one three", 5), ("a b c", 0), ("hi, there! ok", 2)],
    level=1,
)
def count_long_words(text: str, n: int) -> int:
    return sum(1 for word in text.split() if len(word) > n)


@FAMILY.problem(
    "Return how many lines of `text` contain the string `needle` (case-sensitive). Lines are"
    " separated by '\\n'. An empty `needle` is found in every line, and the empty text is one line.",
    "Given `text` and a search string `needle`, split `text` on newline characters and count the"
    " lines in which `needle` occurs at least once, matching case exactly; a line with several"
    " occurrences still counts once.",
    examples=[("error: disk\nok\nerror: net error", "error"), ("abc", "x")],
    tests=[("", "a"), ("", ""), ("a\nb\nc", ""), ("Warn\nwarn\nWARN", "warn"), ("xx\nx\n\ny", "xx"),
           ("one two\ntwo\nthree", "two")],
    level=1,
)
def count_lines_containing(text: str, needle: str) -> int:
    return sum(1 for line in text.split("\n") if needle in line)


@FAMILY.problem(
    "Return the percentage of the letters of `text` that are upper case, rounded to 2 decimals."
    " Only letters are counted (digits, spaces and punctuation are ignored). If `text` has no"
    " letters, return 0.0.",
    "Given `text`, count its letters and how many of them are capitals, and return 100 times"
    " capitals divided by letters, rounded to 2 decimals; text without letters gives 0.0.",
    examples=[("Hello World",), ("ABC def",)],
    tests=[("",), ("123 !",), ("SHOUT",), ("quiet",), ("aBc",), ("Hi 5 You!",)],
    level=1,
)
def percent_upper(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return round(100 * sum(1 for ch in letters if ch.isupper()) / len(letters), 2)


@FAMILY.problem(
    "Return how many whitespace-separated words of `text` end with `suffix`, ignoring upper/lower"
    " case. `suffix` is non-empty. Text with no words gives 0.",
    "Given `text` and a non-empty ending `suffix`, split `text` on whitespace and count the words"
    " that end with `suffix` when both are compared in lower case (so 'RUNNING' ends with 'ing').",
    examples=[("Running and jumping is fun", "ing"), ("cat dog", "x")],
    tests=[("", "s"), ("ing", "ing"), ("SINGING sing Ring", "ING"), ("cats dogs bus", "s"),
           ("tested, rested", "ed"), ("  a  ba   cba ", "ba")],
    level=1,
)
def count_words_ending_with(text: str, suffix: str) -> int:
    return sum(1 for word in text.split() if word.lower().endswith(suffix.lower()))


@FAMILY.problem(
    "Return the list of the lengths of the lines of `text`, in order, not counting whitespace at"
    " the end of a line. Lines are separated by '\\n'. The empty string is one line of length 0.",
    "Given `text`, split it on newline characters and return how many characters each resulting"
    " line has once trailing spaces and tabs are removed (leading whitespace still counts); a"
    " trailing newline produces a final line of length 0.",
    examples=[("ab  \ncde\n",), ("single",)],
    tests=[("",), ("\n",), ("a\n\nbb",), ("  \t\nx",), ("one \n  two\nthree\t",), ("  lead",)],
    level=1,
)
def line_lengths(text: str) -> list[int]:
    return [len(line.rstrip()) for line in text.split("\n")]


@FAMILY.problem(
    "Return a dictionary that maps each lower-case first letter to the number of words of `text`"
    " that start with it (ignoring case). Words are whitespace-separated; words whose first"
    " character is not a letter are skipped. No words gives {}.",
    "Given `text`, look at the first character of every whitespace-separated word; for each word"
    " starting with a letter, add one to the count of that letter in lower case. Return the"
    " counts as a dictionary.",
    examples=[("Apples and bananas are Best",)],
    tests=[("",), ("zebra",), ("1st 2nd third",), ("a A b B a",), ("  Cat   cow  ",), ("x-ray Xmas #tag",)],
    level=1,
)
def first_letter_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for word in text.split():
        if word[0].isalpha():
            counts[word[0].lower()] = counts.get(word[0].lower(), 0) + 1
    return counts
