"""The bundled math set: multi-step word problems generated from templates, answers computed in code.

    math                          train, valid and test together (200 / 50 / 100 problems)
    math:n=N,seed=S,split=SPLIT   N problems of one split (train | valid | test), drawn with seed S

Each template draws its numbers, writes the question and a worked solution (one sentence per step, each
with its arithmetic) and computes the answer exactly (`Fraction`); answers are integers, decimals (money,
discounts) and fractions ("what fraction of the pizza is left"), some negative.  train and valid use the
`TRAIN_TEMPLATES`, a problem going to valid or train by a hash of its template and drawn numbers (so no
valid problem is ever a train problem, even with other names, whatever the sizes and seeds; no split
repeats a problem); **test uses the
`TEST_TEMPLATES`, which no other split has**: held-out problem shapes, not only held-out numbers.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from coderl.tasks.math_tasks import math_task
from coderl.tasks.types import Task

SIZES = {"train": 200, "valid": 50, "test": 100}
OPTION_KEYS = ("n", "seed", "split")
NAMES = ("Ana", "Ben", "Carla", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jia", "Kofi", "Lena", "Marco",
         "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tariq", "Uma", "Victor", "Wen", "Yara", "Zane")
ITEMS = ("notebooks", "pens", "apples", "stickers", "candles", "mugs", "books", "balls", "cookies", "cards")
THINGS = ("jacket", "lamp", "backpack", "bicycle helmet", "board game", "pair of shoes")

Problem = tuple[str, list[str], Fraction | str]  # question, worked steps, answer (or its text, as written)
Template = Callable[[random.Random], Problem]


def number(value: Fraction | int) -> str:
    """A value as the answer is written: `12`, `-3`, `2.5`, `3/8` (a decimal when it terminates in 4 places)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    scaled = value * 10_000
    if scaled.denominator == 1:
        return f"{float(value):.4f}".rstrip("0")
    return f"{value.numerator}/{value.denominator}"


def as_fraction(value: Fraction) -> str:
    """The answer to a "what fraction" question: `3/8` (an integer stays one)."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _names(rng: random.Random, k: int) -> list[str]:
    return rng.sample(NAMES, k)


# ---------------------------------------------------------------------------------------------
# templates of the train and valid splits


def buy_two_kinds(rng):
    n = _names(rng, 1)[0]
    i1, i2 = rng.sample(ITEMS, 2)
    a, b, p, q = rng.randint(2, 9), rng.randint(2, 9), rng.randint(2, 15), rng.randint(2, 15)
    return (f"{n} buys {a} {i1} at ${p} each and {b} {i2} at ${q} each. How many dollars does {n} spend?",
            [f"The {i1} cost {a} * {p} = {a * p} dollars.", f"The {i2} cost {b} * {q} = {b * q} dollars.",
             f"Together: {a * p} + {b * q} = {a * p + b * q} dollars."], Fraction(a * p + b * q))


def change_left(rng):
    n, item = _names(rng, 1)[0], rng.choice(ITEMS)
    a, p = rng.randint(2, 8), rng.randint(2, 12)
    m = a * p + rng.randint(1, 40)
    return (f"{n} has ${m}. {n} buys {a} {item} that cost ${p} each. How many dollars does {n} have left?",
            [f"The {item} cost {a} * {p} = {a * p} dollars.", f"Left: {m} - {a * p} = {m - a * p} dollars."],
            Fraction(m - a * p))


def share_then_eat(rng):
    n, k, x = _names(rng, 1)[0], rng.randint(2, 8), rng.randint(3, 12)
    e = rng.randint(1, x - 1)
    return (f"{n} has {k * x} cookies and shares them equally among {k} friends. Each friend then eats {e} of "
            "them. How many cookies does each friend have left?",
            [f"Each friend gets {k * x} / {k} = {x} cookies.", f"After eating: {x} - {e} = {x - e} cookies."],
            Fraction(x - e))


def two_legs_distance(rng):
    s1, h1, s2, h2 = rng.randint(20, 90), rng.randint(1, 5), rng.randint(20, 90), rng.randint(1, 5)
    return (f"A train travels at {s1} km per hour for {h1} hours and then at {s2} km per hour for {h2} hours. "
            "How many kilometers does it travel in total?",
            [f"First part: {s1} * {h1} = {s1 * h1} km.", f"Second part: {s2} * {h2} = {s2 * h2} km.",
             f"Total: {s1 * h1} + {s2 * h2} = {s1 * h1 + s2 * h2} km."], Fraction(s1 * h1 + s2 * h2))


def ages_chain(rng):
    a, b, c = _names(rng, 3)
    x, d = rng.randint(3, 30), rng.randint(1, 15)
    return (f"{a} is {x} years old. {b} is {d} years older than {a}. {c} is twice as old as {b}. How old is {c}?",
            [f"{b} is {x} + {d} = {x + d} years old.", f"{c} is 2 * {x + d} = {2 * (x + d)} years old."],
            Fraction(2 * (x + d)))


def weekly_savings(rng):
    n, thing = _names(rng, 1)[0], rng.choice(THINGS)
    s, w = rng.randint(3, 25), rng.randint(2, 12)
    c = rng.randint(1, s * w - 1)
    return (f"{n} saves ${s} every week for {w} weeks and then spends ${c} on a {thing}. How many dollars does "
            f"{n} have left?",
            [f"Saved: {s} * {w} = {s * w} dollars.", f"Left: {s * w} - {c} = {s * w - c} dollars."],
            Fraction(s * w - c))


def rows_plants(rng):
    r, c = rng.randint(3, 15), rng.randint(4, 20)
    d = rng.randint(1, r * c - 1)
    return (f"A garden has {r} rows of {c} plants. {d} plants die. How many plants are left?",
            [f"Plants: {r} * {c} = {r * c}.", f"Left: {r * c} - {d} = {r * c - d}."], Fraction(r * c - d))


def pages_left(rng):
    n, a, d = _names(rng, 1)[0], rng.randint(5, 40), rng.randint(2, 9)
    p = a * d + rng.randint(1, 200)
    return (f"A book has {p} pages. {n} reads {a} pages every day for {d} days. How many pages are left to read?",
            [f"Read: {a} * {d} = {a * d} pages.", f"Left: {p} - {a * d} = {p - a * d} pages."],
            Fraction(p - a * d))


def hourly_pay(rng):
    n, w, h, d = _names(rng, 1)[0], rng.randint(8, 30), rng.randint(2, 9), rng.randint(2, 7)
    return (f"{n} earns ${w} per hour and works {h} hours a day. How many dollars does {n} earn in {d} days?",
            [f"Per day: {w} * {h} = {w * h} dollars.", f"In {d} days: {w * h} * {d} = {w * h * d} dollars."],
            Fraction(w * h * d))


FRACTION_WORDS = {2: "half", 3: "third", 4: "quarter", 5: "fifth"}


def fraction_give(rng):
    a, b = _names(rng, 2)
    k = rng.choice(list(FRACTION_WORDS))
    t = k * rng.randint(2, 40)
    return (f"{a} has {t} marbles and gives a {FRACTION_WORDS[k]} of them to {b}. How many marbles does {a} have "
            "left?",
            [f"{a} gives away {t} / {k} = {t // k} marbles.", f"Left: {t} - {t // k} = {t - t // k} marbles."],
            Fraction(t - t // k))


def average_scores(rng):
    n = _names(rng, 1)[0]
    a, b = rng.randint(5, 40), rng.randint(5, 40)
    c = rng.randint(5, 40)
    c += (-(a + b + c)) % 3
    total = a + b + c
    return (f"{n} scored {a}, {b} and {c} points in three games. What is the average number of points per game?",
            [f"Total: {a} + {b} + {c} = {total} points.", f"Average: {total} / 3 = {total // 3} points."],
            Fraction(total, 3))


def percent_off(rng):
    thing, d = rng.choice(THINGS), rng.choice((10, 20, 25, 50))
    p = 4 * rng.randint(5, 40)
    off = Fraction(p * d, 100)
    return (f"A {thing} costs ${p}. It is on sale for {d}% off. What is the sale price in dollars?",
            [f"The discount is {p} * {d} / 100 = {number(off)} dollars.",
             f"Sale price: {p} - {number(off)} = {number(p - off)} dollars."], p - off)


def boxes_left(rng):
    item, b, k = rng.choice(ITEMS), rng.randint(2, 12), rng.randint(6, 24)
    s = rng.randint(1, b * k - 1)
    return (f"A store receives {b} boxes with {k} {item} in each box. It sells {s} {item}. How many {item} are "
            "left?",
            [f"Received: {b} * {k} = {b * k} {item}.", f"Left: {b * k} - {s} = {b * k - s} {item}."],
            Fraction(b * k - s))


def unit_price(rng):
    item, k, u, m = rng.choice(ITEMS), rng.randint(2, 9), rng.randint(2, 15), rng.randint(2, 12)
    return (f"{k} {item} cost ${k * u} together. How many dollars do {m} {item} cost?",
            [f"One costs {k * u} / {k} = {u} dollars.", f"{m} cost {m} * {u} = {m * u} dollars."],
            Fraction(m * u))


def pizza_left(rng):
    a, b = _names(rng, 2)
    s = rng.choice((6, 8, 10, 12, 16, 20))
    x = rng.randint(1, s // 2 - 1)
    y = rng.randint(1, s - x - 1)
    left = Fraction(s - x - y, s)
    return (f"A pizza is cut into {s} equal slices. {a} eats {x} slices and {b} eats {y} slices. What fraction of "
            "the pizza is left?",
            [f"Eaten: {x} + {y} = {x + y} slices.", f"Left: {s} - {x + y} = {s - x - y} slices.",
             f"Fraction left: {s - x - y}/{s} = {as_fraction(left)}."], as_fraction(left))


def temperature(rng):
    t, u, f = rng.randint(-10, 15), rng.randint(1, 12), rng.randint(5, 30)
    return (f"The temperature is {t} degrees in the morning. It rises {u} degrees by noon and falls {f} degrees by "
            "night. What is the temperature at night?",
            [f"At noon: {t} + {u} = {t + u} degrees.", f"At night: {t + u} - {f} = {t + u - f} degrees."],
            Fraction(t + u - f))


# ---------------------------------------------------------------------------------------------
# templates of the test split only (held out)


def tickets_change(rng):
    a, c = rng.randint(8, 20), rng.randint(3, 9)
    x, y = rng.randint(1, 4), rng.randint(1, 5)
    cost = a * x + c * y
    m = (cost // 50 + 1) * 50
    return (f"Adult tickets cost ${a} and child tickets cost ${c}. A family buys {x} adult tickets and {y} child "
            f"tickets and pays with ${m}. How many dollars of change do they get?",
            [f"Adults: {x} * {a} = {a * x} dollars.", f"Children: {y} * {c} = {c * y} dollars.",
             f"Cost: {a * x} + {c * y} = {cost} dollars.", f"Change: {m} - {cost} = {m - cost} dollars."],
            Fraction(m - cost))


def fence_cost(rng):
    ln, w, p = rng.randint(5, 30), rng.randint(3, 20), rng.randint(2, 9)
    per = 2 * (ln + w)
    return (f"A rectangular garden is {ln} meters long and {w} meters wide. Fencing costs ${p} per meter. How many "
            "dollars does it cost to fence the whole garden?",
            [f"Perimeter: 2 * ({ln} + {w}) = {per} meters.", f"Cost: {per} * {p} = {per * p} dollars."],
            Fraction(per * p))


def run_three_days(rng):
    n, a = _names(rng, 1)[0], rng.randint(2, 40)
    return (f"{n} runs {a} km on Monday, twice as far on Tuesday, and half as far as on Tuesday on Wednesday. How "
            f"many kilometers does {n} run in the three days?",
            [f"Tuesday: 2 * {a} = {2 * a} km.", f"Wednesday: {2 * a} / 2 = {a} km.",
             f"Total: {a} + {2 * a} + {a} = {4 * a} km."], Fraction(4 * a))


def shop_afternoon(rng):
    s, rest = rng.randint(3, 30), 3 * rng.randint(4, 25)
    t = s + rest
    return (f"A shop has {t} shirts. It sells {s} shirts in the morning and a third of the remaining shirts in the "
            "afternoon. How many shirts are left?",
            [f"After the morning: {t} - {s} = {rest} shirts.", f"Afternoon sales: {rest} / 3 = {rest // 3} shirts.",
             f"Left: {rest} - {rest // 3} = {rest - rest // 3} shirts."], Fraction(rest - rest // 3))


def ratio_share(rng):
    a, b = _names(rng, 2)
    x, y = rng.sample(range(1, 8), 2)
    m = (x + y) * rng.randint(2, 20)
    part = m // (x + y)
    return (f"{a} and {b} share ${m} in the ratio {x}:{y}. How many dollars does {b} get?",
            [f"There are {x} + {y} = {x + y} parts.", f"One part is {m} / {x + y} = {part} dollars.",
             f"{b} gets {y} * {part} = {y * part} dollars."], Fraction(y * part))


def price_per_pound(rng):
    n = _names(rng, 1)[0]
    p = Fraction(rng.randint(5, 16), 4)
    k, q = rng.randint(2, 9), rng.randint(2, 10)
    total = p * k + q
    return (f"Apples cost ${number(p)} per pound. {n} buys {k} pounds of apples and a bag of nuts for ${q}. How "
            f"many dollars does {n} spend?",
            [f"Apples: {number(p)} * {k} = {number(p * k)} dollars.",
             f"Total: {number(p * k)} + {q} = {number(total)} dollars."], total)


def tank_leak(rng):
    r, h = rng.randint(2, 12), rng.randint(2, 8)
    c = r * h + rng.randint(10, 200)
    f = rng.randint(5, 60)
    return (f"A tank holds {c} liters of water. It loses {r} liters every hour for {h} hours, and then {f} liters "
            "are added. How many liters are in the tank?",
            [f"Lost: {r} * {h} = {r * h} liters.", f"After the leak: {c} - {r * h} = {c - r * h} liters.",
             f"After adding: {c - r * h} + {f} = {c - r * h + f} liters."], Fraction(c - r * h + f))


def day_left(rng):
    n = _names(rng, 1)[0]
    s, w = rng.randint(6, 10), rng.randint(4, 10)
    left = Fraction(24 - s - w, 24)
    return (f"{n} sleeps {s} hours and works {w} hours a day. What fraction of the day is left for other things?",
            [f"Used: {s} + {w} = {s + w} hours.", f"Left: 24 - {s + w} = {24 - s - w} hours.",
             f"Fraction: {24 - s - w}/24 = {as_fraction(left)}."], as_fraction(left))


TRAIN_TEMPLATES: dict[str, Template] = {f.__name__: f for f in (
    buy_two_kinds, change_left, share_then_eat, two_legs_distance, ages_chain, weekly_savings, rows_plants,
    pages_left, hourly_pay, fraction_give, average_scores, percent_off, boxes_left, unit_price, pizza_left,
    temperature)}
TEST_TEMPLATES: dict[str, Template] = {f.__name__: f for f in (
    tickets_change, fence_cost, run_three_days, shop_afternoon, ratio_share, price_per_pound, tank_leak, day_left)}


@dataclass(frozen=True)
class MathConfig:
    n: int | None = None  # problems per split (None: SIZES)
    seed: int = 0
    split: str | None = None  # train | valid | test (None: load_tasks's split)


def parse_options(options: dict[str, str]) -> MathConfig:
    """A `MathConfig` from a spec's options (keys: `OPTION_KEYS`); a `ValueError` naming the bad one."""
    values: dict = {}
    for key in ("n", "seed"):
        if key in options:
            try:
                values[key] = int(options[key])
            except ValueError:
                raise ValueError(f"option {key}={options[key]!r}: expected an integer") from None
    if values.get("n", 1) < 1:
        raise ValueError(f"option n={values['n']}: expected at least 1")
    if "split" in options:
        if options["split"] not in SIZES:
            raise ValueError(f"option split={options['split']!r}: expected one of {', '.join(SIZES)}")
        values["split"] = options["split"]
    return MathConfig(**values)


def problem_key(template: str, question: str) -> str:
    """What makes two problems the same problem: the template and the numbers drawn (names and items are
    decoration: "a helmet costs $108, 20% off" and "a board game costs $108, 20% off" are one problem)."""
    return template + ":" + ",".join(re.findall(r"\d+(?:\.\d+)?", question))


def in_valid(template: str, question: str) -> bool:
    """Whether a train-template problem belongs to valid: a fifth of all problems, by a hash of
    `problem_key`, so that no valid problem is ever a train problem (of any size or seed), even renamed."""
    return hashlib.sha256(problem_key(template, question).encode()).digest()[0] % 5 == 0


_COUNTED = re.compile(r"\bHow many ([a-z]+)")


def _draw(split: str, n: int, seed: int) -> list[Task]:
    templates = TEST_TEMPLATES if split == "test" else TRAIN_TEMPLATES
    rng = random.Random(f"coderl-math/{seed}/{split}")
    names = sorted(templates)
    tasks: list[Task] = []
    taken: set[str] = set()
    tries = 0
    while len(tasks) < n:
        tries += 1
        if tries > 50 * n:
            raise ValueError(f"split {split}: could not draw {n} distinct problems (got {len(tasks)}); ask for fewer")
        name = names[tries % len(names)]  # round robin over attempts: a template out of new draws is skipped
        question, steps, answer = templates[name](rng)
        key = problem_key(name, question)
        if key in taken or (split != "test" and in_valid(name, question) != (split == "valid")):
            continue
        taken.add(key)
        text = answer if isinstance(answer, str) else number(answer)
        counted = _COUNTED.search(question)  # the template's own "How many <noun>": the noun its answer counts
        tasks.append(math_task(f"math/{split}/{len(tasks):04d}", question, text, "\n".join(steps),
                               source=f"coderl.tasks.math_gen:{name}",  # the rows as before the move to generators/
                               metadata={"template": name, "split": split,
                                         "counted": [counted.group(1)] if counted else []}))
    return tasks


def generate_math(cfg: MathConfig, split: str) -> list[Task]:
    """The problems of `split` (train | valid | test | all)."""
    splits = list(SIZES) if split == "all" else [split]
    if any(s not in SIZES for s in splits):
        raise ValueError(f"split {split!r}: the math set has splits train, valid, test (or all)")
    return [t for s in splits for t in _draw(s, cfg.n or SIZES[s], cfg.seed)]
