from coderl.tasks.corpus.define import Family

FAMILY = Family("calendars", "calendar and clock arithmetic by hand: leap years, weekdays, HH:MM times, slots")


@FAMILY.problem(
    "Return the number of days in `month` (1 = January, ..., 12 = December) of `year` in the"
    " Gregorian calendar. February has 29 days in leap years (divisible by 4, but not by 100"
    " unless also by 400) and 28 otherwise; April, June, September and November have 30 days;"
    " the other months 31.",
    "Given year and month (a number from 1 to 12), how many days does that month have? Use the"
    " usual lengths (30 days for months 4, 6, 9 and 11, 31 for the rest except February) and give"
    " February 29 days exactly when year is a Gregorian leap year: a multiple of 4 that is not a"
    " multiple of 100, or a multiple of 400.",
    examples=[(2024, 2), (2023, 4)],
    tests=[(2023, 2), (1900, 2), (2000, 2), (1996, 2), (2023, 3), (2023, 5), (2023, 6), (2023, 7),
           (2023, 9), (2023, 10), (2023, 11), (2023, 12)],
)
def days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    if month in (4, 6, 9, 11):
        return 30
    return 31


@FAMILY.problem(
    "Return the ordinal day of the year (1 for January 1st) of the date `year`-`month`-`day`"
    " in the Gregorian calendar, where February has 29 days in leap years (divisible by 4, except"
    " centuries not divisible by 400). The date is valid.",
    "Given a valid date as three integers year, month and day, count which day of its year it"
    " is: January 1 is day 1, February 1 is day 32, and December 31 is day 365, or 366 in a leap"
    " year (a year divisible by 4, but not by 100 unless by 400).",
    examples=[(2023, 3, 1), (2024, 3, 1)],
    tests=[(2023, 1, 1), (2023, 12, 31), (2024, 12, 31), (1900, 3, 1), (2000, 3, 1), (2023, 2, 28),
           (2023, 7, 4), (2023, 10, 15)],
)
def day_of_year(year: int, month: int, day: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return sum(lengths[: month - 1]) + day


@FAMILY.problem(
    "Return the weekday that falls `days` days after the weekday named `start`. start is an"
    " English weekday name in any letter case (\"monday\", \"FRIDAY\"); days may be zero or"
    " negative (going back in time). Return the name capitalised, like \"Wednesday\".",
    "Given the name of today's weekday in start (case does not matter) and a number of days,"
    " which may be negative, return the name of the weekday that many days later (or earlier),"
    " written with an initial capital letter such as \"Sunday\". The week runs Monday, Tuesday,"
    " Wednesday, Thursday, Friday, Saturday, Sunday and repeats.",
    examples=[("Monday", 2), ("friday", -5)],
    tests=[("Sunday", 0), ("SUNDAY", 1), ("Monday", -1), ("Wednesday", 7), ("thursday", 100),
           ("Saturday", -15), ("Tuesday", 6)],
)
def weekday_after(start: str, days: int) -> str:
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    index = names.index(start.capitalize())
    return names[(index + days) % 7]


@FAMILY.problem(
    "Add `minutes` to the 24-hour clock time `clock` (\"HH:MM\") and return the new time in the"
    " same zero-padded format. The clock wraps around midnight, and minutes may be negative or"
    " larger than a day.",
    "A kitchen timer shows \"HH:MM\". Given clock and a number of minutes (possibly negative or"
    " several days' worth), return the time shown after moving the clock by that amount, wrapping"
    " past 23:59 to 00:00 and the other way, always with two-digit hours and minutes.",
    examples=[("09:45", 30), ("00:10", -20)],
    tests=[("23:59", 1), ("12:00", 0), ("00:00", -1), ("07:05", 1440), ("18:30", 3000),
           ("05:15", -1500), ("10:50", 10)],
)
def add_minutes(clock: str, minutes: int) -> str:
    hours, mins = (int(x) for x in clock.split(":"))
    total = (hours * 60 + mins + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


@FAMILY.problem(
    "Return the number of minutes from the clock time `start` to the clock time `end`, both"
    " \"HH:MM\" in 24-hour format. If end is earlier than start, the interval runs past midnight"
    " into the next day; equal times give 0.",
    "A night shift starts at start and ends at end (both \"HH:MM\"). Given the two times, return"
    " how many minutes the shift lasts, assuming it is shorter than a day: when end is before"
    " start it finishes the next day, and when they are equal the shift lasts 0 minutes.",
    examples=[("09:15", "17:45"), ("22:00", "06:30")],
    tests=[("12:00", "12:00"), ("00:00", "23:59"), ("23:59", "00:00"), ("08:30", "08:29"),
           ("13:05", "14:00"), ("01:10", "01:00")],
)
def minutes_between(start: str, end: str) -> int:
    h1, m1 = (int(x) for x in start.split(":"))
    h2, m2 = (int(x) for x in end.split(":"))
    return (h2 * 60 + m2 - (h1 * 60 + m1)) % 1440


@FAMILY.problem(
    "Convert the 24-hour time `clock` (\"HH:MM\") to 12-hour format \"H:MM AM\" or \"H:MM PM\"."
    " The hour has no leading zero; midnight hour 00 becomes 12 AM and noon hour 12 becomes"
    " 12 PM.",
    "Given clock written as \"HH:MM\" on a 24-hour clock, return how it is said on a 12-hour"
    " clock, e.g. \"13:05\" -> \"1:05 PM\". Hours 00-11 are AM and 12-23 are PM; hour 0 and hour"
    " 12 are both shown as 12; minutes keep two digits and the hour is not padded.",
    examples=[("13:05",), ("00:30",)],
    tests=[("12:00",), ("11:59",), ("00:00",), ("23:09",), ("09:00",), ("10:10",)],
)
def to_12_hour(clock: str) -> str:
    hours, minutes = clock.split(":")
    h = int(hours)
    suffix = "AM" if h < 12 else "PM"
    h = h % 12
    if h == 0:
        h = 12
    return f"{h}:{minutes} {suffix}"


@FAMILY.problem(
    "Return the (month, day) of the `n`-th day of `year` in the Gregorian calendar, where day 1 is"
    " January 1st. Leap years (divisible by 4, except centuries not divisible by 400) have"
    " 366 days, others 365; you may assume n is within the year.",
    "Given year and a day number n (1-based), find the calendar date it corresponds to and return"
    " it as a tuple (month, day), e.g. day 32 is (2, 1). February has 29 days in leap years: years"
    " divisible by 4 but not by 100, plus years divisible by 400.",
    examples=[(2023, 32), (2024, 60)],
    tests=[(2023, 1), (2023, 60), (2023, 365), (2024, 366), (1900, 60), (2000, 60), (2023, 59),
           (2023, 200)],
)
def date_from_day_number(year: int, n: int) -> tuple[int, int]:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    month = 1
    for length in lengths:
        if n <= length:
            break
        n -= length
        month += 1
    return (month, n)


@FAMILY.problem(
    "Return the number of days from date `a` to date `b`, both \"YYYY-MM-DD\" in the Gregorian"
    " calendar (leap years are divisible by 4, except centuries not divisible by 400). The"
    " result is negative when b is before a. Do not use the datetime module.",
    "Given two dates a and b written as \"YYYY-MM-DD\", compute b minus a in days, so the answer"
    " is positive if b is later, negative if it is earlier and 0 if they are the same day. Count"
    " February as 29 days in leap years (multiples of 4, except multiples of 100 that are not"
    " multiples of 400).",
    examples=[("2024-01-01", "2024-03-01"), ("2023-12-25", "2023-12-24")],
    tests=[("2020-05-17", "2020-05-17"), ("2023-01-01", "2024-01-01"), ("2024-01-01", "2025-01-01"),
           ("1900-02-28", "1900-03-01"), ("2000-02-28", "2000-03-01"), ("2021-07-04", "1999-12-31"),
           ("1999-12-31", "2000-01-01"), ("2023-01-15", "2023-03-01"), ("2000-06-01", "2001-06-01"),
           ("1800-06-01", "1801-06-01"), ("2024-03-01", "2023-03-01")],
)
def days_between(a: str, b: str) -> int:
    def serial(date: str) -> int:
        year, month, day = (int(x) for x in date.split("-"))
        y = year - 1
        days = y * 365 + y // 4 - y // 100 + y // 400
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return days + sum(lengths[: month - 1]) + day

    return serial(b) - serial(a)


@FAMILY.problem(
    "Return the date `n` days after `date` (\"YYYY-MM-DD\"), in the same format; n may be zero or"
    " negative. Use the Gregorian calendar, where February has 29 days in leap years (divisible"
    " by 4, except centuries not divisible by 400). Do not use the datetime module.",
    "Given a date string like \"2024-02-28\" and an integer n, step the date forward n days (or"
    " back, if n is negative) across month and year boundaries and return the result as"
    " \"YYYY-MM-DD\" with zero padding. Leap years, with a 29-day February, are the years divisible"
    " by 4 but not by 100, and the years divisible by 400.",
    examples=[("2024-02-28", 1), ("2023-01-01", -1)],
    tests=[("2023-02-28", 1), ("1900-02-28", 1), ("2000-02-28", 1), ("2023-12-31", 1),
           ("2023-03-01", -1), ("2023-06-15", 0), ("2023-01-31", 400), ("2024-03-10", -70),
           ("2023-04-30", 1), ("2023-06-30", 1), ("2023-09-30", 1), ("2023-11-30", 1)],
)
def add_days(date: str, n: int) -> str:
    def month_length(y: int, m: int) -> int:
        if m == 2:
            return 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28
        return 30 if m in (4, 6, 9, 11) else 31

    year, month, day = (int(x) for x in date.split("-"))
    for _ in range(abs(n)):
        if n > 0:
            day += 1
            if day > month_length(year, month):
                day, month = 1, month + 1
                if month > 12:
                    month, year = 1, year + 1
        else:
            day -= 1
            if day < 1:
                month -= 1
                if month < 1:
                    month, year = 12, year - 1
                day = month_length(year, month)
    return f"{year:04d}-{month:02d}-{day:02d}"


@FAMILY.problem(
    "Return the English name of the weekday of the Gregorian date `year`-`month`-`day`, knowing"
    " that 1 January 2000 was a Saturday. Leap years are divisible by 4, except centuries not"
    " divisible by 400. The date may be before or after 2000. Do not use datetime or calendar.",
    "Given a valid date as year, month and day, work out which day of the week it falls on and"
    " return its name, such as \"Monday\". Count the days between the date and 2000-01-01, which"
    " was a Saturday, using Gregorian leap years (multiples of 4, except multiples of 100 that are"
    " not multiples of 400).",
    examples=[(2000, 1, 1), (2024, 7, 4)],
    tests=[(2000, 1, 3), (1999, 12, 31), (2000, 3, 1), (1900, 3, 1), (2023, 12, 25), (1969, 7, 20),
           (2100, 1, 1), (2025, 9, 15), (1815, 6, 18), (2004, 3, 1)],
)
def weekday_of_date(year: int, month: int, day: int) -> str:
    def serial(y: int, m: int, d: int) -> int:
        p = y - 1
        leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
        lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return p * 365 + p // 4 - p // 100 + p // 400 + sum(lengths[: m - 1]) + d

    names = ["Saturday", "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    return names[(serial(year, month, day) - serial(2000, 1, 1)) % 7]


@FAMILY.problem(
    "A month has `length` days and its first day is the weekday named `first_weekday`. Return how"
    " many days of that month fall on the weekday named `target`. Weekday names are English and"
    " compared case-insensitively.",
    "Given the weekday of the 1st of a month (first_weekday, e.g. \"Tuesday\"), the number of days"
    " in the month (length, between 28 and 31) and a target weekday name, count the dates in the"
    " month that are that weekday. Names may use any letter case.",
    examples=[("Monday", 31, "Wednesday"), ("Sunday", 28, "sunday")],
    tests=[("Friday", 31, "Friday"), ("Friday", 31, "Sunday"), ("friday", 31, "Monday"),
           ("Tuesday", 30, "Monday"), ("Tuesday", 30, "wednesday"), ("Saturday", 29, "SATURDAY"),
           ("Saturday", 29, "Sunday"), ("Saturday", 31, "Monday")],
)
def count_weekday_in_month(first_weekday: str, length: int, target: str) -> int:
    names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    offset = (names.index(target.lower()) - names.index(first_weekday.lower())) % 7
    return len(range(1 + offset, length + 1, 7))


@FAMILY.problem(
    "Return True if two meetings overlap. The first runs from `start_a` to `end_a` and the second"
    " from `start_b` to `end_b`, all \"HH:MM\" times on the same day with each start before its"
    " end. Meetings that only touch (one ends exactly when the other starts) do not overlap.",
    "Given the start and end times (\"HH:MM\", same day) of meeting A and of meeting B, decide"
    " whether they share any moment. One ending at 10:00 and another starting at 10:00 can both"
    " be attended, so that is not an overlap.",
    examples=[("09:00", "10:00", "09:30", "11:00"), ("09:00", "10:00", "10:00", "10:30")],
    tests=[("13:00", "14:00", "11:00", "13:00"), ("08:00", "12:00", "09:00", "10:00"),
           ("11:00", "11:30", "10:59", "11:01"), ("07:00", "08:00", "08:01", "09:00"),
           ("10:00", "10:30", "10:00", "10:30"), ("15:00", "16:00", "14:00", "15:01"),
           ("09:00", "11:00", "10:59", "12:00"), ("08:00", "09:00", "09:00", "10:00")],
)
def meetings_overlap(start_a: str, end_a: str, start_b: str, end_b: str) -> bool:
    def minute(t: str) -> int:
        return int(t[:2]) * 60 + int(t[3:])

    return minute(start_a) < minute(end_b) and minute(start_b) < minute(end_a)


@FAMILY.problem(
    "Return the total time worked in the `shifts`, a list of (start, end) pairs of \"HH:MM\" times"
    " on the same day with start not after end, formatted as \"<hours>h<minutes>m\" with minutes"
    " always two digits, e.g. \"7h05m\". Overlaps are counted twice; no shifts gives \"0h00m\".",
    "A timesheet lists shifts as (start, end) pairs of \"HH:MM\" strings within one day. Given"
    " shifts, add up their lengths and return the total as hours and minutes written like"
    " \"12h30m\" (hours unpadded and possibly above 23, minutes zero-padded to two digits). Shifts"
    " are simply summed, and an empty list gives \"0h00m\".",
    examples=[([("09:00", "12:30"), ("13:15", "17:00")],)],
    tests=[([],), ([("08:00", "08:00")],), ([("00:00", "23:59")],), ([("10:55", "11:05")],),
           ([("06:00", "18:00"), ("06:00", "18:00"), ("20:10", "21:00")],), ([("09:30", "10:00")],),
           ([("10:00", "11:00")],)],
)
def total_shift_time(shifts: list[tuple[str, str]]) -> str:
    total = 0
    for start, end in shifts:
        h1, m1 = (int(x) for x in start.split(":"))
        h2, m2 = (int(x) for x in end.split(":"))
        total += (h2 * 60 + m2) - (h1 * 60 + m1)
    return f"{total // 60}h{total % 60:02d}m"


@FAMILY.problem(
    "Return the free periods of a working day from `day_start` to `day_end` given the busy"
    " `meetings`, a list of (start, end) \"HH:MM\" pairs in any order that may overlap or extend"
    " past the day. Return the free periods as (start, end) \"HH:MM\" pairs in time order, leaving"
    " out empty ones.",
    "Given a calendar of meetings ((start, end) pairs as \"HH:MM\" strings, unsorted, possibly"
    " overlapping or touching) and the bounds of the working day, list the gaps in which no"
    " meeting takes place between day_start and day_end. Each gap is a (start, end) pair of"
    " \"HH:MM\" strings with start before end; gaps come in chronological order.",
    examples=[([("10:00", "11:00"), ("09:30", "10:30"), ("13:00", "14:00")], "09:00", "17:00")],
    tests=[([], "09:00", "17:00"), ([("08:00", "18:00")], "09:00", "17:00"),
           ([("09:00", "10:00"), ("10:00", "11:00")], "09:00", "12:00"),
           ([("16:00", "18:00"), ("07:00", "09:30")], "09:00", "17:00"),
           ([("12:00", "12:30"), ("11:00", "13:00"), ("14:00", "14:55")], "10:00", "15:00"),
           ([("13:00", "14:00"), ("11:00", "12:00")], "09:00", "12:00")],
)
def free_periods(meetings: list[tuple[str, str]], day_start: str, day_end: str) -> list[tuple[str, str]]:
    def minute(t: str) -> int:
        return int(t[:2]) * 60 + int(t[3:])

    def clock(m: int) -> str:
        return f"{m // 60:02d}:{m % 60:02d}"

    free = []
    cursor, finish = minute(day_start), minute(day_end)
    for start, end in sorted((minute(s), minute(e)) for s, e in meetings):
        if start > cursor:
            free.append((cursor, min(start, finish)))
        cursor = max(cursor, end)
    if cursor < finish:
        free.append((cursor, finish))
    return [(clock(a), clock(b)) for a, b in free if a < b]


@FAMILY.problem(
    "Find the earliest start time of a `length`-minute meeting between `day_start` and `day_end`"
    " that clashes with none of the `busy` intervals ((start, end) \"HH:MM\" pairs, in any order)."
    " A meeting may start exactly when a busy interval ends and end exactly when one starts."
    " Return the start as \"HH:MM\", or None if there is no room.",
    "Two colleagues have merged their busy times into the list busy (pairs of \"HH:MM\" strings,"
    " unsorted, maybe overlapping). Given the working day from day_start to day_end, return the"
    " first moment at which a meeting of length minutes fits entirely inside the day without"
    " overlapping a busy interval (touching is fine), as \"HH:MM\"; return None when it fits"
    " nowhere.",
    examples=[([("09:00", "10:00"), ("10:30", "12:00")], 45, "09:00", "17:00")],
    tests=[([], 60, "09:00", "10:00"), ([], 61, "09:00", "10:00"),
           ([("09:00", "10:00"), ("10:30", "12:00")], 30, "09:00", "17:00"),
           ([("13:00", "14:00"), ("08:00", "13:00")], 15, "09:00", "14:00"),
           ([("11:00", "11:10"), ("09:00", "10:50")], 10, "09:00", "12:00"),
           ([("09:00", "17:00")], 1, "09:00", "17:00")],
)
def earliest_slot(busy: list[tuple[str, str]], length: int, day_start: str, day_end: str) -> str | None:
    def minute(t: str) -> int:
        return int(t[:2]) * 60 + int(t[3:])

    cursor = minute(day_start)
    for start, end in sorted((minute(s), minute(e)) for s, e in busy):
        if start - cursor >= length:
            break
        cursor = max(cursor, end)
    if cursor + length > minute(day_end):
        return None
    return f"{cursor // 60:02d}:{cursor % 60:02d}"


@FAMILY.problem(
    "Return the day of the month of the `n`-th occurrence of the weekday `weekday` in `month` of"
    " `year` (for example the 4th Thursday of November 2023 is the 23rd), or None if the month"
    " has fewer than n such days. Use the Gregorian calendar (leap years are divisible by 4,"
    " except centuries not divisible by 400) and the fact that 1 January 2000 was a Saturday.",
    "Public holidays are often \"the n-th <weekday> of a month\". Given year, month (1-12), an"
    " English weekday name (any case) and n (1 to 5), return which day of the month that is,"
    " or None when the month has no n-th such weekday. Work the weekdays out by counting days"
    " from 1 January 2000, a Saturday, with Gregorian leap years (multiples of 4, except"
    " multiples of 100 that are not multiples of 400).",
    examples=[(2023, 11, "Thursday", 4), (2024, 2, "thursday", 5)],
    tests=[(2000, 1, "Friday", 1), (2024, 3, "friday", 1), (1900, 3, "Thursday", 2), (2000, 3, "Wednesday", 1),
           (2023, 4, "Saturday", 5), (2023, 5, "MONDAY", 1), (2023, 6, "Thursday", 1), (2023, 7, "Saturday", 1),
           (2023, 9, "Friday", 3), (2023, 11, "Wednesday", 1), (2023, 12, "Sunday", 5), (2023, 2, "Monday", 5),
           (2024, 2, "Monday", 4), (2025, 1, "Wednesday", 1), (1815, 6, "sunday", 3), (2001, 1, "Monday", 1)],
)
def nth_weekday(year: int, month: int, weekday: str, n: int) -> int | None:
    def month_length(y: int, m: int) -> int:
        if m == 2:
            return 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28
        return 30 if m in (4, 6, 9, 11) else 31

    def serial(y: int, m: int) -> int:
        p = y - 1
        return p * 365 + p // 4 - p // 100 + p // 400 + sum(month_length(y, k) for k in range(1, m))

    names = ["saturday", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday"]
    first = (serial(year, month) - serial(2000, 1)) % 7
    day = 1 + (names.index(weekday.lower()) - first) % 7 + 7 * (n - 1)
    return day if day <= month_length(year, month) else None


@FAMILY.problem(
    "Return True if the English day name `day` is \"Saturday\" or \"Sunday\", ignoring letter case;"
    " return False for every other day name.",
    "Given the name of a day of the week in any capitalisation, such as \"monday\" or \"SUNDAY\","
    " report whether it falls on the weekend (Saturday or Sunday).",
    examples=[("Saturday",), ("Friday",)],
    tests=[("sunday",), ("SATURDAY",), ("Monday",), ("wednesday",), ("Sun",), ("sUnDaY",)],
    level=1,
)
def is_weekend(day: str) -> bool:
    return day.lower() in ("saturday", "sunday")


@FAMILY.problem(
    "Convert `minutes`, a number of minutes after midnight (minutes >= 0), to a 24-hour clock"
    " string \"HH:MM\" with two-digit fields. Times wrap past midnight, so 1440 is \"00:00\".",
    "Given how many minutes have passed since 00:00 (possibly more than a day), return the time"
    " shown on a 24-hour clock as \"HH:MM\", zero-padded.",
    examples=[(605,), (1500,)],
    tests=[(0,), (59,), (60,), (1439,), (1440,), (2879,)],
    level=1,
)
def minutes_to_clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


@FAMILY.problem(
    "Return the quarter of the year (1 to 4) that contains month number `month` (1 = January, ...,"
    " 12 = December). January to March is quarter 1.",
    "Given a month number from 1 to 12, report which three-month quarter of the year it belongs to:"
    " months 1-3 give 1, 4-6 give 2, 7-9 give 3 and 10-12 give 4.",
    examples=[(2,), (11,)],
    tests=[(1,), (3,), (4,), (6,), (7,), (10,), (12,)],
    level=1,
)
def quarter_of_month(month: int) -> int:
    return (month - 1) // 3 + 1


@FAMILY.problem(
    "Return the three-letter English abbreviation of month number `month` (1 to 12): \"Jan\","
    " \"Feb\", \"Mar\", \"Apr\", \"May\", \"Jun\", \"Jul\", \"Aug\", \"Sep\", \"Oct\", \"Nov\","
    " \"Dec\".",
    "Given a month number from 1 (January) to 12 (December), return its short name with a capital"
    " first letter, such as \"Mar\" for 3.",
    examples=[(3,), (12,)],
    tests=[(1,), (2,), (5,), (9,), (10,), (11,)],
    level=1,
)
def month_abbrev(month: int) -> str:
    return "JanFebMarAprMayJunJulAugSepOctNovDec"[3 * month - 3 : 3 * month]


@FAMILY.problem(
    "Split a number of days `days` (days >= 0) into whole weeks and leftover days; return the tuple"
    " (weeks, days_left) with 0 <= days_left < 7.",
    "Given a duration in days, say how many complete weeks it contains and how many days remain"
    " after them, as a pair (weeks, remaining_days).",
    examples=[(17,), (6,)],
    tests=[(0,), (7,), (13,), (14,), (365,), (1,)],
    level=1,
)
def weeks_and_days(days: int) -> tuple[int, int]:
    return (days // 7, days % 7)


@FAMILY.problem(
    "`a` and `b` are dates written \"YYYY-MM-DD\". Return True if they fall in the same month of the"
    " same year, and False otherwise.",
    "Given two ISO dates a and b such as \"2024-03-09\", decide whether both are in one calendar"
    " month: the year and the month must both match (the day may differ).",
    examples=[("2024-03-09", "2024-03-31"), ("2024-03-09", "2023-03-09")],
    tests=[("2024-01-15", "2024-02-15"), ("2024-10-01", "2024-11-01"), ("1999-12-31", "1999-12-01"),
           ("2020-05-05", "2020-05-05"), ("2021-07-20", "2012-07-20")],
    level=1,
)
def same_month(a: str, b: str) -> bool:
    return a[:7] == b[:7]
