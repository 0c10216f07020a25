from coderl.tasks.corpus.define import Family, Scenario

FAMILY = Family("classes", "small stateful classes: stacks, queues, accounts, inventories, buffers")


@FAMILY.class_problem(
    "A stack of integers that also reports its minimum. `push(x)` adds x on top, `pop()` removes and"
    " returns the top value (None if the stack is empty), and `minimum()` returns the smallest value"
    " currently on the stack (None if empty). `size()` returns how many values are stored.",
    "Implement MinStack: push(x) puts x on top; pop() takes the top value off and returns it, or"
    " returns None when there is nothing to pop; minimum() gives the least value still on the stack,"
    " or None for an empty stack; size() gives the number of stored values.",
    examples=[Scenario((), (("push", 5), ("push", 2), ("push", 7), ("minimum",), ("pop",), ("pop",),
                            ("minimum",)))],
    tests=[
        Scenario((), (("pop",), ("minimum",), ("size",))),
        Scenario((), (("push", 3), ("push", 3), ("pop",), ("minimum",), ("size",))),
        Scenario((), (("push", -1), ("push", 4), ("push", -6), ("minimum",), ("pop",), ("minimum",),
                      ("pop",), ("pop",), ("pop",), ("minimum",))),
        Scenario((), (("push", 9), ("push", 8), ("push", 10), ("minimum",), ("size",), ("pop",), ("pop",),
                      ("minimum",))),
        Scenario((), (("push", 0), ("pop",), ("push", 5), ("minimum",), ("size",))),
    ],
    queries=("pop", "minimum", "size"),
)
class MinStack:
    def __init__(self):
        self.items: list[int] = []
        self.mins: list[int] = []

    def push(self, x: int) -> None:
        self.items.append(x)
        self.mins.append(x if not self.mins else min(x, self.mins[-1]))

    def pop(self) -> int | None:
        if not self.items:
            return None
        self.mins.pop()
        return self.items.pop()

    def minimum(self) -> int | None:
        return self.mins[-1] if self.mins else None

    def size(self) -> int:
        return len(self.items)


@FAMILY.class_problem(
    "A bank account created with a starting `balance` and an `overdraft` limit: the balance may go"
    " negative, but never below -overdraft. `deposit(amount)` adds a positive amount and returns True;"
    " a zero or negative amount is refused (returns False). `withdraw(amount)` subtracts a positive"
    " amount if the balance stays >= -overdraft and returns True, otherwise changes nothing and"
    " returns False. `get_balance()` returns the current balance.",
    "Model BankAccount(balance, overdraft). deposit(amount) and withdraw(amount) each return whether"
    " they succeeded. Non-positive amounts always fail. A withdrawal fails, leaving the balance as it"
    " was, when it would take the balance below minus overdraft (ending exactly at -overdraft is"
    " allowed). get_balance() reports the balance.",
    examples=[Scenario((100, 50), (("withdraw", 120), ("get_balance",), ("withdraw", 40), ("get_balance",)))],
    tests=[
        Scenario((0, 0), (("withdraw", 1), ("deposit", 0), ("deposit", -5), ("get_balance",))),
        Scenario((10, 0), (("withdraw", 10), ("get_balance",), ("withdraw", 1), ("get_balance",))),
        Scenario((10, 5), (("withdraw", 15), ("get_balance",), ("deposit", 20), ("withdraw", 0),
                           ("withdraw", 1), ("get_balance",))),
        Scenario((5, 3), (("withdraw", 9), ("withdraw", -2), ("deposit", 1), ("withdraw", 9),
                          ("get_balance",))),
        Scenario((-2, 10), (("deposit", 7), ("withdraw", 14), ("get_balance",), ("withdraw", 2))),
    ],
    queries=("deposit", "withdraw", "get_balance"),
)
class BankAccount:
    def __init__(self, balance: int, overdraft: int):
        self.balance = balance
        self.overdraft = overdraft

    def deposit(self, amount: int) -> bool:
        if amount <= 0:
            return False
        self.balance += amount
        return True

    def withdraw(self, amount: int) -> bool:
        if amount <= 0 or self.balance - amount < -self.overdraft:
            return False
        self.balance -= amount
        return True

    def get_balance(self) -> int:
        return self.balance


@FAMILY.class_problem(
    "A warehouse inventory. `add(item, qty)` increases the stock of item by qty (a qty <= 0 is"
    " ignored). `remove(item, qty)` takes qty units away and returns True only if qty > 0 and at least"
    " qty are in stock; otherwise it changes nothing and returns False. `count(item)` returns the stock (0 for"
    " unknown items) and `items()` returns the names with positive stock in alphabetical order.",
    "Write Inventory with add(item, qty), remove(item, qty) -> bool, count(item) -> int and"
    " items() -> list[str]. Adding a non-positive quantity does nothing. Removing a non-positive"
    " quantity fails (returns False); otherwise removing succeeds only when the stock is at least"
    " qty (removing exactly all of it is fine); a failed removal leaves the stock unchanged. items()"
    " lists, sorted alphabetically, only the items whose stock is above zero.",
    examples=[Scenario((), (("add", "bolt", 5), ("add", "nut", 2), ("remove", "bolt", 3), ("count", "bolt"),
                            ("items",)))],
    tests=[
        Scenario((), (("items",), ("count", "x"), ("remove", "x", 1), ("remove", "x", 0))),
        Scenario((), (("add", "c", 2), ("remove", "c", -1), ("remove", "c", 0), ("count", "c"), ("remove", "c", 1))),
        Scenario((), (("add", "a", 2), ("remove", "a", 2), ("count", "a"), ("items",))),
        Scenario((), (("add", "pen", 0), ("add", "pen", -3), ("count", "pen"), ("items",))),
        Scenario((), (("add", "zip", 4), ("add", "cap", 1), ("add", "zip", 1), ("remove", "zip", 6),
                      ("count", "zip"), ("items",))),
        Scenario((), (("add", "b", 3), ("add", "a", 3), ("remove", "b", 1), ("remove", "a", 3),
                      ("items",), ("count", "b"))),
    ],
    queries=("remove", "count", "items"),
)
class Inventory:
    def __init__(self):
        self.stock: dict[str, int] = {}

    def add(self, item: str, qty: int) -> None:
        if qty > 0:
            self.stock[item] = self.stock.get(item, 0) + qty

    def remove(self, item: str, qty: int) -> bool:
        if qty <= 0 or self.stock.get(item, 0) < qty:
            return False
        self.stock[item] -= qty
        return True

    def count(self, item: str) -> int:
        return self.stock.get(item, 0)

    def items(self) -> list[str]:
        return sorted(name for name, qty in self.stock.items() if qty > 0)


@FAMILY.class_problem(
    "A text buffer with undo. `type(text)` appends text, `backspace(n)` deletes the last n characters"
    " (all of them if fewer than n remain), `undo()` reverts the most recent type or backspace that has"
    " not been undone yet and returns True, or returns False if there is nothing to undo. `text()`"
    " returns the current contents.",
    "Implement TextBuffer, starting empty. type(text) adds text at the end; backspace(n) removes up to"
    " n characters from the end; undo() restores the contents from before the latest not-yet-undone"
    " type/backspace (repeated undos walk further back) and reports True, or reports False when no"
    " edit is left to undo; text() returns what the buffer holds.",
    examples=[Scenario((), (("type", "hello"), ("backspace", 2), ("text",), ("undo",), ("text",)))],
    tests=[
        Scenario((), (("undo",), ("text",))),
        Scenario((), (("type", "ab"), ("backspace", 5), ("text",), ("undo",), ("text",))),
        Scenario((), (("type", "x"), ("type", "yz"), ("undo",), ("undo",), ("undo",), ("text",))),
        Scenario((), (("type", "code"), ("backspace", 0), ("text",), ("undo",), ("text",), ("backspace", 1),
                      ("text",))),
        Scenario((), (("type", "one "), ("type", "two"), ("backspace", 3), ("type", "2"), ("text",),
                      ("undo",), ("undo",), ("text",))),
    ],
    queries=("undo", "text"),
)
class TextBuffer:
    def __init__(self):
        self.content = ""
        self.past: list[str] = []

    def type(self, text: str) -> None:
        self.past.append(self.content)
        self.content += text

    def backspace(self, n: int) -> None:
        self.past.append(self.content)
        self.content = self.content[:max(0, len(self.content) - n)]

    def undo(self) -> bool:
        if not self.past:
            return False
        self.content = self.past.pop()
        return True

    def text(self) -> str:
        return self.content


@FAMILY.class_problem(
    "A first-come-first-served ticket queue. `join(name)` adds name at the back and returns its"
    " 1-based position; if name is already waiting it is not added again and its current position is"
    " returned. `serve()` removes and returns the name at the front (None if nobody waits)."
    " `position(name)` returns the 1-based position of a waiting name, or -1.",
    "Design TicketQueue. join(name) -> int puts a new name at the end of the line and reports its"
    " place counting from 1; joining twice keeps the original place and just reports it. serve()"
    " pops the person at the front and returns the name, or None for an empty line. position(name)"
    " tells where a waiting person stands (1 = next to be served) or -1 if they are not in line.",
    examples=[Scenario((), (("join", "ann"), ("join", "bo"), ("join", "ann"), ("serve",), ("position", "bo")))],
    tests=[
        Scenario((), (("serve",), ("position", "x"))),
        Scenario((), (("join", "a"), ("serve",), ("serve",), ("join", "a"), ("position", "a"))),
        Scenario((), (("join", "a"), ("join", "b"), ("join", "c"), ("position", "c"), ("serve",),
                      ("position", "c"), ("position", "a"))),
        Scenario((), (("join", "x"), ("join", "y"), ("join", "y"), ("join", "x"), ("serve",), ("join", "x"))),
        Scenario((), (("join", "p"), ("join", "q"), ("serve",), ("serve",), ("serve",), ("join", "r"))),
    ],
    queries=("join", "serve", "position"),
)
class TicketQueue:
    def __init__(self):
        self.line: list[str] = []

    def join(self, name: str) -> int:
        if name not in self.line:
            self.line.append(name)
        return self.line.index(name) + 1

    def serve(self) -> str | None:
        return self.line.pop(0) if self.line else None

    def position(self, name: str) -> int:
        return self.line.index(name) + 1 if name in self.line else -1


@FAMILY.class_problem(
    "A grid of `rows` x `cols` integer cells, all 0 at first. `set(r, c, value)` stores value and"
    " returns True, or returns False without changing anything if (r, c) is outside the grid."
    " `get(r, c)` returns the cell's value, or None outside the grid. `row_sum(r)` and `col_sum(c)`"
    " return the sum of a row or column, or None if the index is out of range.",
    "Implement Grid(rows, cols) holding integers that start at zero. Cells are addressed by 0-based"
    " row r and column c; negative indices are out of range. set(r, c, value) -> bool writes a cell"
    " (False for an invalid address). get(r, c) reads it (None when invalid). row_sum(r) and col_sum(c)"
    " add up a whole row or column, giving None for a missing row or column.",
    examples=[Scenario((2, 3), (("set", 0, 1, 5), ("set", 1, 1, -2), ("col_sum", 1), ("row_sum", 0),
                                ("get", 1, 2)))],
    tests=[
        Scenario((1, 1), (("get", 0, 0), ("set", 1, 0, 4), ("set", 0, -1, 4), ("row_sum", 0), ("col_sum", 1))),
        Scenario((2, 2), (("set", 1, 1, 7), ("set", 1, 1, 3), ("get", 1, 1), ("row_sum", 1), ("col_sum", 0))),
        Scenario((3, 2), (("set", 2, 1, 9), ("set", 0, 1, 1), ("col_sum", 1), ("row_sum", 2), ("row_sum", 3),
                          ("get", 2, 2), ("get", -1, 0))),
        Scenario((2, 4), (("set", 0, 3, 2), ("set", 1, 0, 6), ("row_sum", -1), ("col_sum", 3), ("col_sum", 4),
                          ("get", 0, 3))),
    ],
    queries=("set", "get", "row_sum", "col_sum"),
)
class Grid:
    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols
        self.cells = [[0] * cols for _ in range(rows)]

    def _inside(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols

    def set(self, r: int, c: int, value: int) -> bool:
        if not self._inside(r, c):
            return False
        self.cells[r][c] = value
        return True

    def get(self, r: int, c: int) -> int | None:
        return self.cells[r][c] if self._inside(r, c) else None

    def row_sum(self, r: int) -> int | None:
        return sum(self.cells[r]) if 0 <= r < self.rows else None

    def col_sum(self, c: int) -> int | None:
        return sum(row[c] for row in self.cells) if 0 <= c < self.cols else None


@FAMILY.class_problem(
    "Count words across many texts, ignoring case. `add(text)` splits text on whitespace and counts"
    " each word in lower case. `count(word)` returns how often word (any case) was seen. `top(k)`"
    " returns up to k (word, count) pairs, most frequent first, ties in alphabetical order.",
    "WordCounter keeps case-insensitive word counts. add(text) feeds a piece of text whose words are"
    " separated by whitespace; count(word) returns the tally of that word regardless of case (0 if"
    " never seen); top(k) returns a list of (lower-case word, count) tuples ordered by count"
    " descending and then word ascending, at most k of them (an empty list for k <= 0).",
    examples=[Scenario((), (("add", "the cat The dog"), ("add", "a cat"), ("count", "THE"), ("top", 2)))],
    tests=[
        Scenario((), (("count", "x"), ("top", 3))),
        Scenario((), (("add", "   "), ("add", "Zed zed ZED"), ("count", "zed"), ("top", 5))),
        Scenario((), (("add", "b a c b a"), ("top", 2), ("top", 0), ("count", "B"))),
        Scenario((), (("add", "x y"), ("add", "y\tz  z"), ("top", 3), ("top", -1), ("count", "Y"))),
        Scenario((), (("add", "Apple apple banana"), ("add", "Banana cherry"), ("top", 1), ("count", "Cherry"))),
    ],
    queries=("count", "top"),
)
class WordCounter:
    def __init__(self):
        self.counts: dict[str, int] = {}

    def add(self, text: str) -> None:
        for word in text.split():
            w = word.lower()
            self.counts[w] = self.counts.get(w, 0) + 1

    def count(self, word: str) -> int:
        return self.counts.get(word.lower(), 0)

    def top(self, k: int) -> list[tuple[str, int]]:
        if k <= 0:
            return []
        return sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))[:k]


@FAMILY.class_problem(
    "A game scoreboard. `record(player, points)` adds points (possibly negative) to the player's"
    " total. `total(player)` returns the total (0 for unknown players). `leader()` returns the player"
    " with the highest total, the alphabetically first one on ties, or None if nobody has recorded."
    " `rank(player)` is 1 plus the number of players with a strictly higher total, or -1 if unknown.",
    "Keep scores in a Scoreboard. record(player, points) accumulates points for player (recording 0"
    " points still registers the player); total(player) gives the sum so far or 0; leader() names the"
    " top scorer, breaking ties by alphabetical name, and is None before any record; rank(player)"
    " counts the players strictly ahead of player and adds 1 (tied players share a rank), giving -1"
    " for a player never recorded.",
    examples=[Scenario((), (("record", "kim", 5), ("record", "lee", 8), ("record", "kim", 4), ("leader",),
                            ("rank", "lee")))],
    tests=[
        Scenario((), (("leader",), ("total", "x"), ("rank", "x"))),
        Scenario((), (("record", "b", 3), ("record", "a", 3), ("leader",), ("rank", "b"), ("rank", "a"))),
        Scenario((), (("record", "z", -4), ("record", "y", 0), ("leader",), ("rank", "z"), ("total", "z"))),
        Scenario((), (("record", "p", 10), ("record", "q", 7), ("record", "r", 7), ("record", "p", -9),
                      ("rank", "p"), ("rank", "q"), ("leader",), ("total", "p"))),
        Scenario((), (("record", "m", 2), ("rank", "m"), ("rank", "n"), ("total", "n"))),
    ],
    queries=("total", "leader", "rank"),
)
class Scoreboard:
    def __init__(self):
        self.scores: dict[str, int] = {}

    def record(self, player: str, points: int) -> None:
        self.scores[player] = self.scores.get(player, 0) + points

    def total(self, player: str) -> int:
        return self.scores.get(player, 0)

    def leader(self) -> str | None:
        if not self.scores:
            return None
        return min(self.scores, key=lambda p: (-self.scores[p], p))

    def rank(self, player: str) -> int:
        if player not in self.scores:
            return -1
        return 1 + sum(1 for s in self.scores.values() if s > self.scores[player])


@FAMILY.class_problem(
    "A thermostat that keeps its setting between `low` and `high` inclusive. It starts at `start`"
    " clamped into that range. `up(n)` and `down(n)` move the setting by n degrees but stop at the"
    " limits. `set_to(t)` sets the setting to t and returns True if low <= t <= high, otherwise it"
    " returns False and changes nothing. `reading()` returns the setting.",
    "Build Thermostat(low, high, start). The setting never leaves [low, high]: the initial value is"
    " start pulled into the range, up(n) raises it by n and down(n) lowers it by n, each capped at the"
    " boundary. set_to(t) accepts only values inside the range (boundaries included), reporting"
    " True or False. reading() returns the current setting.",
    examples=[Scenario((15, 25, 20), (("up", 10), ("reading",), ("set_to", 14), ("down", 3), ("reading",)))],
    tests=[
        Scenario((10, 20, 5), (("reading",), ("down", 1), ("reading",))),
        Scenario((10, 20, 99), (("reading",), ("set_to", 20), ("set_to", 21), ("reading",))),
        Scenario((0, 5, 3), (("set_to", 0), ("set_to", -1), ("up", 2), ("reading",), ("up", 4), ("reading",))),
        Scenario((-10, 10, 0), (("down", 7), ("reading",), ("down", 7), ("reading",), ("up", 15), ("reading",))),
        Scenario((1, 9, 4), (("set_to", 10), ("reading",), ("set_to", 1), ("reading",))),
    ],
    queries=("set_to", "reading"),
)
class Thermostat:
    def __init__(self, low: int, high: int, start: int):
        self.low, self.high = low, high
        self.value = min(high, max(low, start))

    def up(self, n: int) -> None:
        self.value = min(self.high, self.value + n)

    def down(self, n: int) -> None:
        self.value = max(self.low, self.value - n)

    def set_to(self, t: int) -> bool:
        if t < self.low or t > self.high:
            return False
        self.value = t
        return True

    def reading(self) -> int:
        return self.value


@FAMILY.class_problem(
    "A parking lot with `capacity` numbered spots 0 .. capacity - 1. `park(plate)` puts the car in the"
    " lowest-numbered free spot and returns that number; it returns -1 if the lot is full or the car"
    " is already parked. `leave(plate)` frees the car's spot and returns True, or False if the car"
    " is not parked. `spot_of(plate)` returns the car's spot or -1, and `free_spots()` the number of"
    " empty spots.",
    "Simulate ParkingLot(capacity). Arriving cars (park(plate)) always take the free spot with the"
    " smallest number and get that number back; a car that is already inside, or any car when no spot"
    " is free, gets -1. leave(plate) -> bool releases a spot. spot_of(plate) finds a parked car"
    " (-1 if absent). free_spots() counts unoccupied spots.",
    examples=[Scenario((3,), (("park", "A1"), ("park", "B2"), ("leave", "A1"), ("park", "C3"), ("free_spots",)))],
    tests=[
        Scenario((0,), (("park", "X"), ("free_spots",), ("leave", "X"))),
        Scenario((1,), (("park", "X"), ("park", "X"), ("park", "Y"), ("spot_of", "Y"), ("spot_of", "X"))),
        Scenario((4,), (("park", "a"), ("park", "b"), ("park", "c"), ("leave", "b"), ("leave", "b"),
                        ("park", "d"), ("park", "e"), ("spot_of", "e"), ("free_spots",))),
        Scenario((3,), (("park", "a"), ("park", "b"), ("park", "c"), ("leave", "a"), ("leave", "c"),
                        ("park", "d"), ("spot_of", "d"), ("free_spots",))),
        Scenario((2,), (("leave", "ghost"), ("park", "p"), ("spot_of", "q"), ("free_spots",))),
        Scenario((3,), (("park", "k"), ("park", "k"), ("park", "m"), ("spot_of", "m"), ("free_spots",))),
    ],
    queries=("park", "leave", "spot_of", "free_spots"),
)
class ParkingLot:
    def __init__(self, capacity: int):
        self.spots: list[str | None] = [None] * capacity

    def park(self, plate: str) -> int:
        if plate in self.spots or None not in self.spots:
            return -1
        i = self.spots.index(None)
        self.spots[i] = plate
        return i

    def leave(self, plate: str) -> bool:
        if plate not in self.spots:
            return False
        self.spots[self.spots.index(plate)] = None
        return True

    def spot_of(self, plate: str) -> int:
        return self.spots.index(plate) if plate in self.spots else -1

    def free_spots(self) -> int:
        return self.spots.count(None)


@FAMILY.class_problem(
    "A key-value store that remembers history. `put(key, value)` stores value under key. `get(key)`"
    " returns the current value or None. `delete(key)` removes the key and returns True, or False if"
    " it was absent. `history(key)` returns every value ever put under key, oldest first, even after"
    " deletion (an empty list if none). `size()` returns the number of keys currently stored.",
    "Implement VersionedStore. put(key, value) sets or overwrites a string value; get(key) reads it"
    " (None when missing or deleted); delete(key) -> bool drops a key if present; history(key) is a"
    " new list of all values put under key in the order they were put, and deleting a key does not"
    " clear its history; size() counts the keys that currently have a value.",
    examples=[Scenario((), (("put", "a", "1"), ("put", "a", "2"), ("get", "a"), ("delete", "a"), ("get", "a"),
                            ("history", "a")))],
    tests=[
        Scenario((), (("get", "k"), ("delete", "k"), ("history", "k"), ("size",))),
        Scenario((), (("put", "x", "v"), ("put", "x", "v"), ("history", "x"), ("size",))),
        Scenario((), (("put", "a", "1"), ("put", "b", "2"), ("delete", "a"), ("delete", "a"), ("size",),
                      ("get", "b"))),
        Scenario((), (("put", "k", "old"), ("delete", "k"), ("put", "k", "new"), ("get", "k"),
                      ("history", "k"), ("size",))),
        Scenario((), (("put", "p", ""), ("get", "p"), ("size",), ("history", "q"))),
        Scenario((), (("put", "m", "1"), ("history", "m"), ("put", "m", "2"), ("history", "m"))),
    ],
    queries=("get", "delete", "history", "size"),
)
class VersionedStore:
    def __init__(self):
        self.current: dict[str, str] = {}
        self.past: dict[str, list[str]] = {}

    def put(self, key: str, value: str) -> None:
        self.current[key] = value
        self.past.setdefault(key, []).append(value)

    def get(self, key: str) -> str | None:
        return self.current.get(key)

    def delete(self, key: str) -> bool:
        if key not in self.current:
            return False
        del self.current[key]
        return True

    def history(self, key: str) -> list[str]:
        return list(self.past.get(key, []))

    def size(self) -> int:
        return len(self.current)


@FAMILY.class_problem(
    "Track statistics of a stream of integers. `add(x)` records a value. `count()` returns how many"
    " values were added, `mean()` their average rounded to 2 decimals (None if there are none), and"
    " `spread()` the largest minus the smallest value (0 if there are none).",
    "RunningStats receives integers through add(x). Provide count() -> int, mean() -> float | None"
    " giving the arithmetic mean rounded to 2 decimals (None before the first value) and"
    " spread() -> int giving maximum minus minimum of the values seen so far (0 when empty).",
    examples=[Scenario((), (("add", 4), ("add", 9), ("add", 2), ("mean",), ("spread",)))],
    tests=[
        Scenario((), (("count",), ("mean",), ("spread",))),
        Scenario((), (("add", -5), ("count",), ("mean",), ("spread",))),
        Scenario((), (("add", 1), ("add", 2), ("mean",), ("add", 2), ("mean",), ("spread",))),
        Scenario((), (("add", -3), ("add", 10), ("add", 0), ("add", -7), ("mean",), ("spread",), ("count",))),
        Scenario((), (("add", 5), ("add", 5), ("spread",), ("mean",))),
    ],
    queries=("count", "mean", "spread"),
)
class RunningStats:
    def __init__(self):
        self.values: list[int] = []

    def add(self, x: int) -> None:
        self.values.append(x)

    def count(self) -> int:
        return len(self.values)

    def mean(self) -> float | None:
        if not self.values:
            return None
        return round(sum(self.values) / len(self.values), 2)

    def spread(self) -> int:
        return max(self.values) - min(self.values) if self.values else 0


@FAMILY.class_problem(
    "A looping playlist created from a list of `songs`. `play()` returns the current song and moves"
    " to the next one, wrapping from the last song back to the first; it returns None if the playlist"
    " is empty. `add(song)` appends a song at the end. `skip(n)` moves forward n songs (wrapping)"
    " without playing them.",
    "Playlist(songs) cycles through songs forever. Each play() gives the song under the cursor and"
    " advances the cursor by one; after the last song comes the first again. skip(n) advances the"
    " cursor n places with the same wrap-around (nothing happens on an empty playlist). add(song)"
    " puts a new song after the current last one. play() on an empty playlist returns None.",
    examples=[Scenario((["a", "b", "c"],), (("play",), ("skip", 1), ("play",), ("play",)))],
    tests=[
        Scenario(([],), (("play",), ("skip", 3), ("add", "x"), ("play",), ("play",))),
        Scenario((["s"],), (("play",), ("play",), ("skip", 5), ("play",))),
        Scenario((["a", "b"],), (("play",), ("add", "c"), ("play",), ("play",), ("play",))),
        Scenario((["a", "b", "c", "d"],), (("skip", 5), ("play",), ("skip", 0), ("play",), ("play",))),
        Scenario((["a", "b", "c"],), (("play",), ("play",), ("play",), ("add", "z"), ("play",), ("play",))),
    ],
    queries=("play",),
)
class Playlist:
    def __init__(self, songs: list[str]):
        self.songs = list(songs)
        self.cursor = 0

    def play(self) -> str | None:
        if not self.songs:
            return None
        song = self.songs[self.cursor]
        self.cursor = (self.cursor + 1) % len(self.songs)
        return song

    def add(self, song: str) -> None:
        self.songs.append(song)

    def skip(self, n: int) -> None:
        if self.songs:
            self.cursor = (self.cursor + n) % len(self.songs)


@FAMILY.class_problem(
    "A small lending library. `add(title, copies)` adds copies of a title. `borrow(title, user)`"
    " lends one copy and returns True, unless no copy is on the shelf or the user already holds that"
    " title (then False). `give_back(title, user)` returns True if the user held the title and puts"
    " the copy back, else False. `available(title)` returns the copies on the shelf and `loans(user)`"
    " the titles the user holds, sorted alphabetically.",
    "Implement Library. add(title, copies) increases the shelf count of title. borrow(title, user) ->"
    " bool takes one copy off the shelf for user; it fails if the shelf has none of that title or if"
    " user already has a copy of it. give_back(title, user) -> bool fails if user is not holding"
    " title. available(title) is the number on the shelf (0 for unknown titles); loans(user) is an"
    " alphabetical list of titles user holds right now.",
    examples=[Scenario((), (("add", "Dune", 1), ("borrow", "Dune", "amy"), ("borrow", "Dune", "bo"),
                            ("loans", "amy"), ("available", "Dune")))],
    tests=[
        Scenario((), (("borrow", "X", "u"), ("give_back", "X", "u"), ("available", "X"), ("loans", "u"))),
        Scenario((), (("add", "A", 2), ("borrow", "A", "u"), ("borrow", "A", "u"), ("available", "A"))),
        Scenario((), (("add", "B", 1), ("add", "A", 1), ("borrow", "B", "u"), ("borrow", "A", "u"),
                      ("loans", "u"), ("give_back", "B", "u"), ("give_back", "B", "u"), ("loans", "u"),
                      ("available", "B"))),
        Scenario((), (("add", "C", 1), ("borrow", "C", "p"), ("give_back", "C", "q"), ("borrow", "C", "q"),
                      ("give_back", "C", "p"), ("borrow", "C", "q"), ("loans", "q"))),
        Scenario((), (("add", "D", 0), ("borrow", "D", "z"), ("add", "D", 2), ("borrow", "D", "z"),
                      ("available", "D"))),
    ],
    queries=("borrow", "give_back", "available", "loans"),
)
class Library:
    def __init__(self):
        self.shelf: dict[str, int] = {}
        self.held: dict[str, set[str]] = {}

    def add(self, title: str, copies: int) -> None:
        self.shelf[title] = self.shelf.get(title, 0) + copies

    def borrow(self, title: str, user: str) -> bool:
        mine = self.held.setdefault(user, set())
        if self.shelf.get(title, 0) == 0 or title in mine:
            return False
        self.shelf[title] -= 1
        mine.add(title)
        return True

    def give_back(self, title: str, user: str) -> bool:
        mine = self.held.get(user, set())
        if title not in mine:
            return False
        mine.remove(title)
        self.shelf[title] += 1
        return True

    def available(self, title: str) -> int:
        return self.shelf.get(title, 0)

    def loans(self, user: str) -> list[str]:
        return sorted(self.held.get(user, set()))


@FAMILY.class_problem(
    "A rate limiter allowing at most `limit` requests in any time window of length `window`."
    " `allow(t)` is called with non-decreasing integer timestamps; it returns True and records the"
    " request if fewer than limit recorded requests have a timestamp in (t - window, t], otherwise"
    " it returns False and records nothing.",
    "RateLimiter(limit, window) guards an API. For each request at time t (times never decrease),"
    " allow(t) looks at the previously accepted requests whose time s satisfies t - window < s <= t;"
    " if there are fewer than limit of them the request is accepted (True) and remembered, else it is"
    " rejected (False). Rejected requests do not count against later ones.",
    examples=[Scenario((2, 10), (("allow", 1), ("allow", 5), ("allow", 8), ("allow", 11)))],
    tests=[
        Scenario((0, 5), (("allow", 1), ("allow", 100))),
        Scenario((1, 3), (("allow", 0), ("allow", 2), ("allow", 3), ("allow", 5), ("allow", 6))),
        Scenario((2, 4), (("allow", 1), ("allow", 1), ("allow", 1), ("allow", 4), ("allow", 5), ("allow", 5))),
        Scenario((3, 10), (("allow", 0), ("allow", 9), ("allow", 9), ("allow", 10), ("allow", 18),
                           ("allow", 19), ("allow", 20))),
    ],
    queries=("allow",),
)
class RateLimiter:
    def __init__(self, limit: int, window: int):
        self.limit, self.window = limit, window
        self.accepted: list[int] = []

    def allow(self, t: int) -> bool:
        recent = [s for s in self.accepted if t - self.window < s <= t]
        if len(recent) >= self.limit:
            return False
        self.accepted.append(t)
        return True


@FAMILY.class_problem(
    "A shopping cart. `add(item, price, qty)` adds qty units of item at a unit price in cents (if the"
    " item is already in the cart, its quantity grows and the new price replaces the old one)."
    " `remove(item, qty)` removes up to qty units (the item disappears when none are left) and"
    " returns the number of units actually removed. `set_discount(percent)` sets a discount between"
    " 0 and 100. `total()` returns the sum of price * quantity minus the discount, where the discount"
    " amount is sum * percent // 100.",
    "Write ShoppingCart. Prices are integer cents. add(item, price, qty) increases item's quantity"
    " and sets its unit price to price. remove(item, qty) -> int takes away at most qty units and"
    " reports how many were really removed (0 for an absent item). set_discount(percent) replaces any"
    " earlier discount. total() -> int is the undiscounted sum minus (undiscounted sum * percent //"
    " 100), with percent 0 before any discount is set.",
    examples=[Scenario((), (("add", "tea", 250, 2), ("add", "cup", 900, 1), ("total",), ("set_discount", 10),
                            ("total",)))],
    tests=[
        Scenario((), (("total",), ("remove", "x", 3))),
        Scenario((), (("add", "a", 100, 3), ("remove", "a", 5), ("total",), ("remove", "a", 1))),
        Scenario((), (("add", "a", 100, 1), ("add", "a", 80, 2), ("total",), ("remove", "a", 2), ("total",))),
        Scenario((), (("add", "pen", 199, 3), ("set_discount", 15), ("total",), ("set_discount", 0), ("total",))),
        Scenario((), (("add", "x", 333, 1), ("add", "y", 1, 1), ("set_discount", 100), ("total",),
                      ("set_discount", 33), ("total",))),
    ],
    queries=("remove", "total"),
)
class ShoppingCart:
    def __init__(self):
        self.prices: dict[str, int] = {}
        self.qty: dict[str, int] = {}
        self.percent = 0

    def add(self, item: str, price: int, qty: int) -> None:
        self.prices[item] = price
        self.qty[item] = self.qty.get(item, 0) + qty

    def remove(self, item: str, qty: int) -> int:
        taken = min(qty, self.qty.get(item, 0))
        if item in self.qty:
            self.qty[item] -= taken
            if self.qty[item] == 0:
                del self.qty[item]
        return taken

    def set_discount(self, percent: int) -> None:
        self.percent = percent

    def total(self) -> int:
        raw = sum(self.prices[i] * q for i, q in self.qty.items())
        return raw - raw * self.percent // 100


@FAMILY.class_problem(
    "An integer matrix built from a list of `rows`. `add(other)` adds another matrix element-wise in"
    " place and returns True, or returns False and changes nothing if the shapes differ. `scale(k)`"
    " multiplies every element by k. `rows()` returns the contents as a new list of lists, and"
    " `trace()` returns the sum of the main diagonal, or None if the matrix is not square.",
    "Implement Matrix(rows), copying the given rows. add(other) -> bool performs element-wise"
    " addition with another list of rows of the same shape (False and no change when the number of"
    " rows or columns differs). scale(k) multiplies all entries by k. rows() gives a fresh copy of the"
    " entries. trace() is the diagonal sum for a square matrix and None otherwise (an empty matrix"
    " with no rows counts as square, trace 0).",
    examples=[Scenario(([[1, 2], [3, 4]],), (("add", [[1, 1], [1, 1]]), ("rows",), ("trace",)))],
    tests=[
        Scenario(([],), (("trace",), ("rows",), ("add", []))),
        Scenario(([[1, 2, 3]],), (("trace",), ("add", [[1, 2]]), ("scale", -2), ("rows",))),
        Scenario(([[5]],), (("add", [[5], [5]]), ("scale", 3), ("trace",), ("rows",))),
        Scenario(([[1, 0], [0, 1]],), (("scale", 0), ("add", [[2, 7], [-1, 4]]), ("trace",), ("rows",))),
        Scenario(([[1, 2], [3, 4], [5, 6]],), (("add", [[1, 1], [1, 1], [1, 1]]), ("trace",), ("rows",))),
    ],
    queries=("add", "rows", "trace"),
)
class Matrix:
    def __init__(self, rows: list[list[int]]):
        self.data = [list(r) for r in rows]

    def add(self, other: list[list[int]]) -> bool:
        if len(other) != len(self.data) or any(len(a) != len(b) for a, b in zip(self.data, other)):
            return False
        self.data = [[x + y for x, y in zip(a, b)] for a, b in zip(self.data, other)]
        return True

    def scale(self, k: int) -> None:
        self.data = [[x * k for x in row] for row in self.data]

    def rows(self) -> list[list[int]]:
        return [list(r) for r in self.data]

    def trace(self) -> int | None:
        if any(len(row) != len(self.data) for row in self.data):
            return None
        return sum(self.data[i][i] for i in range(len(self.data)))


@FAMILY.class_problem(
    "A tally counter that moves in steps of `step`. `click()` adds step to the total, `undo()` subtracts step but"
    " never lets the total go below 0, and `total()` returns the current total (0 at the start).",
    "StepCounter(step) starts at 0. click() increases the count by step; undo() decreases it by step, stopping"
    " at 0 instead of going negative; total() reports the count.",
    examples=[Scenario((5,), (("click",), ("click",), ("undo",), ("total",)))],
    tests=[
        Scenario((3,), (("total",),)),
        Scenario((2,), (("undo",), ("total",), ("click",), ("total",))),
        Scenario((1,), (("click",), ("click",), ("click",), ("total",), ("undo",), ("total",))),
        Scenario((4,), (("click",), ("undo",), ("undo",), ("total",), ("click",), ("total",))),
        Scenario((10,), (("click",), ("click",), ("undo",), ("total",))),
    ],
    queries=("total",),
    level=1,
)
class StepCounter:
    def __init__(self, step: int):
        self.step = step
        self.count = 0

    def click(self) -> None:
        self.count += self.step

    def undo(self) -> None:
        self.count = max(0, self.count - self.step)

    def total(self) -> int:
        return self.count


@FAMILY.class_problem(
    "A greeter for a person called `name`. `greet()` returns 'Hello, <name>!' and `rename(new)` changes the name"
    " to new with surrounding spaces removed, unless new is empty or only spaces (then the name stays).",
    "Greeter(name) stores a name. greet() gives the text 'Hello, ' + name + '!'. rename(new) replaces the name by"
    " new.strip(), but a blank new name is ignored.",
    examples=[Scenario(("Ann",), (("greet",), ("rename", " Bob "), ("greet",)))],
    tests=[
        Scenario(("Zoe",), (("greet",),)),
        Scenario(("Al",), (("rename", "   "), ("greet",))),
        Scenario(("Al",), (("rename", ""), ("rename", "Cy"), ("greet",))),
        Scenario(("x",), (("rename", "  y z "), ("greet",), ("rename", "w"), ("greet",))),
        Scenario(("Max",), (("rename", "\tMia\n"), ("greet",))),
    ],
    queries=("greet",),
    level=1,
)
class Greeter:
    def __init__(self, name: str):
        self.name = name

    def greet(self) -> str:
        return "Hello, " + self.name + "!"

    def rename(self, new: str) -> None:
        if new.strip():
            self.name = new.strip()


@FAMILY.class_problem(
    "A rectangle with integer `width` and `height`. `area()` returns width * height and `perimeter()` returns the"
    " length of its border, 2 * (width + height).",
    "Rectangle(width, height) offers area(), the number of unit squares inside it, and perimeter(), the total"
    " length of its four sides.",
    examples=[Scenario((3, 4), (("area",), ("perimeter",)))],
    tests=[
        Scenario((1, 1), (("area",), ("perimeter",))),
        Scenario((0, 5), (("area",), ("perimeter",))),
        Scenario((2, 7), (("perimeter",), ("area",))),
        Scenario((10, 10), (("area",), ("perimeter",))),
        Scenario((6, 1), (("area",),)),
    ],
    queries=("area", "perimeter"),
    level=1,
)
class Rectangle:
    def __init__(self, width: int, height: int):
        self.width = width
        self.height = height

    def area(self) -> int:
        return self.width * self.height

    def perimeter(self) -> int:
        return 2 * (self.width + self.height)


@FAMILY.class_problem(
    "A list with undo. `add(x)` appends x, `undo()` removes and returns the most recently added value (None if"
    " the list is empty), and `items()` returns the current values in order.",
    "UndoList starts empty. add(x) puts x at the end; undo() takes the last value off and returns it, or returns"
    " None when there is nothing to undo; items() gives a list of the values still stored.",
    examples=[Scenario((), (("add", 1), ("add", 2), ("undo",), ("items",)))],
    tests=[
        Scenario((), (("undo",), ("items",))),
        Scenario((), (("add", 5), ("items",), ("undo",), ("undo",), ("items",))),
        Scenario((), (("add", 3), ("add", 3), ("add", 4), ("undo",), ("items",))),
        Scenario((), (("add", -1), ("undo",), ("add", 7), ("add", 8), ("items",))),
        Scenario((), (("add", 0), ("add", 9), ("undo",), ("undo",), ("items",))),
    ],
    queries=("undo", "items"),
    level=1,
)
class UndoList:
    def __init__(self):
        self.values: list[int] = []

    def add(self, x: int) -> None:
        self.values.append(x)

    def undo(self) -> int | None:
        if not self.values:
            return None
        return self.values.pop()

    def items(self) -> list[int]:
        return list(self.values)


@FAMILY.class_problem(
    "A 24-hour clock showing whole hours, starting at `hour` (0 to 23). `tick()` moves it forward one hour, going"
    " from 23 back to 0, and `now()` returns the current hour.",
    "HourClock(hour) keeps an hour of the day. Each tick() adds one hour, wrapping around after 23 to 0; now()"
    " reports the hour as an int.",
    examples=[Scenario((22,), (("tick",), ("now",), ("tick",), ("now",)))],
    tests=[
        Scenario((5,), (("now",),)),
        Scenario((23,), (("tick",), ("now",))),
        Scenario((0,), (("tick",), ("tick",), ("tick",), ("now",))),
        Scenario((21,), (("tick",), ("tick",), ("tick",), ("tick",), ("now",))),
        Scenario((12,), (("tick",), ("now",), ("tick",), ("now",))),
    ],
    queries=("now",),
    level=1,
)
class HourClock:
    def __init__(self, hour: int):
        self.hour = hour

    def tick(self) -> None:
        self.hour = (self.hour + 1) % 24

    def now(self) -> int:
        return self.hour


@FAMILY.class_problem(
    "A countdown starting at `n`. `tick()` lowers the count by 1 (never below 0) and returns the new count, and"
    " `done()` returns True once the count is 0.",
    "Countdown(n) holds a non-negative count. Each tick() decreases it by one, staying at 0 once there, and"
    " returns what is left; done() says whether the count has reached 0.",
    examples=[Scenario((2,), (("tick",), ("done",), ("tick",), ("done",)))],
    tests=[
        Scenario((0,), (("done",), ("tick",), ("done",))),
        Scenario((1,), (("done",), ("tick",), ("tick",))),
        Scenario((3,), (("tick",), ("tick",), ("done",), ("tick",), ("done",))),
        Scenario((5,), (("tick",), ("done",))),
        Scenario((2,), (("tick",), ("tick",), ("tick",), ("done",))),
    ],
    queries=("tick", "done"),
    level=1,
)
class Countdown:
    def __init__(self, n: int):
        self.count = n

    def tick(self) -> int:
        self.count = max(0, self.count - 1)
        return self.count

    def done(self) -> bool:
        return self.count == 0
