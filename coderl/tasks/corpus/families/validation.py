from coderl.tasks.corpus.define import Family

FAMILY = Family("validation", "check formats: identifiers, passwords, checksums, addresses, colours")


@FAMILY.problem(
    "Check `password` against five rules and return the names of the rules it breaks, in this"
    " order: \"length\" (fewer than 8 characters), \"upper\" (no upper-case letter), \"lower\" (no"
    " lower-case letter), \"digit\" (no digit) and \"symbol\" (no character that is neither a"
    " letter nor a digit). A password that satisfies every rule gives [].",
    "A sign-up form explains what is wrong with a password. Given password, return a list with"
    " \"length\" if it is shorter than 8 characters, then \"upper\" if it lacks an upper-case letter,"
    " \"lower\" if it lacks a lower-case letter, \"digit\" if it lacks a digit, and \"symbol\" if"
    " every character is a letter or digit. Keep exactly that order; an acceptable password gets"
    " an empty list.",
    examples=[("abc",), ("Secret#42",)],
    tests=[("",), ("ABCDEFGH",), ("abcdefg1",), ("Abcdefg!",), ("Ab1!",), ("Abcde1!",), ("        ",),
           ("Pass word 9",)],
)
def password_problems(password: str) -> list[str]:
    problems = []
    if len(password) < 8:
        problems.append("length")
    if not any(ch.isupper() for ch in password):
        problems.append("upper")
    if not any(ch.islower() for ch in password):
        problems.append("lower")
    if not any(ch.isdigit() for ch in password):
        problems.append("digit")
    if all(ch.isalnum() for ch in password):
        problems.append("symbol")
    return problems


@FAMILY.problem(
    "Return True if `passphrase` is acceptable: it has at least 12 characters, no character"
    " appears three or more times in a row, and, when `username` is non-empty, the passphrase does"
    " not contain username anywhere (compared case-insensitively).",
    "Given a passphrase and the user's username, decide whether the passphrase may be used. It is"
    " rejected when it is shorter than 12 characters, when some character (including spaces) occurs"
    " at three consecutive positions, such as \"aaa\", or when username is not empty and occurs"
    " inside the passphrase ignoring letter case. Otherwise return True.",
    examples=[("correct horse", "bob"), ("aaa-long-passphrase", "x")],
    tests=[("", "a"), ("eleven char", "z"), ("banana split", "x"), ("my bob is great", "BOB"),
           ("Hello ALICE friend", "alice"), ("aabbccddeeff", ""), ("good passphrasesss", "zed"),
           ("a   spaced out phrase", "q")],
)
def is_acceptable_passphrase(passphrase: str, username: str) -> bool:
    if len(passphrase) < 12:
        return False
    for i in range(len(passphrase) - 2):
        if passphrase[i] == passphrase[i + 1] == passphrase[i + 2]:
            return False
    if username and username.lower() in passphrase.lower():
        return False
    return True


@FAMILY.problem(
    "Return True if `number` passes the Luhn checksum. Spaces in number are ignored; any other"
    " non-digit character makes it invalid, and so does having fewer than two digits. Starting"
    " from the rightmost digit, double every second digit (subtracting 9 when the double exceeds"
    " 9), sum all digits, and accept when the sum is divisible by 10.",
    "Card numbers such as \"7041 2286 5530 9121\" carry a Luhn check digit. Given number, strip the"
    " spaces; if anything but digits remains or there are fewer than 2 digits, return False."
    " Otherwise double the 2nd, 4th, 6th... digits counted from the right, replacing a doubled"
    " value above 9 by itself minus 9, add everything up, and return whether the total is a"
    " multiple of 10.",
    examples=[("7041 2286 5530 9121",), ("7041 2286 5530 9127",)],
    tests=[("0",), (" 0 0 ",), ("059",), ("59",), ("055 444 285",), ("055-444-285",),
           ("79927398713",), ("79927398710",)],
)
def luhn_valid(number: str) -> bool:
    digits = number.replace(" ", "")
    if len(digits) < 2 or not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


@FAMILY.problem(
    "Return the Luhn check digit that must be appended to the digit string `payload` so that the"
    " whole number passes the Luhn test. After appending, the check digit is the rightmost digit,"
    " so the rightmost digit of payload is the first one doubled (doubles above 9 lose 9).",
    "Given payload, a non-empty string of digits, compute the digit 0-9 to append so that the"
    " result has a valid Luhn checksum: counting from the right of payload, double the 1st, 3rd,"
    " 5th... digits (subtract 9 from any double above 9), add all digits, and return the amount"
    " that brings the sum up to the next multiple of 10 (0 if it already is one).",
    examples=[("7992739871",), ("123",)],
    tests=[("0",), ("5",), ("9",), ("453919",), ("00000",), ("37828224631000",)],
)
def luhn_check_digit(payload: str) -> int:
    total = 0
    for i, ch in enumerate(reversed(payload)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return (10 - total % 10) % 10


@FAMILY.problem(
    "Return True if `isbn` is a valid ISBN-10. Hyphens are ignored; what remains must be nine"
    " digits followed by a digit or `X` (meaning 10). The number is valid when the sum of each"
    " value times its weight, with weights 10, 9, ..., 1 from left to right, is divisible by 11.",
    "A library scanner checks ten-character book numbers. Given isbn, drop every `-`; it must then"
    " be exactly 10 characters, the first nine digits and the last a digit or an upper-case X"
    " worth 10. Multiply the first character by 10, the second by 9, and so on down to 1 for the"
    " last, and report whether the total is a multiple of 11.",
    examples=[("0-8044-2957-X",), ("1-56619-909-4",)],
    tests=[("",), ("0-8044-2957-x",), ("1566199093",), ("1-56619-9X9-3",), ("156619909",),
           ("0-306-40615-2",), ("0-19-853453-1",), ("15661990X3",), ("15661990931",),
           ("080442957X",)],
)
def is_valid_isbn10(isbn: str) -> bool:
    chars = isbn.replace("-", "")
    if len(chars) != 10 or not chars[:9].isdigit():
        return False
    if chars[9] == "X":
        last = 10
    elif chars[9].isdigit():
        last = int(chars[9])
    else:
        return False
    total = sum(int(ch) * (10 - i) for i, ch in enumerate(chars[:9])) + last
    return total % 11 == 0


@FAMILY.problem(
    "Return True if `code` is a valid 13-digit barcode number (EAN-13 / ISBN-13). Spaces and"
    " hyphens are ignored; exactly 13 digits must remain, and the sum of the digits weighted"
    " alternately 1, 3, 1, 3, ... from the left must be divisible by 10.",
    "Given code, remove spaces and hyphens and check it: it must consist of 13 digits whose"
    " weighted sum, using weight 1 for the 1st, 3rd, 5th... digits and weight 3 for the 2nd, 4th,"
    " 6th..., is a multiple of 10. Return the result as a bool.",
    examples=[("978-0-306-40615-7",), ("978 0 306 40615 8",)],
    tests=[("",), ("9780306406157",), ("4006381333931",), ("4006381333932",), ("400638133393",),
           ("40063813339310",), ("400638133393a",), ("4006 3813 3393 1",), ("400-638-133-393-1",)],
)
def is_valid_ean13(code: str) -> bool:
    digits = code.replace(" ", "").replace("-", "")
    if len(digits) != 13 or not digits.isdigit():
        return False
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return total % 10 == 0


@FAMILY.problem(
    "Return True if `address` is a dotted IPv4 address: exactly four parts separated by dots,"
    " each made only of digits, with a value from 0 to 255, and without leading zeros (\"0\" itself"
    " is fine, \"01\" is not). No spaces or other characters are allowed.",
    "Given address, decide whether it is written as a canonical IPv4 address such as"
    " \"192.168.0.1\": four dot-separated decimal numbers between 0 and 255, each non-empty, digits"
    " only (no signs or spaces) and with no extra leading zero. Return True or False.",
    examples=[("192.168.0.1",), ("256.1.1.1",)],
    tests=[("",), ("0.0.0.0",), ("255.255.255.255",), ("1.2.3",), ("1.2.3.4.5",), ("10.01.0.1",),
           ("1..2.3",), ("1.2.3.-4",), (" 1.2.3.4",), ("10.20.30.40",), ("8.8.8.256",)],
)
def is_valid_ipv4(address: str) -> bool:
    parts = address.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part.isdigit() or int(part) > 255:
            return False
        if len(part) > 1 and part[0] == "0":
            return False
    return True


@FAMILY.problem(
    "Return True if `text` is a CSS hex colour: a `#` followed by exactly 3 or exactly 6"
    " hexadecimal digits (0-9, a-f, A-F) and nothing else.",
    "Given text, report whether it is written like \"#1a2B3c\" or \"#fff\": a leading hash sign"
    " then either three or six hex digits in any letter case. Anything else (missing #, other"
    " lengths, letters past f) is invalid.",
    examples=[("#1a2B3c",), ("#ggg",)],
    tests=[("",), ("#",), ("#fff",), ("fff000",), ("#ABCD",), ("#0000000",), ("#12345",), ("abcd",),
           ("#g00",), ("#abcdef",)],
)
def is_hex_colour(text: str) -> bool:
    if len(text) not in (4, 7) or text[0] != "#":
        return False
    return all(ch in "0123456789abcdefABCDEF" for ch in text[1:])


@FAMILY.problem(
    "Convert the hex colour `colour` to an (r, g, b) tuple of integers. colour is `#` followed by"
    " 6 hex digits, or by 3 hex digits where each digit is doubled (\"#fa0\" means \"#ffaa00\")."
    " Letter case does not matter. Return None if colour is not in one of these forms.",
    "Given colour such as \"#ff8000\" or the short form \"#f80\" (each digit repeated), return the"
    " red, green and blue components as a tuple of three ints in 0-255. For any string that is"
    " not a `#` plus 3 or 6 hexadecimal digits (upper or lower case), return None.",
    examples=[("#ff8000",), ("#f80",)],
    tests=[("",), ("#000",), ("#FFFFFF",), ("#1a2b3c",), ("123456",), ("#12345",), ("#12g",),
           ("#A0b",), ("x123456",)],
)
def hex_to_rgb(colour: str) -> tuple[int, int, int] | None:
    digits = colour[1:]
    if not colour.startswith("#") or len(digits) not in (3, 6):
        return None
    if any(ch not in "0123456789abcdefABCDEF" for ch in digits):
        return None
    if len(digits) == 3:
        digits = "".join(ch * 2 for ch in digits)
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


@FAMILY.problem(
    "Return True if `email` is acceptable under these simplified rules: exactly one `@`; the part"
    " before it is non-empty and uses only letters, digits, `.`, `_` and `-`; the part after it"
    " is split by dots into at least two labels, every label non-empty and made of letters,"
    " digits and `-`; and the last label has at least 2 characters, all letters.",
    "Given email, validate it the way a simple sign-up form does. It needs a single @ separating"
    " a non-empty local part (letters, digits, dot, underscore, hyphen) from a domain. The domain"
    " is two or more dot-separated labels, none empty, each of letters, digits or hyphens, and"
    " the final label (the top-level domain) is two or more letters only. Return a bool.",
    examples=[("ann.lee@example.com",), ("bad@domain",)],
    tests=[("",), ("@x.io",), ("a@b.c",), ("a@@b.io",), ("first_last-1@mail.co.uk",),
           ("a@b..io",), ("a b@c.io",), ("x@host.c0m",), ("q@sub-domain.org",), ("a@mail.uk.x",),
           ("bad@localhost",), ("a@ho_st.com",), ("a@mail.uk.c0m",)],
)
def is_valid_email(email: str) -> bool:
    if email.count("@") != 1:
        return False
    local, domain = email.split("@")
    if not local or not all(ch.isalnum() or ch in "._-" for ch in local):
        return False
    labels = domain.split(".")
    if len(labels) < 2:
        return False
    for label in labels:
        if not label or not all(ch.isalnum() or ch == "-" for ch in label):
            return False
    return len(labels[-1]) >= 2 and labels[-1].isalpha()


@FAMILY.problem(
    "Return True if `text` is a 24-hour clock time written exactly as \"HH:MM\": two digits, a"
    " colon, two digits, with the hour from 00 to 23 and the minute from 00 to 59.",
    "Given text, decide whether it is a well-formed time of day such as \"07:45\" or \"23:59\"."
    " It must be five characters long, digits at positions 0, 1, 3, 4 and a colon in the middle;"
    " hours above 23 or minutes above 59 are invalid, and so is \"7:45\" (no padding).",
    examples=[("07:45",), ("24:00",)],
    tests=[("",), ("00:00",), ("23:59",), ("7:45",), ("12:60",), ("12-30",), ("1a:00",),
           ("20:5 ",), ("24:00",), ("19:09",)],
)
def is_valid_time_24h(text: str) -> bool:
    if len(text) != 5 or text[2] != ":":
        return False
    hours, minutes = text[:2], text[3:]
    if not (hours.isdigit() and minutes.isdigit()):
        return False
    return int(hours) < 24 and int(minutes) < 60


@FAMILY.problem(
    "Return True if `text` is a MAC address: six groups of exactly two hexadecimal digits (any"
    " case), separated either all by `:` or all by `-` (mixing separators is invalid).",
    "Given text such as \"00:1A:2b:3C:4d:5E\" or \"00-1a-2b-3c-4d-5e\", check that it consists of"
    " six two-digit hex groups joined by one consistent separator, either colon or hyphen, and"
    " nothing else. Return a bool.",
    examples=[("00:1A:2b:3C:4d:5E",), ("00-1a:2b-3c-4d-5e",)],
    tests=[("",), ("00-1a-2b-3c-4d-5e",), ("00:1A:2B:3C:4D",), ("00:1A:2B:3C:4D:5E:6F",),
           ("0:1A:2B:3C:4D:5E",), ("00:1A:2B:3C:4D:5G",), ("001A2B3C4D5E",), ("ff:ff:ff:ff:ff:ff",)],
)
def is_valid_mac(text: str) -> bool:
    for sep in (":", "-"):
        groups = text.split(sep)
        if len(groups) == 6 and all(
            len(g) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in g) for g in groups
        ):
            return True
    return False


@FAMILY.problem(
    "Return True if the account code `code` passes the mod-97 check used by IBANs. Remove spaces"
    " and upper-case it; it must then be at least 5 characters of letters and digits. Move the"
    " first four characters to the end, replace every letter by a number (A=10, B=11, ..., Z=35),"
    " read the result as one big integer, and accept when it leaves remainder 1 modulo 97.",
    "Banks check account codes like \"GB82 WEST 1234 5698 7654 32\". Given code, drop the spaces,"
    " treat letters case-insensitively, and reject anything shorter than 5 characters or"
    " containing characters other than letters and digits. Otherwise rotate the first 4"
    " characters to the back, turn each letter into its two-digit value (A is 10 up to Z is 35),"
    " and return whether the resulting number modulo 97 equals 1.",
    examples=[("GB82 WEST 1234 5698 7654 32",), ("GB82 TEST 1234 5698 7654 32",)],
    tests=[("",), ("de89 3704 0044 0532 0130 00",), ("DE89370400440532013001",), ("GB82",),
           ("GB82-WEST-1234-5698-7654-32",), ("NL91ABNA0417164300",), ("NL91ABNA0417164301",),
           ("0001",), ("10057",)],
)
def is_valid_iban(code: str) -> bool:
    text = code.replace(" ", "").upper()
    if len(text) < 5 or not text.isalnum():
        return False
    rotated = text[4:] + text[:4]
    number = ""
    for ch in rotated:
        number += str(ord(ch) - ord("A") + 10) if ch.isalpha() else ch
    return int(number) % 97 == 1


@FAMILY.problem(
    "Return True if `text` is a real calendar date written as \"YYYY-MM-DD\" (four digits, hyphen,"
    " two digits, hyphen, two digits). The month must be 01-12 and the day must exist in that"
    " month of the Gregorian calendar, where February has 29 days in leap years (years divisible"
    " by 4, except centuries not divisible by 400). Year 0000 is not allowed.",
    "Given text, check that it is a valid ISO date such as \"2024-02-29\": the exact layout"
    " YYYY-MM-DD with digits, a year from 0001 to 9999, a month from 01 to 12, and a day from 01 up"
    " to the length of that month (February has 29 days when the year is divisible by 4 but not by"
    " 100, or divisible by 400; otherwise 28).",
    examples=[("2024-02-29",), ("2023-02-29",)],
    tests=[("",), ("1900-02-29",), ("2000-02-29",), ("2019-02-29",), ("2023-02-28",), ("2023-04-31",),
           ("2023-06-31",), ("2023-01-32",), ("2023-01-01",), ("2023-12-31",), ("2023-13-01",),
           ("2023-00-10",), ("2023-+1-05",), ("2023/06-01",), ("0000-01-01",), ("2023-06-00",)],
)
def is_valid_iso_date(text: str) -> bool:
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        return False
    y, m, d = text[:4], text[5:7], text[8:]
    if not (y.isdigit() and m.isdigit() and d.isdigit()):
        return False
    year, month, day = int(y), int(m), int(d)
    if year == 0 or not 1 <= month <= 12:
        return False
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        last = 29 if leap else 28
    elif month in (4, 6, 9, 11):
        last = 30
    else:
        last = 31
    return 1 <= day <= last


@FAMILY.problem(
    "Return the names in `required`, in their given order, whose entry in the form `fields` is"
    " missing or contains only whitespace (or is empty). An empty result means the form is"
    " complete.",
    "Before submitting a form, list what the user still has to fill in. Given fields (a dict"
    " from field name to the text typed) and required (the names that must be filled), return the"
    " required names that are absent from fields or whose value is blank after stripping"
    " whitespace, keeping the order of required.",
    examples=[({"name": "Ann", "email": "  "}, ["name", "email", "phone"])],
    tests=[({}, []), ({}, ["a"]), ({"a": "x", "b": "y"}, ["b", "a"]), ({"a": "\t\n"}, ["a"]),
           ({"z": "", "y": " 0 ", "x": "-"}, ["x", "y", "z", "w"]), ({"a": "1"}, ["c", "b"])],
)
def missing_required(fields: dict[str, str], required: list[str]) -> list[str]:
    return [name for name in required if not fields.get(name, "").strip()]


@FAMILY.problem(
    "Return True if `code` consists of exactly `length` characters and every one of them is a"
    " digit 0-9; otherwise return False. An empty code is never valid.",
    "A door keypad accepts numeric codes of a fixed size. Given code and the required length,"
    " check that code is made only of digits and has exactly that many of them.",
    examples=[("0427", 4), ("12a4", 4)],
    tests=[("", 0), ("123", 4), ("12345", 4), ("00000", 5), ("9", 1), ("12 4", 4)],
    level=1,
)
def is_digit_code(code: str, length: int) -> bool:
    return len(code) == length and code.isdigit()


@FAMILY.problem(
    "Return the index of the first character of `text` that does not appear in `allowed`, or -1 if"
    " every character of text is allowed (also when text is empty).",
    "Given a string text and a string allowed listing the permitted characters, find the position"
    " of the earliest character of text that is not permitted; return -1 when there is none.",
    examples=[("ab-cd", "abcd"), ("1001", "01")],
    tests=[("", "abc"), ("x", ""), ("aaa", "a"), ("abcX", "abc"), ("Zabc", "abc"), ("a b", "ab")],
    level=1,
)
def first_invalid_char(text: str, allowed: str) -> int:
    for i, c in enumerate(text):
        if c not in allowed:
            return i
    return -1


@FAMILY.problem(
    "Check the length of the form field `text` against `limit`: return \"empty\" if text is the"
    " empty string, \"too long\" if it has more than limit characters, and \"ok\" otherwise.",
    "Given a field value text and a maximum length limit, return a status word: \"empty\" for an"
    " empty value, \"too long\" when len(text) exceeds limit, else \"ok\".",
    examples=[("Ann", 10), ("", 5)],
    tests=[("abcde", 5), ("abcdef", 5), ("", 0), ("x", 0), ("hello world", 20), ("  ", 1)],
    level=1,
)
def length_status(text: str, limit: int) -> str:
    if text == "":
        return "empty"
    return "too long" if len(text) > limit else "ok"


@FAMILY.problem(
    "Return True if `text` is a valid network port number: only digits (no sign or spaces) and a"
    " value from 1 to 65535 inclusive.",
    "Given the text of a port field, accept it only when it is all digits and its value lies"
    " between 1 and 65535; \"0\", \"-1\", \"\" and \"70000\" are rejected.",
    examples=[("8080",), ("0",)],
    tests=[("1",), ("65535",), ("65536",), ("-1",), ("",), ("8o",), ("443",)],
    level=1,
)
def is_valid_port(text: str) -> bool:
    return text.isdigit() and 1 <= int(text) <= 65535


@FAMILY.problem(
    "Return the 1-based numbers of the lines in `lines` that are longer than `limit` characters, in"
    " increasing order. Return an empty list if every line fits.",
    "A style checker flags lines over a length limit. Given the list lines and limit, list the line"
    " numbers (counting from 1) of the lines whose length is greater than limit.",
    examples=[(["short", "much too long", "ok"], 6), ([], 3)],
    tests=[(["abc"], 3), (["abcd"], 3), (["", "x", "xy"], 0), (["aaaa", "bb", "cccc"], 2), (["a", "b"], 80)],
    level=1,
)
def overlong_lines(lines: list[str], limit: int) -> list[int]:
    return [i + 1 for i, line in enumerate(lines) if len(line) > limit]


@FAMILY.problem(
    "`code` is a string of digits. Return True if the sum of its digits modulo 10 equals `check`,"
    " and False otherwise. An empty code has digit sum 0.",
    "Given a digit string code and a check value check, verify the simple checksum: add up the"
    " digits of code, take the last digit of that sum, and compare it with check.",
    examples=[("1234", 0), ("555", 1)],
    tests=[("", 0), ("", 1), ("7", 7), ("99", 8), ("99", 18), ("1111111111", 0), ("4062", 2)],
    level=1,
)
def check_digit_matches(code: str, check: int) -> bool:
    return sum(int(d) for d in code) % 10 == check
