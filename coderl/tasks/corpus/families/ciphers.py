from coderl.tasks.corpus.define import Family

FAMILY = Family("ciphers", "encodings and ciphers: shifts, run-length coding, substitution, checksums")


@FAMILY.problem(
    "Shift every ASCII letter of `text` by `shift` places in the alphabet and every digit by"
    " `shift` places among 0-9, wrapping around in both cases (z+1 is a, 9+1 is 0). Letters keep"
    " their case; `shift` may be negative or larger than 26; all other characters are unchanged.",
    "Given `text` and an integer `shift`, return its encryption under a Caesar cipher that also"
    " rotates digits: a-z and A-Z rotate modulo 26 (case preserved) and 0-9 rotate modulo 10, both"
    " by `shift` (negative means backwards). Spaces, punctuation and other characters are copied.",
    examples=[("Hello, World 2024", 3), ("abc 9", -1)],
    tests=[("", 5), ("xyz XYZ 789", 3), ("Zz0", -27), ("same [^_^] @:", 0), ("Attack at 0600!", 13), ("q", 52)],
)
def caesar_with_digits(text: str, shift: int) -> str:
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - ord("a") + shift) % 26 + ord("a")))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - ord("A") + shift) % 26 + ord("A")))
        elif "0" <= ch <= "9":
            out.append(chr((ord(ch) - ord("0") + shift) % 10 + ord("0")))
        else:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Encrypt `text` with the Vigenere cipher using `key`, a non-empty string of lower-case letters."
    " The k-th ASCII letter of `text` (counting letters only, from 0) is shifted forward by the"
    " alphabet position (a=0, b=1, ...) of key[k % len(key)], wrapping from z to a and keeping its"
    " case. Non-letters are copied unchanged and do not use up a key letter.",
    "Given a message `text` and a lower-case keyword `key`, return the Vigenere ciphertext: walk"
    " through the letters of the message, pairing each with the next key letter (cycling through"
    " the key) and rotating it forward by that key letter's index in the alphabet; upper-case"
    " letters stay upper-case. Characters that are not letters pass through without consuming key"
    " letters.",
    examples=[("attack at dawn", "lemon"), ("Hi!", "b")],
    tests=[("", "key"), ("abc", "a"), ("xyz", "c"), ("Hello, World", "ab"), ("a-b-c-d", "bcd"),
           ("ZEBRA zebra", "zz"), ("café au lait", "key")],
)
def vigenere_encrypt(text: str, key: str) -> str:
    out = []
    k = 0
    for ch in text:
        if ch.isascii() and ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            shift = ord(key[k % len(key)]) - ord("a")
            out.append(chr((ord(ch) - base + shift) % 26 + base))
            k += 1
        else:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Decrypt the Vigenere ciphertext `text` made with `key`, a non-empty string of lower-case"
    " letters. The k-th ASCII letter of `text` (counting letters only, from 0) is shifted backward"
    " by the alphabet position (a=0, ..., z=25) of key[k % len(key)], wrapping from a to z and"
    " keeping its case. Non-letters are copied unchanged and do not use up a key letter.",
    "Given a Vigenere-encrypted message `text` and its lower-case keyword `key`, recover the plain"
    " text: each letter of `text` is rotated backwards by the index in the alphabet of the key"
    " letter paired with it, where key letters are assigned to the message's letters in order,"
    " cycling, and skipping anything that is not a letter. Case is preserved and other characters"
    " are left alone.",
    examples=[("lxfopv ef rnhr", "lemon"), ("Ij!", "b")],
    tests=[("", "key"), ("abc", "a"), ("zab", "c"), ("Hfnlp, Wptle", "ab"), ("b-d-f-h", "bcd"),
           ("AAA", "xyz"), ("mepé yy jyqx", "key")],
)
def vigenere_decrypt(text: str, key: str) -> str:
    out = []
    k = 0
    for ch in text:
        if ch.isascii() and ch.isalpha():
            base = ord("a") if ch.islower() else ord("A")
            shift = ord(key[k % len(key)]) - ord("a")
            out.append(chr((ord(ch) - base - shift) % 26 + base))
            k += 1
        else:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Run-length encode `text`, which contains no digits: each maximal run of a repeated character"
    " becomes its length followed by the character, but the length is left out when the run has"
    " only one character. So 'aaabcc' becomes '3ab2c'.",
    "Given a digit-free string `text`, compress it by replacing every group of identical"
    " neighbouring characters with the group size written in decimal and then the character;"
    " groups of size one are written as just the character. The empty string encodes to ''.",
    examples=[("aaabcc",), ("abc",)],
    tests=[("",), ("z",), ("zz",), ("aaaaaaaaaaaa",), ("aabbbaa",), ("  --  ",)],
)
def rle_encode(text: str) -> str:
    from itertools import groupby

    out = []
    for ch, group in groupby(text):
        n = len(list(group))
        out.append((str(n) if n > 1 else "") + ch)
    return "".join(out)


@FAMILY.problem(
    "Decode the run-length encoded string `code`: a character may be preceded by a decimal count"
    " (one or more digits) saying how many times it repeats; a character without a count appears"
    " once. The encoded characters themselves are never digits. Return the expanded string.",
    "Given `code` such as '3ab12c', expand it: read digits into a number, and when a non-digit"
    " character arrives, write it that many times (once if no digits preceded it), then start"
    " counting afresh. '3ab12c' becomes 'aaab' followed by twelve 'c's.",
    examples=[("3ab2c",), ("x",)],
    tests=[("",), ("abc",), ("10z",), ("2a2b2a",), ("1x1y",), ("3 2-",)],
)
def rle_decode(code: str) -> str:
    out = []
    count = ""
    for ch in code:
        if ch.isdigit():
            count += ch
        else:
            out.append(ch * (int(count) if count else 1))
            count = ""
    return "".join(out)


@FAMILY.problem(
    "Apply the Atbash mirror cipher to `text`, extended to digits: each ASCII letter is replaced by"
    " the letter at the mirrored position of the alphabet (a<->z, b<->y, ...; case kept), each digit"
    " d by 9 - d, and every other character is unchanged.",
    "Given `text`, return its mirror encoding: the alphabet is reversed for letters ('a' becomes"
    " 'z', 'B' becomes 'Y'), digits are reversed among 0-9 ('0' becomes '9', '3' becomes '6'), and"
    " spaces and punctuation stay as they are. Encoding twice gives back the original.",
    examples=[("Hello 123",)],
    tests=[("",), ("az AZ",), ("09",), ("m n",), ("Wizard-42!",), ("[x_y] @ z:",)],
)
def atbash_digits(text: str) -> str:
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr(ord("z") - (ord(ch) - ord("a"))))
        elif "A" <= ch <= "Z":
            out.append(chr(ord("Z") - (ord(ch) - ord("A"))))
        elif "0" <= ch <= "9":
            out.append(str(9 - int(ch)))
        else:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Encrypt `text` with a columnar transposition of `cols` columns: first remove every space, then"
    " write the characters row by row into rows of `cols` characters (the last row may be shorter),"
    " and read them out column by column, top to bottom, from the first column to the last.",
    "Given `text` and a positive number of columns `cols`, drop all space characters and return"
    " the characters at positions 0, cols, 2*cols, ... followed by those at 1, cols+1, ..., and so"
    " on up to column cols-1. No padding is added.",
    examples=[("we are discovered", 4), ("abc", 5)],
    tests=[("", 3), ("abcdef", 1), ("abcdef", 2), ("abcdefg", 3), ("a b c d", 2), ("transposition", 4)],
)
def columnar_transpose(text: str, cols: int) -> str:
    letters = text.replace(" ", "")
    return "".join(letters[c::cols] for c in range(cols))


@FAMILY.problem(
    "Return whether the card number `number` passes the Luhn check. Spaces and '-' are ignored;"
    " any other non-digit character makes it invalid, and so do fewer than two digits. Double"
    " every second digit counting from the rightmost digit (which is not doubled), subtract 9 from"
    " any doubled value above 9, and the number is valid when the sum of all digits is divisible"
    " by 10.",
    "Given `number` as typed by a user (digits possibly grouped with spaces or hyphens), validate"
    " it with the Luhn algorithm: ignore the separators, reject anything containing another"
    " non-digit or having fewer than 2 digits, then from the right double the 2nd, 4th, ... digit,"
    " replacing a doubled value d > 9 by d - 9, and accept when the total is a multiple of 10.",
    examples=[("4539 3195 0343 6467",), ("8273 1232 7352 0569",)],
    tests=[("",), ("0",), ("00",), ("059",), ("4111-1111-1111-1111",), ("4111 1111 1111 111a",),
           ("4111-1111-1111-1112",)],
)
def luhn_valid(number: str) -> bool:
    digits = []
    for ch in number:
        if ch in " -":
            continue
        if not "0" <= ch <= "9":
            return False
        digits.append(int(ch))
    if len(digits) < 2:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


@FAMILY.problem(
    "Return the position-weighted checksum of `text` modulo `modulus`: the sum over all characters"
    " of (1-based position) * (character code from ord), taken modulo `modulus`.",
    "Given `text` and a positive `modulus`, multiply each character's code point by its position in"
    " the string, starting at 1 for the first character, add up the products, and return the"
    " remainder of the total divided by `modulus` (0 for an empty string).",
    examples=[("abc", 1000), ("abc", 7)],
    tests=[("", 5), ("a", 100), ("ab", 1000), ("ba", 1000), ("hello world", 251), ("zz", 1)],
)
def weighted_checksum(text: str, modulus: int) -> int:
    return sum((i + 1) * ord(ch) for i, ch in enumerate(text)) % modulus


@FAMILY.problem(
    "Compute the ISBN-10 check character for `digits`, a string of exactly 9 digits. Multiply the"
    " digits by 10, 9, 8, ..., 2 from left to right and sum; the check value is the number from 0"
    " to 10 that makes the total plus the check value divisible by 11. Return it as a string, with"
    " 10 written as 'X'.",
    "Given the first nine digits of an ISBN-10 as the string `digits`, return its final check"
    " character: weight the digits 10 down to 2, sum, and pick c in 0..10 with (sum + c) % 11 == 0;"
    " answer str(c), or 'X' when c is 10.",
    examples=[("030640615",), ("080442957",)],
    tests=[("000000000",), ("123456789",), ("999999999",), ("000000001",), ("000000010",), ("193279300",)],
)
def isbn10_check_char(digits: str) -> str:
    total = sum((10 - i) * int(d) for i, d in enumerate(digits))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


@FAMILY.problem(
    "Apply the substitution `mapping` (from lower-case letters to lower-case letters) to `text`."
    " Letters are looked up by their lower-case form; an upper-case letter is replaced by the"
    " upper-case form of its substitute. Characters whose lower-case form is not a key of"
    " `mapping` are copied unchanged.",
    "Given `text` and a dictionary `mapping` of lower-case letter -> lower-case letter, return the"
    " enciphered text: every character that (lower-cased) appears in `mapping` is swapped for its"
    " image, keeping the original's case, and everything else is left as it is.",
    examples=[("Hello", {"h": "j", "l": "x"})],
    tests=[("", {"a": "b"}), ("abc", {}), ("ABC abc", {"a": "c", "c": "a"}), ("Zoo!", {"z": "q", "o": "u"}),
           ("aA1", {"a": "z"})],
)
def substitute_letters(text: str, mapping: dict[str, str]) -> str:
    out = []
    for ch in text:
        low = ch.lower()
        if low in mapping:
            out.append(mapping[low].upper() if ch.isupper() else mapping[low])
        else:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "Build the cipher alphabet of a keyword cipher from `keyword`: the distinct ASCII letters of"
    " `keyword` lower-cased, in order of first appearance, followed by the remaining letters of"
    " a-z in alphabetical order. Non-letters in `keyword` are ignored. The result always has 26"
    " letters.",
    "Given `keyword`, return a 26-letter string that starts with the keyword's letters (lower case,"
    " each only the first time it appears, skipping anything that is not an ASCII letter) and"
    " continues with every letter not yet used, from 'a' to 'z'.",
    examples=[("Zebras",)],
    tests=[("",), ("a",), ("hello world",), ("ZYX",), ("c3-p0 r2d2",), ("abcdefghijklmnopqrstuvwxyz",)],
)
def keyword_alphabet(keyword: str) -> str:
    import string

    out: list[str] = []
    for ch in keyword.lower() + string.ascii_lowercase:
        if ch in string.ascii_lowercase and ch not in out:
            out.append(ch)
    return "".join(out)


@FAMILY.problem(
    "XOR-encrypt `text` with the repeating `key` (non-empty): character i of `text` has its code"
    " XOR-ed with the code of key[i % len(key)]. Write each result as two lower-case hexadecimal"
    " digits and join them with ':'. All codes are below 256.",
    "Given `text` and a non-empty `key`, cycle the key along the text, XOR each pair of character"
    " codes, and return the results as zero-padded two-digit lower-case hex numbers separated by"
    " colons ('' for empty text).",
    examples=[("Hi", "k"), ("abc", "ab")],
    tests=[("", "x"), ("A", "A"), ("hello", "k"), ("hello", "key"), ("  ", "!"), ("zzzz", "az")],
)
def xor_to_hex(text: str, key: str) -> str:
    return ":".join(f"{ord(ch) ^ ord(key[i % len(key)]):02x}" for i, ch in enumerate(text))


@FAMILY.problem(
    "Decode `code`, a sequence of two-digit hexadecimal numbers separated by ':' (or the empty"
    " string), by XOR-ing the i-th number with the character code of key[i % len(key)] and turning"
    " each result back into a character. `key` is non-empty. An empty `code` gives ''.",
    "Given colon-separated hex bytes `code` produced by a repeating-key XOR and the `key`, recover"
    " the text: parse each byte in base 16, XOR it with the code of the matching key character"
    " (the key repeats as needed), and convert the value to a character with chr.",
    examples=[("23:02", "k"), ("00:00:02", "ab")],
    tests=[("", "x"), ("00", "A"), ("03:0e:07:07:04", "k"), ("0d:00:15:07:0a", "key"), ("FF:7f", "\x01"),
           ("1b:00:1b:00", "az")],
)
def hex_xor_decode(code: str, key: str) -> str:
    if not code:
        return ""
    return "".join(chr(int(part, 16) ^ ord(key[i % len(key)])) for i, part in enumerate(code.split(":")))


@FAMILY.problem(
    "Scramble `text` by swapping each pair of neighbouring characters: characters 0 and 1 trade"
    " places, then 2 and 3, and so on. If the length is odd, the last character stays where it is.",
    "Given `text`, return it with the characters at positions 2k and 2k+1 exchanged for every k;"
    " a final unpaired character is left at the end. Applying the function twice restores the"
    " text.",
    examples=[("abcdef",), ("hello",)],
    tests=[("",), ("a",), ("ab",), ("abc",), ("secret message",), ("1234567",)],
)
def swap_pairs(text: str) -> str:
    out = []
    for i in range(0, len(text) - 1, 2):
        out.append(text[i + 1] + text[i])
    if len(text) % 2 == 1:
        out.append(text[-1])
    return "".join(out)


@FAMILY.problem(
    "Extract the hidden message from `text`: take the `n`-th character (1-based) of every"
    " whitespace-separated word that has at least `n` characters, skipping shorter words, and"
    " concatenate them in order.",
    "A spy hides messages in ordinary sentences. Given `text` and a position `n` (starting at 1),"
    " return the string formed by character number `n` of each word, in word order, where words"
    " too short to have an `n`-th character contribute nothing.",
    examples=[("hold every lamp lit openly", 1), ("a big cat", 2)],
    tests=[("", 1), ("x", 1), ("x", 2), ("ab cd ef", 2), ("  one   two  three ", 3), ("pi is 3.14 ok", 4)],
)
def hidden_message(text: str, n: int) -> str:
    return "".join(word[n - 1] for word in text.split() if len(word) >= n)


@FAMILY.problem(
    "Return the Adler-32 checksum of `text` (characters taken by their ord codes): start with"
    " a = 1 and b = 0; for each character set a = (a + code) % 65521 and then b = (b + a) % 65521;"
    " the checksum is b * 65536 + a.",
    "Given `text`, compute its Adler-32 value: keep a running sum `a` of the character codes plus"
    " one and a running sum `b` of all the successive values of `a`, both reduced modulo 65521"
    " after every step, and return b shifted left by 16 bits plus a (b * 65536 + a). The empty"
    " string has checksum 1.",
    examples=[("Wikipedia",)],
    tests=[("",), ("a",), ("ab",), ("ba",), ("\xff" * 300,), ("hello world",)],
)
def adler32(text: str) -> int:
    a, b = 1, 0
    for ch in text:
        a = (a + ord(ch)) % 65521
        b = (b + a) % 65521
    return b * 65536 + a


@FAMILY.problem(
    "Encode `text` as the alphabet positions of its letters (a=1, b=2, ..., z=26, ignoring case),"
    " written in decimal and joined by '-'. Characters that are not ASCII letters are skipped. Text"
    " without letters gives ''.",
    "Given `text`, replace every ASCII letter by its 1-based position in the alphabet (upper and"
    " lower case alike) and return the numbers separated by hyphens, dropping spaces, digits and"
    " punctuation; for example 'Hi!' becomes '8-9'.",
    examples=[("Hi!",), ("abc xyz",)],
    tests=[("",), ("123 ?",), ("a",), ("Z",), ("Cab 2",), ("zebra",)],
    level=1,
)
def letter_positions(text: str) -> str:
    return "-".join(str(ord(ch) - ord("a") + 1) for ch in text.lower() if "a" <= ch <= "z")


@FAMILY.problem(
    "Return a new list with every number of `values` XOR-ed with `key` (Python's ^ operator) and"
    " then reduced modulo 256, so that each result is a byte from 0 to 255.",
    "Given a list of integers `values` and an integer `key` (both non-negative), encrypt each"
    " value by computing (value ^ key) % 256, keeping the order; an empty list stays empty.",
    examples=[([1, 2, 3], 1), ([72, 105], 288)],
    tests=[([], 5), ([0, 0], 0), ([255, 0, 15], 255), ([10], 10), ([7, 8, 9, 10], 6), ([100, 200], 259),
           ([256, 300, 511], 0), ([1, 2], 766)],
    level=1,
)
def xor_values(values: list[int], key: int) -> list[int]:
    out = []
    for value in values:
        out.append((value ^ key) % 256)
    return out


@FAMILY.problem(
    "Encrypt `text` with a two-rail fence: return the characters at even positions (0, 2, 4, ...)"
    " followed by the characters at odd positions (1, 3, 5, ...). Spaces are characters like any"
    " other.",
    "Given `text`, write its characters alternately on two rails, the first character on the top"
    " rail, and read off the top rail and then the bottom rail; 'secret' becomes 'sceert'.",
    examples=[("secret",), ("abcde",)],
    tests=[("",), ("a",), ("ab",), ("abc",), ("hello world",), ("12345678",)],
    level=1,
)
def two_rail_encode(text: str) -> str:
    return text[0::2] + text[1::2]


@FAMILY.problem(
    "Return the character codes of `text` (from ord) as 8-digit binary numbers with leading zeros,"
    " separated by single spaces. All codes are below 256. The empty string gives ''.",
    "Given `text`, write each character as its code point in base 2, zero-padded to exactly 8"
    " bits, and join these bit strings with one space, e.g. 'A' is '01000001'.",
    examples=[("A",), ("Hi",)],
    tests=[("",), ("\x00",), ("\xff",), (" ",), ("abc",), ("1+1",)],
    level=1,
)
def binary_codes(text: str) -> str:
    return " ".join(bin(ord(ch))[2:].zfill(8) for ch in text)


@FAMILY.problem(
    "Repeat the non-empty string `key` as often as needed and return exactly its first `length`"
    " characters, as is done to line a key up with a message. A `length` of 0 gives ''.",
    "Given a non-empty `key` and a target `length` (length >= 0), return the string made by"
    " writing `key` over and over and cutting the result to `length` characters; the result may"
    " be shorter than `key`.",
    examples=[("lemon", 12), ("key", 2)],
    tests=[("abc", 0), ("x", 4), ("abc", 3), ("abc", 7), ("ab", 1), ("secret", 13)],
    level=1,
)
def stretch_key(key: str, length: int) -> str:
    out = []
    for i in range(length):
        out.append(key[i % len(key)])
    return "".join(out)


@FAMILY.problem(
    "Decode the list `numbers`, where 1 stands for 'a', 2 for 'b', ... and 26 for 'z', into a"
    " string of lower-case letters. A number outside 1..26 becomes '?'. An empty list gives ''.",
    "Given a list of integers `numbers` produced by the a=1 ... z=26 letter code, return the"
    " decoded lower-case word; any number that is not between 1 and 26 inclusive is written as a"
    " question mark.",
    examples=[([8, 9],), ([3, 0, 27],)],
    tests=[([],), ([1],), ([26],), ([0, 1, 26, 27],), ([-1, 5],), ([19, 16, 25],)],
    level=1,
)
def letters_from_numbers(numbers: list[int]) -> str:
    return "".join(chr(n + 96) if 1 <= n <= 26 else "?" for n in numbers)
