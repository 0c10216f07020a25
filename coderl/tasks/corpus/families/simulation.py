from coderl.tasks.corpus.define import Family, Scenario

FAMILY = Family("simulation", "step-by-step simulations: robots, queues, elevators, lights, accounts, board games")


@FAMILY.problem(
    "A robot starts at (0, 0). Each character of `commands` moves it one step: 'U' increases y, 'D' decreases y,"
    " 'R' increases x and 'L' decreases x; any other character (lower-case letters included) is ignored. Return the"
    " final position as a tuple (x, y).",
    "Given a string commands of moves for a robot that begins at the origin, compute where it ends up as (x, y)."
    " 'U'/'D' change y by +1/-1, 'R'/'L' change x by +1/-1, and every other character does nothing. An empty"
    " string leaves the robot at (0, 0).",
    examples=[("UURDL",), ("RRR",)],
    tests=[("",), ("LLDD",), ("UDUDLR",), ("uRxD?R",), ("RRUULDLDDR",), ("D",)],
)
def robot_final_position(commands: str) -> tuple[int, int]:
    x = y = 0
    for c in commands:
        if c == "U":
            y += 1
        elif c == "D":
            y -= 1
        elif c == "R":
            x += 1
        elif c == "L":
            x -= 1
    return (x, y)


@FAMILY.problem(
    "A robot sits on a board with columns 0..width-1 and rows 0..height-1, starting at (0, 0). For each character"
    " of `commands`, 'N' adds 1 to the row, 'S' subtracts 1 from the row, 'E' adds 1 to the column and 'W'"
    " subtracts 1 from the column. A move that would take the robot off the board is skipped (the robot stays"
    " put), and any other character is ignored. Return the final (column, row).",
    "Simulate a rover on a width x height field whose cells are (x, y) with 0 <= x < width and 0 <= y < height."
    " It begins in corner (0, 0) and reads commands one letter at a time: N is y+1, S is y-1, E is x+1, W is x-1."
    " Moves that would leave the field are ignored, as are unknown letters. Return its final position (x, y).",
    examples=[(3, 3, "NNNNEEEE"), (4, 2, "ENWS")],
    tests=[(1, 1, "NESW"), (5, 5, ""), (2, 3, "SWNNEN"), (3, 3, "EEWNNNS"), (4, 4, "EEEEENNNNWWXS"),
           (2, 2, "nE")],
)
def robot_on_board(width: int, height: int, commands: str) -> tuple[int, int]:
    x = y = 0
    steps = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}
    for c in commands:
        dx, dy = steps.get(c, (0, 0))
        if 0 <= x + dx < width and 0 <= y + dy < height:
            x, y = x + dx, y + dy
    return (x, y)


@FAMILY.problem(
    "A robot starts facing north ('N'). For each character of `commands`: 'L' turns it 90 degrees to the left, 'R'"
    " turns it 90 degrees to the right, and 'U' makes a U-turn (180 degrees); other characters are ignored."
    " Return the direction it faces at the end as one of 'N', 'E', 'S', 'W'.",
    "Given turning instructions commands, work out the final compass heading of a robot that initially faces"
    " 'N'. Clockwise order is N, E, S, W. 'R' is a quarter turn clockwise, 'L' a quarter turn counter-clockwise,"
    " 'U' a half turn, anything else is no turn. Return the heading letter.",
    examples=[("RR",), ("LUR",)],
    tests=[("",), ("L",), ("LLL",), ("RRRRR",), ("UxU",), ("RLLU",), ("R",)],
)
def final_heading(commands: str) -> str:
    k = 0
    for c in commands:
        if c == "R":
            k += 1
        elif c == "L":
            k -= 1
        elif c == "U":
            k += 2
    return "NESW"[k % 4]


@FAMILY.problem(
    "A turtle starts at (0, 0) facing north (towards increasing y). In `commands`, 'F' moves it one cell forward,"
    " 'L' turns it 90 degrees left and 'R' turns it 90 degrees right; other characters are ignored. Return how many"
    " distinct cells it has occupied, counting the starting cell.",
    "Trace a turtle through commands: it begins on cell (0, 0) looking north, 'F' steps forward one cell, 'L' and"
    " 'R' rotate a quarter turn left or right without moving. Count the different cells it ever stands on, the"
    " start included (so no commands gives 1, and revisited cells count once).",
    examples=[("FFRFF",), ("FRFRFRF",)],
    tests=[("",), ("RRRR",), ("FLFLFLFLF",), ("FFLLFF",), ("FRRFF",), ("FxFF",), ("LFFRFRFFFRF",)],
)
def turtle_cells_visited(commands: str) -> int:
    x = y = 0
    dx, dy = 0, 1
    seen = {(0, 0)}
    for c in commands:
        if c == "F":
            x, y = x + dx, y + dy
            seen.add((x, y))
        elif c == "L":
            dx, dy = -dy, dx
        elif c == "R":
            dx, dy = dy, -dx
    return len(seen)


@FAMILY.problem(
    "Customers arrive at a single counter at the times in `arrivals` (non-decreasing) and are served one at a time"
    " in arrival order; each service takes `service` minutes. A customer is served as soon as they arrive if the"
    " counter is free, otherwise when the previous customer is done. Return the list of waiting times (service"
    " start minus arrival), in arrival order.",
    "Given sorted arrival times arrivals and a fixed service duration service, simulate a one-clerk queue and"
    " return how long each customer waits before being served. A customer arriving exactly when the clerk"
    " finishes waits 0. An empty arrivals list gives [].",
    examples=[([0, 1, 2], 3), ([0, 10], 4)],
    tests=[([], 5), ([5], 2), ([0, 0, 0], 3), ([0, 10, 11, 30], 5), ([1, 4, 7], 3), ([2, 3, 4], 0),
           ([0, 2, 3, 9, 10], 4)],
)
def counter_wait_times(arrivals: list[int], service: int) -> list[int]:
    free_at = 0
    waits = []
    for t in arrivals:
        start = max(t, free_at)
        waits.append(start - t)
        free_at = start + service
    return waits


@FAMILY.problem(
    "An elevator starts on floor `start` and visits the floors in `stops` in the given order. Return the total"
    " number of floors it travels. Floors can be negative (basements) and a stop on the current floor costs 0.",
    "Given the starting floor start and the list stops of floors an elevator goes to one after another, compute"
    " the total distance travelled in floors (the sum of the absolute differences between consecutive floors).",
    examples=[(0, [5, 2]), (3, [])],
    tests=[(0, []), (2, [2, 2]), (-2, [3]), (10, [0, 10, -1]), (1, [4, 2, 7, 7, 0]), (5, [-5])],
)
def elevator_travel(start: int, stops: list[int]) -> int:
    return sum(abs(b - a) for a, b in zip([start] + stops, stops))


@FAMILY.problem(
    "An elevator is on floor `current`, moving up if `going_up` is True and down otherwise. It first serves, in"
    " its direction of travel, every requested floor from `requests` that is on the current floor or ahead of it,"
    " then reverses and serves the rest. Each floor is served once even if requested several times. Return the"
    " floors in the order they are served.",
    "Given the list requests of floor numbers, the elevator's floor current and its direction going_up, return the"
    " service order of the sweep strategy: when going up, the distinct requested floors >= current in ascending"
    " order, then those < current in descending order; when going down, the distinct floors <= current in"
    " descending order, then those > current in ascending order.",
    examples=[(5, [7, 2, 9, 5], True), (5, [7, 2, 9], False)],
    tests=[(3, [], True), (4, [4, 4], False), (0, [3, -2, 1, -5], True), (0, [3, -2, 1, -5], False),
           (6, [8, 8, 1, 6, 10, 3], True), (2, [1, 5, 1], False)],
)
def elevator_service_order(current: int, requests: list[int], going_up: bool) -> list[int]:
    floors = set(requests)
    if going_up:
        first = sorted(f for f in floors if f >= current)
        second = sorted((f for f in floors if f < current), reverse=True)
    else:
        first = sorted((f for f in floors if f <= current), reverse=True)
        second = sorted(f for f in floors if f > current)
    return first + second


@FAMILY.problem(
    "A traffic light turns green at second 0, stays green for `green` seconds, then yellow for `yellow` seconds,"
    " then red for `red` seconds, and repeats forever. Return the color ('green', 'yellow' or 'red') shown at"
    " second `t` (t >= 0, all durations positive). The light has just changed at second green, so it shows"
    " yellow there.",
    "Given the phase lengths green, yellow and red of a cycling signal that starts a green phase at time 0, return"
    " the color showing at time t. Within one cycle, seconds 0 .. green-1 are 'green', the next yellow seconds"
    " are 'yellow' and the remaining red seconds are 'red'.",
    examples=[(4, 3, 1, 2), (9, 3, 1, 2)],
    tests=[(0, 5, 2, 4), (5, 5, 2, 4), (6, 5, 2, 4), (7, 5, 2, 4), (10, 5, 2, 4), (11, 5, 2, 4), (23, 5, 2, 4)],
)
def light_color(t: int, green: int, yellow: int, red: int) -> str:
    t %= green + yellow + red
    if t < green:
        return "green"
    if t < green + yellow:
        return "yellow"
    return "red"


@FAMILY.problem(
    "An account starts with balance `start`. Each amount in `transactions` is a deposit if positive and a"
    " withdrawal of that size if negative (0 changes nothing). A withdrawal bigger than the current balance is"
    " declined: it is not applied and a penalty `fee` is subtracted instead (even if that makes the balance"
    " negative). A withdrawal equal to the balance is allowed. Return the final balance.",
    "Simulate a bank account: begin at start, process transactions in order (positive = deposit, negative ="
    " withdrawal, zero = nothing). Withdrawals that exceed the money currently in the account bounce and cost fee"
    " each; withdrawing exactly everything is fine. Return the balance at the end.",
    examples=[(100, [-30, -80, 50], 5), (0, [20], 3)],
    tests=[(50, [], 2), (10, [-10, -1], 4), (0, [-5, 0, -5], 3), (5, [-1, -20, 0, 10, -12], 10),
           (-3, [0, 4, -1], 2), (30, [-40, -20, -5, -10], 1)],
)
def balance_after(start: int, transactions: list[int], fee: int) -> int:
    balance = start
    for amount in transactions:
        if amount >= 0 or -amount <= balance:
            balance += amount
        else:
            balance -= fee
    return balance


@FAMILY.class_problem(
    "A savings account `SavingsAccount(balance, min_balance, fee)`. `deposit(amount)` adds money. `withdraw(amount)`"
    " takes the money out and returns True if amount is at most the current balance, otherwise changes nothing and"
    " returns False. `end_month()` subtracts `fee` if the balance is below `min_balance` at that moment (the"
    " balance may become negative). `balance()` returns the current balance.",
    "Implement SavingsAccount(balance, min_balance, fee) with deposit(amount) (adds amount), withdraw(amount)"
    " (succeeds and returns True only when amount <= balance, else returns False and leaves the balance alone),"
    " end_month() (charges fee when balance < min_balance; a balance exactly at the minimum is not charged) and"
    " balance() (the current amount).",
    examples=[Scenario((100, 50, 5), (("withdraw", 60), ("end_month",), ("balance",), ("withdraw", 40),
                                      ("balance",)))],
    tests=[
        Scenario((10, 0, 1), (("balance",),)),
        Scenario((20, 20, 3), (("end_month",), ("balance",), ("withdraw", 1), ("end_month",), ("balance",))),
        Scenario((5, 10, 4), (("end_month",), ("end_month",), ("balance",), ("withdraw", 1), ("deposit", 9),
                              ("withdraw", 6), ("balance",))),
        Scenario((0, 1, 2), (("withdraw", 0), ("deposit", 7), ("withdraw", 8), ("withdraw", 7), ("end_month",),
                             ("balance",))),
        Scenario((50, 30, 10), (("withdraw", 50), ("withdraw", 1), ("deposit", 35), ("end_month",),
                                ("balance",))),
    ],
    queries=("withdraw", "balance"),
)
class SavingsAccount:
    def __init__(self, balance: int, min_balance: int, fee: int):
        self.amount = balance
        self.min_balance = min_balance
        self.fee = fee

    def deposit(self, amount: int) -> None:
        self.amount += amount

    def withdraw(self, amount: int) -> bool:
        if amount > self.amount:
            return False
        self.amount -= amount
        return True

    def end_month(self) -> None:
        if self.amount < self.min_balance:
            self.amount -= self.fee

    def balance(self) -> int:
        return self.amount


@FAMILY.problem(
    "A token starts on square 0 of a track that ends at square `goal`. For each die roll in `rolls`, the token"
    " moves forward that many squares, unless that would pass `goal`, in which case it stays where it is. If it"
    " lands on a square that is a key of `jumps` (a ladder or a snake), it moves to `jumps[square]` (only one jump"
    " per roll). Return the 1-based number of the roll after which the token is exactly on `goal`, or -1 if it"
    " never gets there.",
    "Play a one-player snakes-and-ladders game: position starts at 0, each value of rolls advances the position"
    " (an overshoot of goal means the move is skipped), and landing on a square listed in jumps sends the token to"
    " the mapped square, once. Report how many rolls were needed to stand on goal exactly (counting the skipped"
    " ones), or -1 if the rolls run out first.",
    examples=[(10, {3: 8, 9: 2}, [3, 2, 4]), (6, {}, [5, 5, 1])],
    tests=[(5, {}, []), (4, {}, [4, 1]), (10, {2: 10}, [1, 1, 3]), (12, {4: 11, 7: 1}, [4, 3, 6, 2, 1]),
           (8, {5: 0}, [5, 5, 3, 3, 2]), (9, {3: 6}, [2, 1, 3, 6, 3, 1]), (7, {}, [3, 3, 3])],
)
def ladder_game_rolls(goal: int, jumps: dict[int, int], rolls: list[int]) -> int:
    pos = 0
    for i, r in enumerate(rolls, 1):
        if pos + r <= goal:
            pos = jumps.get(pos + r, pos + r)
        if pos == goal:
            return i
    return -1


@FAMILY.problem(
    "A parking lot holds at most `capacity` cars and starts empty. `events` is a string where '+' is a car arriving"
    " and '-' is a car leaving; any other character is ignored. An arriving car is turned away when the lot is"
    " full; a '-' when the lot is empty is ignored. Return how many cars were turned away.",
    "Given the capacity of a garage and a log events of '+' (arrival) and '-' (departure) characters, simulate the"
    " number of parked cars starting from zero and count the arrivals that found the garage full. Departures from"
    " an empty garage do nothing, and characters other than '+' and '-' are skipped.",
    examples=[(2, "+++-+"), (1, "-++")],
    tests=[(3, ""), (0, "++"), (1, "+-+-+"), (2, "--+++"), (1, "+ . +"), (2, "+++--+++"), (3, "++++-+-++")],
)
def cars_turned_away(capacity: int, events: str) -> int:
    parked = turned = 0
    for e in events:
        if e == "+":
            if parked < capacity:
                parked += 1
            else:
                turned += 1
        elif e == "-" and parked > 0:
            parked -= 1
    return turned


@FAMILY.problem(
    "A round-robin scheduler runs jobs whose remaining times are in `jobs` (job i is jobs[i]). Jobs wait in a queue"
    " in index order. The front job runs for up to `quantum` time units: if its remaining time is at most"
    " `quantum` it finishes, otherwise its remaining time drops by `quantum` and it goes to the back of the queue."
    " Return the job indices in the order they finish.",
    "Given the run times jobs and a time slice quantum (positive), simulate round-robin scheduling starting with"
    " the queue 0, 1, 2, ... and return the order in which the job indices complete. A job needing exactly"
    " quantum (or 0) finishes in its turn; an empty list of jobs gives [].",
    examples=[([5, 2, 7], 3), ([1, 1], 2)],
    tests=[([], 3), ([4], 1), ([3, 3, 3], 3), ([6, 4, 9, 1], 4), ([0, 5, 2], 2), ([10, 3, 4, 8], 3)],
)
def round_robin_order(jobs: list[int], quantum: int) -> list[int]:
    from collections import deque

    queue = deque(enumerate(jobs))
    done = []
    while queue:
        i, t = queue.popleft()
        if t <= quantum:
            done.append(i)
        else:
            queue.append((i, t - quantum))
    return done


@FAMILY.problem(
    "A tank holds at most `capacity` liters and starts with `level` liters. Apply each change in `changes` in"
    " order (positive pours water in, negative drains it). Water above capacity spills over and is lost; the level"
    " can never go below 0 (draining an emptier tank just empties it). Return the total liters spilled.",
    "Given a tank's capacity, its starting level and a list of changes, simulate the water level step by step."
    " After each change, anything above capacity overflows (add it to the spill total and set the level to"
    " capacity), and a negative level becomes 0. Compute the total amount that overflowed.",
    examples=[(10, 5, [3, 4, -6, 9]), (5, 0, [-3, 2])],
    tests=[(10, 0, []), (4, 4, [1]), (5, 2, [-3, 7]), (8, 3, [5, -10, 12, -1, 2]), (6, 6, [-6, 6, 0, 3]),
           (7, 2, [4, 1, -2, 3])],
)
def tank_spill(capacity: int, level: int, changes: list[int]) -> int:
    spilled = 0
    for c in changes:
        level += c
        if level > capacity:
            spilled += level - capacity
            level = capacity
        elif level < 0:
            level = 0
    return spilled


@FAMILY.problem(
    "Run a tiny stack machine. Each string in `program` is one instruction: 'push K' pushes the integer K, 'pop'"
    " removes the top value, 'dup' pushes a copy of the top value, 'add' and 'mul' pop the top two values and push"
    " their sum or product, and 'swap' exchanges the top two values. An instruction that needs more values than the"
    " stack holds is skipped. Return the final stack as a list from bottom to top.",
    "Given a list program of instructions ('push K', 'pop', 'dup', 'add', 'mul', 'swap'), simulate a stack that"
    " starts empty and return its contents bottom first. pop and dup need one value, add, mul and swap need two;"
    " when there are not enough values the instruction does nothing.",
    examples=[(["push 2", "push 3", "add", "dup", "mul"],), (["pop", "push 4", "swap"],)],
    tests=[([],), (["push -1", "push 5", "swap"],), (["push 7", "dup", "dup", "pop", "add"],),
           (["add", "push 3", "mul", "push 4", "mul", "push 2", "add"],), (["push 1", "pop", "dup", "push 9"],),
           (["push 1", "push 2", "dup", "add"],),
           (["push 2", "push 5", "push 6", "swap", "add", "mul"],)],
)
def run_stack_program(program: list[str]) -> list[int]:
    stack = []
    for line in program:
        op, *arg = line.split()
        if op == "push":
            stack.append(int(arg[0]))
        elif op in ("pop", "dup") and len(stack) >= 1:
            if op == "pop":
                stack.pop()
            else:
                stack.append(stack[-1])
        elif op in ("add", "mul", "swap") and len(stack) >= 2:
            b, a = stack.pop(), stack.pop()
            if op == "add":
                stack.append(a + b)
            elif op == "mul":
                stack.append(a * b)
            else:
                stack += [b, a]
    return stack


@FAMILY.problem(
    "Compute one generation of Conway's Game of Life on `grid`, a list of equal-length strings where '#' is a live"
    " cell and '.' a dead one. Cells outside the grid are dead. A live cell with 2 or 3 live neighbours (of its 8)"
    " survives, a dead cell with exactly 3 becomes alive, and every other cell is dead next. Return the new grid in"
    " the same format.",
    "Given a board grid of '#' (alive) and '.' (dead) rows, return the next board: count each cell's live"
    " neighbours among the 8 surrounding cells (nothing beyond the edges); the cell is alive next step if it has 3"
    " live neighbours, or if it is alive now and has 2. An empty grid stays [].",
    examples=[([".....", "..#..", "..#..", "..#..", "....."],), (["##", "##"],)],
    tests=[([],), (["#"],), (["###"],), ([".#.", "###", ".#."],), (["#..", ".#.", "..#"],),
           (["##..", "#...", "...#", "..##"],)],
)
def life_step(grid: list[str]) -> list[str]:
    rows = len(grid)
    cols = len(grid[0]) if grid else 0
    out = []
    for r in range(rows):
        line = ""
        for c in range(cols):
            n = sum(grid[i][j] == "#" for i in range(max(r - 1, 0), min(r + 2, rows))
                    for j in range(max(c - 1, 0), min(c + 2, cols)) if (i, j) != (r, c))
            line += "#" if n == 3 or (n == 2 and grid[r][c] == "#") else "."
        out.append(line)
    return out


@FAMILY.problem(
    "There are `n` lamps numbered 1 to n, all off. For each k in `presses`, every lamp whose number is a multiple"
    " of k is toggled (off becomes on, on becomes off). Return the numbers of the lamps that are on at the end, in"
    " increasing order.",
    "Given n lamps (numbered from 1) that start switched off and a list presses of positive integers, simulate"
    " pressing button k for each entry: it flips lamps k, 2k, 3k, ... up to n. Return a sorted list of the lamps"
    " left on (pressing the same button twice undoes it).",
    examples=[(6, [2, 3]), (5, [1])],
    tests=[(0, [1]), (4, []), (10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), (7, [3, 3]), (8, [7, 9, 2]), (1, [1, 1, 1])],
)
def lamps_on(n: int, presses: list[int]) -> list[int]:
    on = [False] * (n + 1)
    for k in presses:
        for lamp in range(k, n + 1, k):
            on[lamp] = not on[lamp]
    return [i for i in range(1, n + 1) if on[i]]


@FAMILY.problem(
    "A lift starts on floor `start` (start >= 0). Each 'u' in `moves` takes it up one floor and each"
    " 'd' down one floor, but it never goes below floor 0; other characters are ignored. Return the"
    " final floor.",
    "Given a starting floor start and a string moves of lift commands ('u' = up one, 'd' = down"
    " one, anything else = no effect), simulate the lift and return where it stops. A 'd' on floor"
    " 0 does nothing.",
    examples=[(2, "uud"), (0, "ddu")],
    tests=[(5, ""), (0, "d"), (1, "ddddu"), (3, "x?u"), (0, "uuuuu"), (4, "dudud")],
    level=1,
)
def lift_floor(start: int, moves: str) -> int:
    for m in moves:
        if m == "u":
            start += 1
        elif m == "d":
            start = max(0, start - 1)
    return start


@FAMILY.problem(
    "A token starts on square 0 of a circular board with squares 0 to size - 1. It moves by each"
    " number in `moves` in turn (positive forwards, negative backwards, wrapping around). Return"
    " its final square. size >= 1.",
    "Given a list of step counts moves and the number of squares size on a ring-shaped board,"
    " return the square the token ends on after starting at 0 and applying every move, wrapping"
    " past the last square back to 0 (and past 0 backwards to size - 1).",
    examples=[([3, 4], 5), ([-1], 6)],
    tests=[([], 4), ([10], 10), ([2, 2, 2], 7), ([-8], 5), ([5, -2, 9], 3), ([0], 1)],
    level=1,
)
def ring_position(moves: list[int], size: int) -> int:
    square = 0
    for step in moves:
        square = (square + step) % size
    return square


@FAMILY.problem(
    "A theatre has `seats` free seats. Requests in `requests` arrive in order, each asking for some"
    " number of seats; a request is granted only if that many seats are still free, otherwise it is"
    " refused and nothing changes. Return the number of free seats at the end.",
    "Given the free seat count seats and a list of booking sizes requests, process the bookings one"
    " by one, subtracting a booking from seats when it fits and skipping it when it does not."
    " Return the seats still free.",
    examples=[(10, [4, 5, 3]), (0, [1])],
    tests=[(7, []), (6, [6, 1]), (5, [6, 2, 2]), (9, [3, 3, 3, 1]), (8, [0, 9, 8])],
    level=1,
)
def seats_left(seats: int, requests: list[int]) -> int:
    for wanted in requests:
        if wanted <= seats:
            seats -= wanted
    return seats


@FAMILY.problem(
    "`results` holds one letter per match a team played: 'W' for a win (3 points), 'D' for a draw"
    " (1 point) and 'L' for a loss (0 points). Return the team's total points.",
    "Given a string of match results such as \"WWDL\", add up the league points: 3 for each 'W', 1"
    " for each 'D' and nothing for an 'L'. No matches means 0 points.",
    examples=[("WWDL",), ("",)],
    tests=[("L",), ("D",), ("W",), ("DDDD",), ("LWLWD",), ("WWWWWWD",)],
    level=1,
)
def league_points(results: str) -> int:
    return 3 * results.count("W") + results.count("D")


@FAMILY.problem(
    "A vending machine sells an item for `price`. Given the amount `paid`, return the change to"
    " give back, or -1 if paid is less than price (the sale is refused).",
    "Given an item's price and the money inserted paid, return paid - price when the money covers"
    " the price (0 for the exact amount), and -1 when it does not.",
    examples=[(120, 200), (150, 100)],
    tests=[(50, 50), (50, 49), (0, 7), (99, 100), (10, 0), (5, 1000)],
    level=1,
)
def vending_change(price: int, paid: int) -> int:
    return paid - price if paid >= price else -1


@FAMILY.problem(
    "A lamp is in state `start` (\"on\" or \"off\") and its switch is pressed `presses` times; each"
    " press flips the state. Return the final state, \"on\" or \"off\". presses >= 0.",
    "Given a lamp's starting state start, either \"on\" or \"off\", and a number of switch presses,"
    " return the state after all presses (an even number of presses leaves it as it was).",
    examples=[("off", 3), ("on", 2)],
    tests=[("on", 0), ("off", 0), ("on", 1), ("off", 1), ("on", 7), ("off", 10)],
    level=1,
)
def lamp_after_presses(start: str, presses: int) -> str:
    on = (start == "on") != (presses % 2 == 1)
    return "on" if on else "off"
