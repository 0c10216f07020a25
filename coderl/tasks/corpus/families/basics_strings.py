from coderl.tasks.corpus.define import Family

FAMILY = Family("basics_strings", "first steps with strings: built-in methods, slicing, simple counting")


@FAMILY.problem(
    "Return a string made of the first character of `text` followed by the last character of"
    " `text`. text is not empty.",
    "Take the character at the start of text and the character at the end of text and put them"
    " together, first one then last one. text has at least one character.",
    examples=[("hello",), ("a",)],
    tests=[("ab",), ("Python",), ("xyz!",), ("racecar",), ("12345",)],
    level=1,
)
def first_and_last(text: str) -> str:
    return text[0] + text[-1]


@FAMILY.problem(
    "Return `word` written `times` times, with `sep` between each copy and the next. times is at"
    " least 1.",
    "A cheerleader shouts the same word several times. Build the chant: word repeated times times,"
    " with the separator sep placed between neighbouring copies (not at the ends).",
    examples=[("ab", 3, "-"), ("x", 1, ",")],
    tests=[("hi", 2, " "), ("go", 4, ""), ("ok", 2, "--"), ("la", 5, "!"), ("yes", 3, ", ")],
    level=1,
)
def repeat_with_separator(word: str, times: int, sep: str) -> str:
    return sep.join(word for _ in range(times))


@FAMILY.problem(
    "Return a hashtag made from `words`: the character '#' followed by all the words joined"
    " together with nothing between them, in lower case.",
    "To post about an event online you turn its name into a hashtag. Glue the words together"
    " without spaces, make everything lower case, and put '#' in front. Return the hashtag.",
    examples=[(["Hello", "World"],), (["python"],)],
    tests=[(["a"],), (["My", "New", "Blog", "Post"],), (["ALL", "CAPS"],), (["x", "y"],),
           (["Top", "10", "Tips"],)],
    level=1,
)
def make_hashtag(words: list[str]) -> str:
    return "#" + "".join(words).lower()


@FAMILY.problem(
    "Return how many characters of `text` are the letter a or the letter b, ignoring case. a and b"
    " are two different lower-case letters.",
    "Count the letters in text that are either a or b, where 'A' counts as 'a' and so on (a and b"
    " are given as lower-case letters and are different). Return the total count.",
    examples=[("Banana", "a", "b"), ("xyz", "p", "q")],
    tests=[("AAbb", "a", "b"), ("Mississippi", "s", "p"), ("Hello World", "l", "o"),
           ("cabbage", "c", "g"), ("ZzZ", "z", "y")],
    level=1,
)
def count_two_letters(text: str, a: str, b: str) -> int:
    return text.lower().count(a) + text.lower().count(b)


@FAMILY.problem(
    "Return True if `text` starts with the character `ch` and also ends with `ch`, else False.",
    "A word is called a bookend word for ch when its first character is ch and its last character is"
    " ch as well. Return whether text is a bookend word for ch.",
    examples=[("abca", "a"), ("abc", "a")],
    tests=[("cba", "a"), ("a", "a"), ("xyz", "q"), ("level", "l"), ("yay", "y"), ("noon", "o")],
    level=1,
)
def starts_and_ends_with(text: str, ch: str) -> bool:
    return text.startswith(ch) and text.endswith(ch)


@FAMILY.problem(
    "Return `text` in upper case followed by n exclamation marks '!'.",
    "Make text sound like shouting: turn every letter to upper case and put n '!' characters at the"
    " end. Return the new string.",
    examples=[("hi", 3), ("Go", 1)],
    tests=[("wow", 0), ("Yes please", 2), ("ok", 5), ("stop it", 1), ("A1b", 3)],
    level=1,
)
def shout(text: str, n: int) -> str:
    return text.upper() + "!" * n


@FAMILY.problem(
    "Return `text` without its first character and without its last character. text has at least"
    " two characters.",
    "A label is wrapped in one character on each side, like [x] or 'x'. Remove the first and the"
    " last character of text and return what is in between. text is at least 2 characters long.",
    examples=[("hello",), ("[x]",)],
    tests=[("ab",), ("abcdef",), ("'quoted'",), ("(a b)",), ("xyz",)],
    level=1,
)
def drop_first_and_last(text: str) -> str:
    return text[1:-1]


@FAMILY.problem(
    "Return every k-th character of `text`, counting from 1: the characters at positions k, 2k,"
    " 3k, ... (position 1 is the first character). k is at least 1.",
    "A secret note hides a message: only every k-th letter counts, starting with the k-th one. Read"
    " the characters at positions k, 2 * k, 3 * k, ... (counting the first character as position 1)"
    " and return them as a string.",
    examples=[("abcdefgh", 2), ("abcdefgh", 3)],
    tests=[("hello", 1), ("python", 6), ("a1b2c3", 2), ("xxhxxixx", 3), ("abcdefghij", 4)],
    level=1,
)
def every_kth_char(text: str, k: int) -> str:
    return text[k - 1::k]


@FAMILY.problem(
    "Return a list of two numbers: how many characters of `text` are upper-case letters, and how"
    " many are digits.",
    "Look at each character of text. Count the capital letters (A to Z) and, separately, the digits"
    " (0 to 9). Return [capital letters, digits].",
    examples=[("Hello World 2024",), ("abc",)],
    tests=[("ABC123",), ("a1B2",), ("R2D2 and C3PO",), ("XYZ",), ("no caps 7",)],
    level=1,
)
def upper_and_digit_counts(text: str) -> list[int]:
    return [sum(1 for c in text if c.isupper()), sum(1 for c in text if c.isdigit())]


@FAMILY.problem(
    "Remove the spaces at the start and the end of `text`, then replace every remaining space with"
    " the character `ch`. Return the result.",
    "Turn text into a name that has no spaces: first strip the spaces from both ends, then change"
    " each space that is left into ch.",
    examples=[("  hello world  ", "_"), ("a b c", "-")],
    tests=[("nospace", "+"), (" x ", "*"), ("big  gap", "."), ("  two words", "_"), ("end here ", "-")],
    level=1,
)
def spaces_to(text: str, ch: str) -> str:
    return text.strip().replace(" ", ch)


@FAMILY.problem(
    "Return the first character of `first`, then a period and a space, then `last`. For example"
    " 'Ada' and 'Lovelace' give 'A. Lovelace'. first is not empty.",
    "Write a short form of a person's name for a badge: the first letter of the first name, a dot, a"
    " space, and the full last name.",
    examples=[("Ada", "Lovelace"), ("Grace", "Hopper")],
    tests=[("alan", "Turing"), ("X", "Y"), ("Linus", "T"), ("Bo", "Li"), ("Katherine", "Johnson")],
    level=1,
)
def short_name(first: str, last: str) -> str:
    return first[0] + ". " + last


@FAMILY.problem(
    "Return `text` with n copies of the character `ch` added at the start and n copies added at the"
    " end.",
    "Decorate text by putting ch repeated n times on both sides of it, for example '**hi**' for"
    " text 'hi', ch '*' and n 2. Return the decorated string.",
    examples=[("hi", "*", 2), ("x", "-", 1)],
    tests=[("mid", "=", 3), ("a", "b", 0), ("title", "~", 1), ("ok", "#", 4), ("two words", ".", 2)],
    level=1,
)
def surround(text: str, ch: str, n: int) -> str:
    return ch * n + text + ch * n


@FAMILY.problem(
    "Return whichever of the strings a and b is longer. If they have the same length, return a.",
    "Two names are written on a form. Return the one with more characters; when both have the same"
    " number of characters, return the first one, a.",
    examples=[("apple", "fig"), ("cat", "horse")],
    tests=[("one", "two"), ("", "x"), ("same", "four"), ("longer", "short"), ("ab", "abc")],
    level=1,
)
def longer_of_two(a: str, b: str) -> str:
    return a if len(a) >= len(b) else b


@FAMILY.problem(
    "Return the list of words of `sentence` (separated by spaces) that have more than n characters,"
    " in the order they appear.",
    "Split sentence into words at the spaces and keep only the words whose length is greater than"
    " n. Return them as a list in their original order.",
    examples=[("the quick brown fox", 3), ("hello world", 5)],
    tests=[("a bb ccc", 2), ("hi there", 0), ("tiny big large", 3), ("one three five", 4),
           ("x yy zzz", 1)],
    level=1,
)
def words_longer_than(sentence: str, n: int) -> list[str]:
    return [w for w in sentence.split() if len(w) > n]


@FAMILY.problem(
    "Return a list of the characters of `text` that are immediately followed by the same"
    " character, in the order they occur. For example 'balloon' gives ['l', 'o'].",
    "Look at every pair of neighbouring characters in text (positions 0 and 1, 1 and 2, and so on)."
    " For each pair whose two characters are equal, write down that character. Return the list.",
    examples=[("balloon",), ("abc",)],
    tests=[("aaa",), ("bookkeeper",), ("x",), ("aabb",), ("abba",), ("zz",)],
    level=1,
)
def doubled_letters(text: str) -> list[str]:
    return [text[i] for i in range(len(text) - 1) if text[i] == text[i + 1]]


@FAMILY.problem(
    "Return how many words of `sentence` contain the character `letter`. Words are separated by"
    " spaces.",
    "Split sentence into its space-separated words and count the words that have letter somewhere"
    " in them (a word counts once, however many times the letter appears in it).",
    examples=[("the cat sat on the mat", "a"), ("abc def", "z")],
    tests=[("hello world", "o"), ("banana bandana", "n"), ("x y z", "y"), ("red green blue", "e"),
           ("one", "o")],
    level=1,
)
def count_words_containing(sentence: str, letter: str) -> int:
    return sum(1 for w in sentence.split() if letter in w)


@FAMILY.problem(
    "Return `text` with its first n characters in upper case and all the other characters in lower"
    " case.",
    "Rewrite text so that the first n characters are capital letters and the rest of the"
    " characters are small letters. Return the rewritten string.",
    examples=[("hello", 2), ("WORLD", 1)],
    tests=[("Python", 0), ("abc", 3), ("mIxEd CaSe", 4), ("QUIET", 2), ("go", 1)],
    level=1,
)
def upper_first_n(text: str, n: int) -> str:
    return text[:n].upper() + text[n:].lower()


@FAMILY.problem(
    "Return True if `text` contains at least one digit and at least one letter, else False.",
    "A simple password rule says a password must mix a digit (0 to 9) with a letter. Return True if"
    " text has at least one of each, and False otherwise.",
    examples=[("abc1",), ("abc",)],
    tests=[("123",), ("a",), ("9 lives",), ("!!",), ("x-7",), ("A B C",)],
    level=1,
)
def has_digit_and_letter(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


@FAMILY.problem(
    "Reverse the letters of each word of `sentence` but keep the words in the same order. Words are"
    " separated by single spaces; return them joined with single spaces.",
    "Write every word of sentence backwards, leaving the order of the words alone. For example"
    " 'hello world' becomes 'olleh dlrow'.",
    examples=[("hello world",), ("abc",)],
    tests=[("a bc def",), ("Python is fun",), ("stop pots",), ("x y",), ("level up",)],
    level=1,
)
def reverse_each_word(sentence: str) -> str:
    return " ".join(w[::-1] for w in sentence.split())


@FAMILY.problem(
    "Return `text` in lower case with every character that is not a letter replaced by `mark`.",
    "Clean up text for a word puzzle: make every letter lower case, and change each other character"
    " (digits, spaces, punctuation) into mark. Return the cleaned string, which has the same length"
    " as text when mark is one character.",
    examples=[("Hello, World!", "_"), ("ABC123", "#")],
    tests=[("x", "."), ("It's 5 o'clock", " "), ("no-spaces here", "+"), ("R2D2", "*"), ("MiXeD", "-")],
    level=1,
)
def letters_or_mark(text: str, mark: str) -> str:
    return "".join(c if c.isalpha() else mark for c in text.lower())


@FAMILY.problem(
    "Return True if the first character of `word`, made lower case, is one of the characters in"
    " `letters`, else False. word is not empty and letters is written in lower case.",
    "A game only accepts words that begin with one of the lower-case letters in letters. The case"
    " of the word does not matter, so 'Apple' begins with 'a'. Return whether word is accepted.",
    examples=[("apple", "aeiou"), ("banana", "xyz")],
    tests=[("Egg", "aeiou"), ("Under", "u"), ("sky", "aeiou"), ("o", "o"), ("Tree", "st"), ("kiwi", "ik")],
    level=1,
)
def starts_with_one_of(word: str, letters: str) -> bool:
    return word[0].lower() in letters


@FAMILY.problem(
    "Return True if the strings a and b begin with the same letter, ignoring upper and lower case."
    " Both strings are non-empty.",
    "Two friends like names that start alike. Compare the first character of a with the first"
    " character of b, treating capital and small letters as equal, and return whether they match.",
    examples=[("Apple", "avocado"), ("cat", "dog")],
    tests=[("Bob", "bill"), ("x", "X"), ("pear", "apple"), ("Moon", "mars"), ("ab", "ba")],
    level=1,
)
def same_first_letter(a: str, b: str) -> bool:
    return a[0].lower() == b[0].lower()


@FAMILY.problem(
    "Return the last word of `sentence`. Words are separated by spaces, and sentence has at least"
    " one word.",
    "Split sentence into words at the spaces and return the final word.",
    examples=[("hello big world",), ("single",)],
    tests=[("a b",), ("the end  ",), ("one two three four",), ("  lead",), ("x yz",)],
    level=1,
)
def last_word(sentence: str) -> str:
    return sentence.split()[-1]


@FAMILY.problem(
    "Return the n-th word of `sentence`, counting from 1 (n = 1 is the first word). Words are"
    " separated by spaces, and the sentence has at least n words.",
    "A teacher asks for word number n of a sentence, where the first word is number 1. Split"
    " sentence at the spaces and return that word.",
    examples=[("the quick brown fox", 1), ("the quick brown fox", 3)],
    tests=[("one two", 2), ("a b c d e", 5), ("hello", 1), ("red green blue", 2), ("w x y z", 3)],
    level=1,
)
def nth_word(sentence: str, n: int) -> str:
    return sentence.split()[n - 1]


@FAMILY.problem(
    "Return `last` in upper case, then a comma and a space, then `first` unchanged. For example"
    " 'Ada' and 'Lovelace' give 'LOVELACE, Ada'.",
    "A register lists people as family name in capitals, a comma, a space, and then the given name"
    " as written. Build that entry from first and last.",
    examples=[("Ada", "Lovelace"), ("alan", "turing")],
    tests=[("Grace", "Hopper"), ("x", "y"), ("Mary", "O'Neil"), ("Li", "Wei"), ("jo", "Smith")],
    level=1,
)
def name_tag(first: str, last: str) -> str:
    return last.upper() + ", " + first


@FAMILY.problem(
    "Return the list of positions where the character `ch` appears in `text`, counting positions"
    " from 1 (the first character is at position 1).",
    "A teacher circles every ch in a line of text and writes down where it is, calling the first"
    " character position 1, the second position 2, and so on. Return the list of circled positions"
    " in increasing order.",
    examples=[("banana", "a"), ("abc", "z")],
    tests=[("hello", "l"), ("a-b-c", "-"), ("xxx", "x"), ("Mississippi", "s"), ("q", "q")],
    level=1,
)
def positions_of(text: str, ch: str) -> list[int]:
    return [i + 1 for i, c in enumerate(text) if c == ch]


@FAMILY.problem(
    "Return True if the last character of `text` is a digit (0 to 9), else False. text is not"
    " empty.",
    "Some file names end with a version number. Check only the final character of text and return"
    " whether it is a digit.",
    examples=[("room12",), ("abc",)],
    tests=[("7",), ("3 apples",), ("v2.0",), ("x",), ("1a",), ("a1",)],
    level=1,
)
def ends_with_digit(text: str) -> bool:
    return text[-1].isdigit()
