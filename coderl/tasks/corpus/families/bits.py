from coderl.tasks.corpus.define import Family

FAMILY = Family("bits", "bit tricks: popcount, parity, powers of two, bit reversal, masks, Gray code")


@FAMILY.problem(
    "Return the total number of 1 bits in the binary representations of all integers from 0 to n"
    " inclusive. n is non-negative.",
    "Given n >= 0, write 0, 1, 2, ..., n in binary and count every '1' digit written. Return the"
    " count.",
    examples=[(5,), (0,)],
    tests=[(1,), (2,), (3,), (7,), (8,), (100,)],
)
def count_set_bits_upto(n: int) -> int:
    return sum(bin(k).count("1") for k in range(n + 1))


@FAMILY.problem(
    "Return the even-parity bit for the non-negative integer n: 1 if the binary form of n has an odd"
    " number of 1 bits (so that adding the parity bit makes the count even), else 0.",
    "A serial link appends one parity bit to every word so that the total number of ones is even."
    " Given the word n (n >= 0), compute the bit to append, 0 or 1.",
    examples=[(7,), (5,)],
    tests=[(0,), (1,), (2,), (3,), (255,), (1023,), (1 << 40,)],
)
def parity_bit(n: int) -> int:
    return bin(n).count("1") % 2


@FAMILY.problem(
    "Return True if n is a power of four (1, 4, 16, 64, ...) and False otherwise. Zero and negative"
    " numbers are not powers of four.",
    "Given an integer n, decide whether n == 4 ** k for some integer k >= 0. Powers of two that are"
    " not powers of four, such as 2 or 8, do not count.",
    examples=[(16,), (8,)],
    tests=[(1,), (0,), (-4,), (2,), (5,), (1 << 40,), (1 << 41,), (12,)],
)
def is_power_of_four(n: int) -> bool:
    if n <= 0 or n & (n - 1):
        return False
    return n.bit_length() % 2 == 1


@FAMILY.problem(
    "Reverse the order of the lowest width bits of n and return the resulting number; bit i moves to"
    " position width - 1 - i, and any bits of n at position width or above are dropped. n >= 0 and"
    " width >= 0.",
    "Given a non-negative integer n and a bit width width, read the low width bits of n as a"
    " fixed-width binary word (padding with zeros on the left), mirror the word, and return its value."
    " Bits above the width are ignored.",
    examples=[(1, 4), (6, 3)],
    tests=[(0, 8), (1, 1), (5, 0), (0b1011, 4), (0b1011, 6), (0b111100001, 8), (13, 5)],
)
def reverse_bits(n: int, width: int) -> int:
    result = 0
    for i in range(width):
        if n >> i & 1:
            result |= 1 << (width - 1 - i)
    return result


@FAMILY.problem(
    "Return the reflected binary Gray code of the non-negative integer n, that is n XOR (n shifted"
    " right by one bit).",
    "Rotary encoders report positions in Gray code so that neighbouring positions differ in one bit."
    " Given the position n (n >= 0), compute its Gray code value n ^ (n >> 1).",
    examples=[(2,), (7,)],
    tests=[(0,), (1,), (3,), (8,), (255,), (1000,)],
)
def to_gray(n: int) -> int:
    return n ^ (n >> 1)


@FAMILY.problem(
    "Given a reflected binary Gray code value gray (non-negative), return the integer n whose Gray"
    " code n ^ (n >> 1) equals gray.",
    "Decode a Gray code: each bit of the answer is the XOR of all bits of gray at that position and"
    " above. Return the decoded non-negative integer; decoding 0 gives 0.",
    examples=[(3,), (4,)],
    tests=[(0,), (1,), (2,), (7,), (128,), (0b101101,)],
)
def from_gray(gray: int) -> int:
    n = 0
    while gray:
        n ^= gray
        gray >>= 1
    return n


@FAMILY.problem(
    "Return the positions of the 1 bits of the non-negative integer n in increasing order, where"
    " position 0 is the least significant bit. For n = 0 return an empty list.",
    "Given n >= 0, list the indices i for which bit i of n is set, counting from 0 at the lowest"
    " bit, smallest index first.",
    examples=[(10,), (0,)],
    tests=[(1,), (2,), (7,), (1 << 20,), (0b100100101,)],
)
def set_bit_positions(n: int) -> list[int]:
    positions = []
    i = 0
    while n:
        if n & 1:
            positions.append(i)
        n >>= 1
        i += 1
    return positions


@FAMILY.problem(
    "Flip every bit of n at positions lo through hi inclusive (position 0 is the least significant"
    " bit) and return the result. n >= 0 and 0 <= lo <= hi.",
    "Given a non-negative integer n and a bit range lo..hi (inclusive, counted from bit 0), invert"
    " the bits in that range, leaving all other bits unchanged.",
    examples=[(0, 1, 3), (0b1111, 0, 1)],
    tests=[(0, 0, 0), (1, 0, 0), (255, 4, 7), (0b1010, 1, 2), (5, 3, 5), (1 << 10, 8, 12)],
)
def toggle_bits_range(n: int, lo: int, hi: int) -> int:
    return n ^ (((1 << (hi - lo + 1)) - 1) << lo)


@FAMILY.problem(
    "Return the length of the longest run of consecutive 1 bits in the binary form of the"
    " non-negative integer n; 0 for n = 0.",
    "Given n >= 0, find the longest block of adjacent ones in n's binary representation and return"
    " how many ones it has.",
    examples=[(0b1101110,), (0,)],
    tests=[(1,), (2,), (0b1011,), (0b11011,), (0b111011110111,), (255,)],
)
def longest_run_of_ones(n: int) -> int:
    best = run = 0
    while n:
        if n & 1:
            run += 1
            best = max(best, run)
        else:
            run = 0
        n >>= 1
    return best


@FAMILY.problem(
    "Return the smallest integer strictly greater than n that has the same number of 1 bits as n."
    " n is a positive integer.",
    "Given n >= 1, find the next larger number whose binary form contains exactly as many ones as"
    " n's does (for 6 = 110 that is 9 = 1001).",
    examples=[(6,), (1,)],
    tests=[(2,), (3,), (5,), (7,), (12,), (23,), (0b1011100,)],
)
def next_with_same_popcount(n: int) -> int:
    target = bin(n).count("1")
    candidate = n + 1
    while bin(candidate).count("1") != target:
        candidate += 1
    return candidate


@FAMILY.problem(
    "Return the value of the lowest set bit of n, i.e. the largest power of two that divides n. n is"
    " a non-negative integer; return 0 when n is 0.",
    "Given n >= 0, isolate its least significant 1 bit and return it as a number (for 12 = 1100 the"
    " answer is 4 = 100). Zero has no set bit, so the answer is 0.",
    examples=[(12,), (0,)],
    tests=[(1,), (7,), (8,), (40,), (3 << 30,), (6,)],
)
def lowest_set_bit(n: int) -> int:
    return n - (n & (n - 1))


@FAMILY.problem(
    "Return how many separate runs of 0 bits in the binary form of the positive integer n have a 1"
    " bit on both sides. Trailing zeros (after the last 1) do not count; the binary form has no"
    " leading zeros.",
    "Given n >= 1, write it in binary and count the gaps: maximal blocks of zeros that sit between"
    " two ones. For 1001001 there are 2 gaps, while 1100 has none.",
    examples=[(0b1001001,), (0b1100,)],
    tests=[(1,), (5,), (6,), (0b1010101,), (0b100000,), (0b1000100010000,)],
)
def count_zero_gaps(n: int) -> int:
    bits = bin(n)[2:].rstrip("0")
    gaps = 0
    for i in range(1, len(bits)):
        if bits[i] == "0" and bits[i - 1] == "1":
            gaps += 1
    return gaps


@FAMILY.problem(
    "A 16-bit RGB565 colour stores red in the top 5 bits, green in the middle 6 bits and blue in the"
    " low 5 bits. Return the tuple (red, green, blue) of the raw channel values of value"
    " (0 <= value < 65536).",
    "Given a 16-bit pixel value laid out as RRRRRGGGGGGBBBBB, extract the three channel fields and"
    " return them as (red, green, blue) integers without any rescaling.",
    examples=[(0xFFFF,), (0xF800,)],
    tests=[(0,), (0x07E0,), (0x001F,), (0b1000100000100001,), (12345,)],
)
def unpack_rgb565(value: int) -> tuple[int, int, int]:
    return (value >> 11 & 0x1F, value >> 5 & 0x3F, value & 0x1F)


@FAMILY.problem(
    "Return the width-bit two's complement representation of n as a string of exactly width '0'/'1'"
    " characters. n is guaranteed to fit: -2 ** (width - 1) <= n < 2 ** (width - 1).",
    "Given a signed integer n and a register width width, show how n is stored in a two's complement"
    " register of that many bits: return the bit string, most significant bit first, padded to"
    " width characters.",
    examples=[(5, 8), (-1, 4)],
    tests=[(0, 4), (-8, 4), (7, 4), (-128, 8), (-2, 8), (300, 16)],
)
def twos_complement(n: int, width: int) -> str:
    return format(n & ((1 << width) - 1), "b").zfill(width)


@FAMILY.problem(
    "Interpret bits, a non-empty string of '0'/'1' characters, as a two's complement signed number"
    " whose width is len(bits), and return its integer value. A leading '1' means the number is"
    " negative.",
    "Given the contents of a signed register as a bit string bits (most significant bit first, at"
    " least one character), decode it as two's complement: the top bit weighs -2 ** (len(bits) - 1)"
    " and the others have their usual positive weights.",
    examples=[("0101",), ("1111",)],
    tests=[("0",), ("1",), ("10",), ("1000",), ("01111111",), ("10000001",)],
)
def from_twos_complement(bits: str) -> int:
    value = int(bits, 2)
    if bits[0] == "1":
        value -= 1 << len(bits)
    return value


@FAMILY.problem(
    "Rotate the width-bit value n left by k positions: bits shifted out at the top re-enter at the"
    " bottom. k may be larger than width (rotating by width is a no-op). 0 <= n < 2 ** width, width"
    " >= 1 and k >= 0.",
    "Given a width-bit word n, perform a circular left shift by k places within those width bits and"
    " return the new word; rotating by a multiple of width gives n back.",
    examples=[(0b1001, 1, 4), (0b0011, 3, 4)],
    tests=[(0, 5, 8), (1, 0, 8), (0b10000000, 1, 8), (0b1011, 6, 4), (0b110, 5, 3), (0xABCD, 4, 16)],
)
def rotate_left(n: int, k: int, width: int) -> int:
    k %= width
    mask = (1 << width) - 1
    return ((n << k) | (n >> (width - k))) & mask


@FAMILY.problem(
    "Return the names whose flag bit is set in mask: names[i] is included if bit i of mask is 1"
    " (bit 0 is the least significant). Keep the order of names; bits of mask beyond the last name"
    " are ignored.",
    "A permissions byte mask packs one flag per bit, and names lists the flag names from bit 0"
    " upwards. Given mask (non-negative) and names, return the list of names whose bits are on, in"
    " the same order as names.",
    examples=[(5, ["read", "write", "exec"]), (0, ["a"])],
    tests=[(7, []), (1, ["x", "y"]), (2, ["x", "y"]), (0b1111, ["a", "b", "c"]), (0b1010, ["p", "q", "r", "s", "t"])],
)
def active_flags(mask: int, names: list[str]) -> list[str]:
    return [name for i, name in enumerate(names) if mask >> i & 1]


@FAMILY.problem(
    "Return how many 0 digits appear in the binary form of the non-negative integer n, written"
    " without leading zeros (so 0 itself is written \"0\" and has one zero).",
    "Write n (n >= 0) in base 2 with no leading zeros and count the '0' characters; for n = 0 the"
    " binary form is \"0\", so the answer is 1.",
    examples=[(10,), (7,)],
    tests=[(0,), (1,), (8,), (9,), (255,), (256,)],
    level=1,
)
def count_zero_bits(n: int) -> int:
    return bin(n)[2:].count("0")


@FAMILY.problem(
    "Return n with bit i switched on (position 0 is the least significant bit). If that bit is"
    " already 1, n is returned unchanged. n >= 0 and i >= 0.",
    "Given a non-negative integer n and a bit position i counted from 0 at the lowest bit, set"
    " bit i to 1 and return the resulting number; other bits stay as they are.",
    examples=[(8, 1), (5, 0)],
    tests=[(0, 0), (0, 3), (7, 2), (16, 4), (16, 5), (1, 10)],
    level=1,
)
def set_bit(n: int, i: int) -> int:
    return n | (1 << i)


@FAMILY.problem(
    "Return how many bit positions are 1 in both a and b (both non-negative). If they share no 1"
    " bit, return 0.",
    "Given two non-negative integers a and b, count the positions where the binary forms of a and b"
    " both have a 1 bit.",
    examples=[(12, 10), (5, 2)],
    tests=[(0, 0), (7, 7), (255, 15), (9, 3), (6, 0), (1023, 512)],
    level=1,
)
def common_set_bits(a: int, b: int) -> int:
    return bin(a & b)[2:].count("1")


@FAMILY.problem(
    "Return the number formed by the lowest k bits of n (bits at position k and above are"
    " dropped). n >= 0 and k >= 0; for k = 0 the result is 0.",
    "Given a non-negative integer n and a count k >= 0, keep only the k least significant bits of n"
    " and return their value, so n = 0b10110 with k = 3 gives 0b110.",
    examples=[(22, 3), (5, 0)],
    tests=[(0, 4), (255, 4), (256, 8), (13, 1), (12, 1), (7, 10)],
    level=1,
)
def low_bits(n: int, k: int) -> int:
    return n & ((1 << k) - 1)


@FAMILY.problem(
    "Return the largest power of two (1, 2, 4, 8, ...) that is less than or equal to n. If n is"
    " less than 1, return 0.",
    "Given an integer n, find the biggest number of the form 2 ** k (k >= 0) that does not exceed"
    " n; zero and negative n have none, so answer 0 for them.",
    examples=[(20,), (0,)],
    tests=[(1,), (2,), (3,), (64,), (63,), (-5,)],
    level=1,
)
def highest_power_of_two_at_most(n: int) -> int:
    if n < 1:
        return 0
    return 1 << (n.bit_length() - 1)


@FAMILY.problem(
    "Return how many binary digits are needed to write the non-negative integer n without leading"
    " zeros. Zero is written \"0\", so it needs 1 digit.",
    "Given n >= 0, return the length of its base-2 representation with no leading zeros; for"
    " n = 0 the representation is \"0\" and the length is 1.",
    examples=[(5,), (0,)],
    tests=[(1,), (2,), (7,), (8,), (1023,), (1024,)],
    level=1,
)
def binary_length(n: int) -> int:
    return max(1, n.bit_length())
