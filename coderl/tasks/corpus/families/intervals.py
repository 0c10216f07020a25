from coderl.tasks.corpus.define import Family

FAMILY = Family("intervals", "integer ranges: merge, overlap, gaps, coverage, booking conflicts")


@FAMILY.problem(
    "Each tuple in `ranges` is an inclusive integer range (start, end) with start <= end. Merge"
    " ranges that overlap or are adjacent (the next one starts right after the previous one ends,"
    " like (1, 3) and (4, 6)) and return the merged ranges sorted by start.",
    "Given inclusive ranges of integers in any order, combine every group of ranges that share a"
    " number or touch end-to-start with no integer missing between them. Return the resulting"
    " list of (start, end) tuples in increasing order; an empty input gives [].",
    examples=[([(5, 7), (1, 3), (4, 4), (10, 12)],)],
    tests=[([],), ([(2, 2)],), ([(1, 5), (2, 3)],), ([(1, 2), (4, 5)],), ([(8, 9), (1, 4), (3, 6), (7, 7), (11, 11)],),
           ([(-5, -3), (-2, 0), (2, 3)],), ([(1, 2), (5, 6), (6, 8)],)],
)
def merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if not ranges:
        return []
    ordered = sorted(ranges)
    merged = [list(ordered[0])]
    for start, end in ordered[1:]:
        if start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


@FAMILY.problem(
    "`a` and `b` are half-open time slots (start, end) with start < end: a slot contains its start"
    " but not its end. Return True if the two slots share any moment, False otherwise (slots that"
    " merely touch, like (1, 3) and (3, 5), do not overlap).",
    "Two meetings occupy the half-open intervals a = (start, end) and b = (start, end). Decide"
    " whether they clash, i.e. whether some time t satisfies start <= t < end for both. Back-to-back"
    " meetings do not clash.",
    examples=[((1, 4), (3, 6)), ((1, 3), (3, 5))],
    tests=[((0, 1), (1, 2)), ((0, 10), (2, 3)), ((5, 6), (0, 5)), ((5, 7), (0, 6)), ((-4, -1), (-2, 0)),
           ((2, 3), (4, 9)), ((0, 10), (2, 6))],
)
def slots_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@FAMILY.problem(
    "Return the length of the overlap of the half-open intervals `a` and `b` (each a (start, end)"
    " tuple with start <= end), or 0 if they do not overlap.",
    "Two employees were in the office during the half-open periods a and b. For how many time"
    " units were they both there? Return 0 when the periods are disjoint or only touch.",
    examples=[((2, 8), (5, 12))],
    tests=[((0, 5), (5, 9)), ((0, 5), (7, 9)), ((1, 10), (3, 4)), ((3, 4), (1, 10)), ((-6, -2), (-3, 5)),
           ((4, 4), (0, 9))],
)
def overlap_length(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


@FAMILY.problem(
    "Each tuple in `ranges` is an inclusive range (start, end) of integers with start <= end."
    " Return how many distinct integers are covered by at least one range.",
    "A road crew painted the inclusive stretches of mile markers given in ranges; stretches may"
    " overlap. Count the number of different integer markers that got painted (0 if no ranges).",
    examples=[([(1, 4), (3, 6), (10, 10)],)],
    tests=[([],), ([(5, 5)],), ([(1, 3), (1, 3)],), ([(1, 2), (3, 4)],), ([(0, 10), (2, 3), (9, 12)],),
           ([(-3, -1), (-2, 2), (6, 8), (8, 8)],), ([(6, 9), (1, 3), (2, 7)],)],
)
def covered_count(ranges: list[tuple[int, int]]) -> int:
    total = 0
    reach = None
    for start, end in sorted(ranges):
        if reach is not None:
            start = max(start, reach + 1)
        if end >= start:
            total += end - start + 1
            reach = end
    return total


@FAMILY.problem(
    "Each booking in `bookings` is (name, start, end) for the half-open period [start, end)."
    " Return every pair of bookings that overlap as (first name, second name), where the first"
    " booking comes earlier in the list; order the pairs by the first booking's position, then the"
    " second's.",
    "A meeting room's requests are tuples (name, start, end) with end excluded. List all conflicting"
    " pairs: for positions i < j whose periods share some time, add (name at i, name at j). Scan i"
    " from the front and, for each i, j from i + 1 onward. Touching periods do not conflict.",
    examples=[([("ana", 9, 11), ("ben", 10, 12), ("cy", 11, 13)],)],
    tests=[([],), ([("a", 0, 5)],), ([("a", 0, 5), ("b", 5, 9)],), ([("a", 0, 10), ("b", 2, 3), ("c", 4, 5)],),
           ([("p", 3, 6), ("q", 1, 2), ("r", 5, 8), ("s", 0, 4)],), ([("b", 5, 9), ("a", 0, 5)],)],
)
def booking_conflicts(bookings: list[tuple[str, int, int]]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for i in range(len(bookings)):
        for j in range(i + 1, len(bookings)):
            if bookings[i][1] < bookings[j][2] and bookings[j][1] < bookings[i][2]:
                pairs.append((bookings[i][0], bookings[j][0]))
    return pairs


@FAMILY.problem(
    "`meetings` is a list of (start, end) times in any order. Return True if one person can attend"
    " them all with at least `gap` minutes (gap >= 0) between the end of each meeting and the start"
    " of the next one in time order; otherwise return False.",
    "A doctor needs a break of at least gap minutes between appointments. Given the appointments as"
    " (start, end) pairs, sorted or not, decide whether they fit: after ordering them by start time,"
    " every appointment must begin no earlier than the previous one's end plus gap. No"
    " appointments, or just one, always fit.",
    examples=[([(60, 90), (0, 30)], 15), ([(0, 30), (40, 50)], 15)],
    tests=[([], 5), ([(0, 100)], 50), ([(0, 10), (10, 20)], 0), ([(0, 10), (9, 20)], 0),
           ([(30, 40), (0, 10), (15, 25)], 5), ([(30, 40), (0, 10), (15, 25)], 6), ([(0, 50), (10, 20), (60, 70)], 0)],
)
def fits_with_breaks(meetings: list[tuple[int, int]], gap: int) -> bool:
    ordered = sorted(meetings)
    for i in range(1, len(ordered)):
        if ordered[i][0] - ordered[i - 1][1] < gap:
            return False
    return True


@FAMILY.problem(
    "Each stay in `stays` is a half-open period (arrive, leave) during which a guest is present"
    " (present at arrive, gone at leave). Return (peak, time): the largest number of guests present"
    " at once and the earliest time at which that number is reached. For no stays, return"
    " (0, None).",
    "Hotel occupancy: guests are in the building from their arrival time up to, but not including,"
    " their departure time. From the list of (arrive, leave) pairs, find the maximum number of"
    " guests present simultaneously and the first moment it happens, returned as a tuple. A guest"
    " leaving at the moment another arrives does not overlap with them. With no guests the answer"
    " is (0, None).",
    examples=[([(1, 5), (2, 6), (5, 8)],)],
    tests=[([],), ([(3, 4)],), ([(0, 2), (2, 4)],), ([(0, 10), (1, 2), (3, 4), (3, 9)],),
           ([(5, 9), (1, 3), (2, 6), (4, 7), (6, 8)],), ([(7, 8), (0, 1), (0, 1)],)],
)
def peak_occupancy(stays: list[tuple[int, int]]) -> tuple[int, int | None]:
    events = []
    for arrive, leave in stays:
        events.append((arrive, 1))
        events.append((leave, -1))
    current = best = 0
    when = None
    for time, delta in sorted(events):
        current += delta
        if current > best:
            best, when = current, time
    return (best, when)


@FAMILY.problem(
    "Return how many of the inclusive ranges (start, end) in `ranges` contain the integer `point`.",
    "Several sprinklers each water the inclusive stretch (start, end) of a garden row. Count how"
    " many sprinklers reach position point; a position equal to a stretch's start or end is"
    " reached.",
    examples=[([(1, 5), (4, 9), (6, 7)], 5)],
    tests=[([], 0), ([(2, 2)], 2), ([(2, 2)], 3), ([(0, 3), (3, 6), (4, 8), (-1, 2)], 3), ([(-5, -1), (-3, 0)], -1),
           ([(1, 4), (5, 9)], 0)],
)
def ranges_containing(ranges: list[tuple[int, int]], point: int) -> int:
    return sum(1 for start, end in ranges if start <= point <= end)


@FAMILY.problem(
    "Clip the half-open `interval` (start, end) to the window [lo, hi) and return the part inside"
    " the window as a (start, end) tuple, or None if that part is empty.",
    "A video clip runs over the half-open span interval; the editor only keeps what falls in the"
    " half-open range from lo to hi. Return the kept span as (start, end), or None when nothing of"
    " the clip (not even a single time unit) lies in the range.",
    examples=[((3, 12), 5, 10), ((1, 4), 4, 9)],
    tests=[((0, 10), 0, 10), ((0, 10), 2, 3), ((5, 8), 0, 6), ((5, 8), 7, 20), ((5, 8), 8, 9), ((-3, 2), -1, 1),
           ((6, 9), 0, 6)],
)
def clip_interval(interval: tuple[int, int], lo: int, hi: int) -> tuple[int, int] | None:
    start = max(interval[0], lo)
    end = min(interval[1], hi)
    return (start, end) if start < end else None


@FAMILY.problem(
    "Remove the half-open range `cut` from every half-open interval in `intervals`. An interval may"
    " shrink, vanish, or split in two. Return the remaining non-empty pieces as (start, end)"
    " tuples sorted ascending.",
    "A maintenance window cut = (start, end), end excluded, cancels that time from all the"
    " reserved intervals. Compute what is left of the reservations: trim or split each one around"
    " the window, discard pieces of zero length, and return all pieces in sorted order.",
    examples=[([(0, 10), (12, 14)], (4, 13))],
    tests=[([], (0, 1)), ([(0, 5)], (5, 9)), ([(0, 5)], (0, 5)), ([(2, 9)], (4, 6)), ([(8, 9), (1, 3), (4, 7)], (2, 5)),
           ([(0, 4), (6, 10)], (-2, 1))],
)
def subtract_cut(intervals: list[tuple[int, int]], cut: tuple[int, int]) -> list[tuple[int, int]]:
    cut_start, cut_end = cut
    pieces: list[tuple[int, int]] = []
    for start, end in intervals:
        left_end = min(end, cut_start)
        if start < left_end:
            pieces.append((start, left_end))
        right_start = max(start, cut_end)
        if right_start < end:
            pieces.append((right_start, end))
    return sorted(pieces)


@FAMILY.problem(
    "Return the interval (start, end) in `intervals` with the greatest length end - start. If"
    " several are equally long, return the first of them in the list. Return None for an empty"
    " list.",
    "Among the recorded work sessions, each a (start, end) pair, find the longest one measured as"
    " end minus start; on a tie keep the session listed earliest, and with no sessions return None.",
    examples=[([(1, 4), (10, 16), (2, 8)],)],
    tests=[([],), ([(3, 3)],), ([(0, 2), (5, 7), (1, 3)],), ([(-10, -2), (0, 7)],),
           ([(4, 5), (0, 9), (2, 12), (3, 13)],)],
)
def longest_session(intervals: list[tuple[int, int]]) -> tuple[int, int] | None:
    return max(intervals, key=lambda iv: iv[1] - iv[0]) if intervals else None


@FAMILY.problem(
    "`schedule` is a list of half-open bookings (start, end). Try to add the booking `new`: if it"
    " overlaps none of them, return (True, the bookings plus `new`, sorted); otherwise return"
    " (False, the bookings unchanged, in their original order). Touching bookings do not overlap.",
    "Write the booking step of a reservation system. A new half-open reservation new = (start,"
    " end) is accepted only if it shares no time with any reservation in schedule. Return a tuple"
    " (accepted, reservations) where reservations is the sorted list including new when accepted,"
    " or a copy of schedule as given when rejected.",
    examples=[([(9, 10), (13, 15)], (10, 12)), ([(9, 10), (13, 15)], (14, 16))],
    tests=[([], (1, 2)), ([(5, 7), (1, 3)], (3, 5)), ([(5, 7), (1, 3)], (2, 4)), ([(0, 10)], (3, 4)),
           ([(4, 6), (0, 2)], (6, 8)), ([(4, 6), (0, 2)], (5, 9)), ([(5, 7), (1, 3)], (4, 6))],
)
def try_book(schedule: list[tuple[int, int]], new: tuple[int, int]) -> tuple[bool, list[tuple[int, int]]]:
    for start, end in schedule:
        if start < new[1] and new[0] < end:
            return (False, list(schedule))
    return (True, sorted(schedule + [new]))


@FAMILY.problem(
    "Count the intervals in `intervals` that lie entirely inside another interval of the list (an"
    " interval at a different position), using inclusive bounds: (s, e) is inside (S, E) when"
    " S <= s and e <= E. Two identical intervals are each inside the other.",
    "Given a list of (start, end) ranges, how many of them are nested in some other range of the"
    " list? A range counts when a range at another index starts at or before it and ends at or"
    " after it; duplicates therefore count each other.",
    examples=[([(1, 10), (2, 5), (6, 12), (3, 4)],)],
    tests=[([],), ([(0, 5)],), ([(0, 5), (0, 5)],), ([(0, 5), (1, 6)],), ([(1, 3), (3, 5), (0, 9), (2, 9)],),
           ([(5, 6), (4, 6), (5, 7)],)],
)
def nested_count(intervals: list[tuple[int, int]]) -> int:
    count = 0
    for i, (start, end) in enumerate(intervals):
        for j, (outer_start, outer_end) in enumerate(intervals):
            if i != j and outer_start <= start and end <= outer_end:
                count += 1
                break
    return count


@FAMILY.problem(
    "Parse the page selection `spec`, a comma-separated list of non-negative integers \"n\" and"
    " inclusive ranges \"a-b\" (a range written backwards, like \"5-3\", covers the same pages as"
    " \"3-5\"). Spaces around items and empty items are ignored. Return the selected pages sorted,"
    " each once.",
    "A print dialog accepts text such as \"1-3, 7, 5-6\". Expand spec into the list of page numbers"
    " it selects: single numbers select one page, \"a-b\" selects every page from the smaller to the"
    " larger end inclusive. Skip blank items, drop duplicates, and return the pages in increasing"
    " order (\"\" selects nothing).",
    examples=[("1-3, 7,5-6",)],
    tests=[("",), ("4",), (" 2 , ,2",), ("9-7",), ("0-2,1-4,10",), ("5-5,3, 12-10",)],
)
def expand_pages(spec: str) -> list[int]:
    pages = set()
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        if "-" in item:
            a, b = (int(x) for x in item.split("-"))
            pages.update(range(min(a, b), max(a, b) + 1))
        else:
            pages.add(int(item))
    return sorted(pages)


@FAMILY.problem(
    "Return True if the half-open intervals in `intervals` together cover every point of the"
    " half-open range [lo, hi), otherwise False. An empty range (lo == hi) is always covered.",
    "Security guards each watch a half-open shift (start, end). Is the period from lo up to hi"
    " (hi excluded) fully watched, with no moment left without a guard? Shifts may overlap, be"
    " unsorted, or extend beyond the period.",
    examples=[([(0, 4), (3, 8)], 1, 8), ([(0, 4), (5, 8)], 0, 8)],
    tests=[([], 3, 3), ([], 0, 1), ([(0, 5)], 0, 5), ([(0, 5)], 0, 6), ([(4, 9), (0, 2), (2, 4)], 0, 9),
           ([(1, 9)], 0, 5), ([(-5, 0), (3, 6), (0, 3)], -2, 6), ([(0, 3), (0, 1), (4, 6)], 0, 5)],
)
def fully_covered(intervals: list[tuple[int, int]], lo: int, hi: int) -> bool:
    reach = lo
    for start, end in sorted(intervals):
        if start > reach:
            break
        reach = max(reach, end)
    return reach >= hi


@FAMILY.problem(
    "Each tuple in `intervals` is a half-open interval (start, end). Return the sum of their"
    " lengths end - start, counting overlapping parts as many times as they occur; a reversed"
    " interval (end < start) counts as length 0.",
    "Add up how long all the periods (start, end) in intervals last, each lasting end minus start"
    " time units, without merging periods that overlap. A period whose end comes before its start"
    " is broken and adds nothing. An empty list gives 0.",
    examples=[([(1, 4), (3, 5), (10, 10)],), ([(2, 6), (9, 7)],)],
    tests=[([],), ([(5, 5)],), ([(0, 7)],), ([(8, 2)],), ([(-3, 2), (-1, 0), (4, 3)],), ([(2, 9), (2, 9), (20, 21)],)],
    level=1,
)
def total_length(intervals: list[tuple[int, int]]) -> int:
    return sum(max(0, end - start) for start, end in intervals)


@FAMILY.problem(
    "Return a new list in which every interval (start, end) of `intervals` is moved by `delta`:"
    " both start and end are increased by delta (a negative delta moves it left).",
    "Shift all the (start, end) time slots in intervals by the same offset delta, adding it to"
    " both ends of each slot, and return the shifted slots in the same order.",
    examples=[([(1, 3), (5, 9)], 10)],
    tests=[([], 4), ([(0, 0)], 0), ([(2, 5)], -2), ([(-1, 1), (4, 6), (8, 8)], 3), ([(10, 20)], -15)],
    level=1,
)
def shift_intervals(intervals: list[tuple[int, int]], delta: int) -> list[tuple[int, int]]:
    return [(start + delta, end + delta) for start, end in intervals]


@FAMILY.problem(
    "Return the length of the gap between the half-open intervals `a` and `b` (each (start, end)"
    " with start <= end): the distance from the end of the earlier one to the start of the later"
    " one, or 0 if they overlap or touch.",
    "Two half-open periods a and b are given as (start, end). How much free time lies between them?"
    " Return the distance separating them, and 0 when they share time or one ends exactly where the"
    " other starts.",
    examples=[((1, 3), (7, 9)), ((1, 5), (4, 8))],
    tests=[((0, 2), (2, 4)), ((10, 12), (0, 4)), ((0, 10), (3, 4)), ((-5, -3), (1, 2)), ((6, 8), (1, 5))],
    level=1,
)
def gap_between(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, max(a[0], b[0]) - min(a[1], b[1]))


@FAMILY.problem(
    "Return the intervals (start, end) of `intervals` that are non-empty, i.e. with start < end,"
    " in their original order.",
    "Drop the broken entries from a list of (start, end) periods: keep only those whose start is"
    " strictly before their end, so zero-length and reversed periods are removed. Keep the order.",
    examples=[([(1, 4), (5, 5), (9, 2), (0, 1)],)],
    tests=[([],), ([(3, 3)],), ([(3, 4)],), ([(4, 3)],), ([(-2, -1), (0, 0), (7, 6), (8, 20)],)],
    level=1,
)
def non_empty_intervals(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(start, end) for start, end in intervals if start < end]


@FAMILY.problem(
    "Return the smallest interval (start, end) that covers every interval of `intervals`: the"
    " smallest start and the largest end. Return None for an empty list.",
    "Given (start, end) periods, report the overall span from the earliest start to the latest end"
    " as one tuple, or None when there are no periods.",
    examples=[([(4, 6), (1, 3), (8, 9)],)],
    tests=[([],), ([(2, 5)],), ([(0, 10), (2, 3)],), ([(-4, -2), (-8, -6)],), ([(5, 7), (1, 2), (3, 12), (6, 9)],)],
    level=1,
)
def overall_span(intervals: list[tuple[int, int]]) -> tuple[int, int] | None:
    if not intervals:
        return None
    return (min(s for s, _ in intervals), max(e for _, e in intervals))


@FAMILY.problem(
    "Write the inclusive ranges (start, end) of `ranges` as text: a range with start == end is"
    " written as the single number, any other range as \"start-end\", and the parts are joined"
    " with \",\". An empty list gives \"\".",
    "Format a list of (start, end) page ranges the way a print dialog shows them, e.g."
    " [(1, 3), (5, 5)] becomes \"1-3,5\": single pages as one number, longer ranges with a dash,"
    " separated by commas with no spaces.",
    examples=[([(1, 3), (5, 5), (8, 10)],)],
    tests=[([],), ([(4, 4)],), ([(0, 1)],), ([(2, 2), (3, 3)],), ([(10, 12), (15, 15), (20, 30)],)],
    level=1,
)
def ranges_text(ranges: list[tuple[int, int]]) -> str:
    return ",".join(str(s) if s == e else f"{s}-{e}" for s, e in ranges)
