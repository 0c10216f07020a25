from coderl.tasks.corpus.define import Family

FAMILY = Family("records", "lists of dicts: inventories, grades, orders - filter, aggregate, rank")


@FAMILY.problem(
    "Each item in `items` is a dict with keys \"name\" and \"qty\". Return the names of the items"
    " whose quantity is greater than zero, in their original order.",
    "Given an inventory as a list of {\"name\": str, \"qty\": int} records, list the names of"
    " everything actually in stock (qty strictly positive), keeping inventory order. Return []"
    " when nothing is in stock.",
    examples=[([{"name": "pen", "qty": 3}, {"name": "ink", "qty": 0}, {"name": "pad", "qty": 1}],)],
    tests=[([],), ([{"name": "a", "qty": 0}],), ([{"name": "a", "qty": -2}, {"name": "b", "qty": 1}],),
           ([{"name": "z", "qty": 1}, {"name": "y", "qty": 5}, {"name": "x", "qty": 0}, {"name": "w", "qty": 2}],)],
)
def in_stock_names(items: list[dict]) -> list[str]:
    return [item["name"] for item in items if item["qty"] > 0]


@FAMILY.problem(
    "Each record in `items` has integer keys \"qty\" and \"price\" (price in cents). Return the"
    " total value of the inventory in whole dollars: the sum of qty * price over all records,"
    " integer-divided by 100 (so partial dollars are dropped; 0 when empty).",
    "A shop keeps its stock as dictionaries with a quantity \"qty\" and a unit \"price\" in cents."
    " Compute how many full dollars the whole stock is worth: add up qty * price in cents, then"
    " floor-divide the total by 100.",
    examples=[([{"qty": 2, "price": 150}, {"qty": 1, "price": 99}],)],
    tests=[([],), ([{"qty": 0, "price": 500}],), ([{"qty": 3, "price": 33}],), ([{"qty": 1, "price": 100}],),
           ([{"qty": 4, "price": 25}, {"qty": 10, "price": 3}, {"qty": 1, "price": 1000}],),
           ([{"qty": 20, "price": 250}, {"qty": 5, "price": 199}],)],
)
def inventory_value(items: list[dict]) -> int:
    return sum(item["qty"] * item["price"] for item in items) // 100


@FAMILY.problem(
    "Given `grades`, a list of {\"student\": str, \"score\": int} records (a student may appear"
    " several times), return a dictionary from each student to their average score rounded to 2"
    " decimals.",
    "Several exam results are recorded as dictionaries with a \"student\" name and a \"score\"."
    " For every student, average all of their scores and round the average to 2 decimals. Return"
    " student -> average (an empty dictionary for no grades).",
    examples=[([{"student": "ana", "score": 80}, {"student": "ben", "score": 70}, {"student": "ana", "score": 91}],)],
    tests=[([],), ([{"student": "x", "score": 0}],),
           ([{"student": "a", "score": 1}, {"student": "a", "score": 2}, {"student": "a", "score": 2}],),
           ([{"student": "p", "score": 100}, {"student": "q", "score": 55}, {"student": "p", "score": 64},
             {"student": "q", "score": 56}, {"student": "r", "score": 77}],)],
)
def average_by_student(grades: list[dict]) -> dict[str, float]:
    totals: dict[str, list[int]] = {}
    for g in grades:
        totals.setdefault(g["student"], []).append(g["score"])
    return {name: round(sum(s) / len(s), 2) for name, s in totals.items()}


@FAMILY.problem(
    "Each record in `players` has a \"name\" and a \"score\". Only players with a positive score"
    " qualify. Return the names of the `k` best qualifying players: higher score first, and for"
    " equal scores the alphabetically smaller name first. If fewer than `k` qualify, return all"
    " of them.",
    "Build a leaderboard: drop the players whose score is zero or negative, sort the rest by score"
    " from highest to lowest, breaking ties by name in alphabetical order, and return the names of"
    " the first k entries (or every qualifying name when there are fewer than k).",
    examples=[([{"name": "kim", "score": 7}, {"name": "al", "score": 9}, {"name": "jo", "score": 7}], 2)],
    tests=[([], 3), ([{"name": "a", "score": 1}], 0), ([{"name": "a", "score": 1}], 5),
           ([{"name": "a", "score": 0}, {"name": "b", "score": 2}], 2),
           ([{"name": "d", "score": 2}, {"name": "c", "score": 2}, {"name": "b", "score": 2}], 2),
           ([{"name": "u", "score": -1}, {"name": "v", "score": 10}, {"name": "w", "score": 3},
             {"name": "t", "score": 10}], 3)],
)
def top_players(players: list[dict], k: int) -> list[str]:
    qualified = [p for p in players if p["score"] > 0]
    ranked = sorted(qualified, key=lambda p: (-p["score"], p["name"]))
    return [p["name"] for p in ranked[:k]]


@FAMILY.problem(
    "Each order in `orders` is a dict with keys \"customer\", \"qty\" and \"price\". Return a"
    " dictionary from each customer to the total they spent (the sum of qty * price over their"
    " orders).",
    "Given a list of order records (customer name, quantity \"qty\", unit \"price\"), total up the"
    " money each customer spent. Customers whose orders total 0 are still included. Return"
    " customer -> total.",
    examples=[([{"customer": "amy", "qty": 2, "price": 5}, {"customer": "bo", "qty": 1, "price": 4},
                {"customer": "amy", "qty": 1, "price": 3}],)],
    tests=[([],), ([{"customer": "x", "qty": 0, "price": 9}],),
           ([{"customer": "a", "qty": 3, "price": 3}, {"customer": "a", "qty": 1, "price": 1}],),
           ([{"customer": "m", "qty": 2, "price": 10}, {"customer": "n", "qty": 5, "price": 2},
             {"customer": "m", "qty": 1, "price": 7}, {"customer": "o", "qty": 4, "price": 4}],)],
)
def spend_by_customer(orders: list[dict]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for order in orders:
        totals[order["customer"]] = totals.get(order["customer"], 0) + order["qty"] * order["price"]
    return totals


@FAMILY.problem(
    "Each product in `products` has a \"name\", a \"category\" and an integer \"price\". Return a"
    " dictionary from each category to the name of its cheapest product; when several products"
    " share the lowest price, keep the one that appears first in the list.",
    "For a price comparison page, pick the cheapest product of every category from the list of"
    " product dictionaries (name, category, price). Ties on price go to the product listed"
    " earliest. Return category -> product name.",
    examples=[([{"name": "tea", "category": "drink", "price": 3}, {"name": "cola", "category": "drink", "price": 2},
                {"name": "bun", "category": "food", "price": 2}],)],
    tests=[([],), ([{"name": "a", "category": "c", "price": 5}],),
           ([{"name": "a", "category": "c", "price": 5}, {"name": "b", "category": "c", "price": 5}],),
           ([{"name": "a", "category": "c", "price": 5}, {"name": "b", "category": "c", "price": 4},
             {"name": "d", "category": "c", "price": 4}, {"name": "e", "category": "f", "price": 0},
             {"name": "g", "category": "f", "price": 1}],),
           ([{"name": "p", "category": "x", "price": 3}, {"name": "q", "category": "x", "price": 2},
             {"name": "r", "category": "x", "price": 9}],)],
)
def cheapest_per_category(products: list[dict]) -> dict[str, str]:
    best: dict[str, dict] = {}
    for product in products:
        current = best.get(product["category"])
        if current is None or product["price"] < current["price"]:
            best[product["category"]] = product
    return {category: product["name"] for category, product in best.items()}


@FAMILY.problem(
    "Return report lines \"NAME: QTY\" for every item in `items` (dicts with \"name\" and \"qty\")"
    " whose qty is below `threshold`, except that an item with qty 0 or less is reported as"
    " \"NAME: OUT\". Order the lines by qty ascending, then by name alphabetically.",
    "Write a low-stock report. From the inventory records (name, qty) keep those with qty strictly"
    " less than threshold and format each as f\"{name}: {qty}\", or f\"{name}: OUT\" when qty is"
    " zero or negative. The scarcest items come first; items with equal qty are ordered by name."
    " Return [] if nothing is low.",
    examples=[([{"name": "rice", "qty": 2}, {"name": "oats", "qty": 9}, {"name": "flour", "qty": 0}], 5)],
    tests=[([], 3), ([{"name": "a", "qty": 3}], 3), ([{"name": "a", "qty": 2}], 3),
           ([{"name": "b", "qty": 1}, {"name": "a", "qty": 1}, {"name": "c", "qty": 0}], 2),
           ([{"name": "x", "qty": 4}, {"name": "y", "qty": -1}, {"name": "z", "qty": 10}, {"name": "w", "qty": 4}], 5),
           ([{"name": "m", "qty": 1}, {"name": "n", "qty": 0}], 1)],
)
def low_stock_report(items: list[dict], threshold: int) -> list[str]:
    low = [item for item in items if item["qty"] < threshold]
    low.sort(key=lambda item: (item["qty"], item["name"]))
    return [f"{item['name']}: {item['qty'] if item['qty'] > 0 else 'OUT'}" for item in low]


@FAMILY.problem(
    "Rank the `players` (dicts with \"name\" and \"score\") by score, highest first, using"
    " competition ranking: players with equal scores share a rank, and the next rank skips the"
    " tied positions (1, 2, 2, 4). Return a list of (name, rank) tuples ordered by rank, then by"
    " name.",
    "Produce the standings of a tournament. Sort players by descending score (equal scores ordered"
    " by name) and give each a rank: one plus the number of players with a strictly higher score."
    " Return the standings as a list of (name, rank) pairs.",
    examples=[([{"name": "ann", "score": 5}, {"name": "bob", "score": 8}, {"name": "cal", "score": 5},
                {"name": "dee", "score": 1}],)],
    tests=[([],), ([{"name": "solo", "score": 0}],),
           ([{"name": "b", "score": 3}, {"name": "a", "score": 3}, {"name": "c", "score": 3}],),
           ([{"name": "p", "score": 10}, {"name": "q", "score": 9}, {"name": "r", "score": 8}],),
           ([{"name": "e", "score": 2}, {"name": "d", "score": 7}, {"name": "f", "score": 7},
             {"name": "g", "score": 2}, {"name": "h", "score": -1}],)],
)
def competition_ranks(players: list[dict]) -> list[tuple[str, int]]:
    ordered = sorted(players, key=lambda p: (-p["score"], p["name"]))
    result: list[tuple[str, int]] = []
    for i, player in enumerate(ordered):
        if i > 0 and player["score"] == ordered[i - 1]["score"]:
            rank = result[-1][1]
        else:
            rank = i + 1
        result.append((player["name"], rank))
    return result


@FAMILY.problem(
    "Return a list of new dicts, one per record in `records`, each containing only the keys listed"
    " in `fields`. A field that a record lacks is simply left out of that record's dict, and a"
    " record left with no keys at all is dropped from the result.",
    "Project the list of dictionaries records onto the column names fields: for every record keep"
    " just those columns it actually has, and omit records that have none of them. Do not modify"
    " the input; return the list of trimmed dictionaries in the same order.",
    examples=[([{"id": 1, "name": "a", "age": 30}, {"id": 2, "age": 25}], ["id", "name"])],
    tests=[([], ["a"]), ([{"a": 1}], []), ([{"a": 1, "b": 2}], ["b", "a"]),
           ([{"x": 1, "y": 2, "z": 3}, {"z": 0}, {"w": 5}], ["z", "x"]), ([{"a": 1}, {"b": 2}, {"a": 3}], ["a"])],
)
def select_fields(records: list[dict], fields: list[str]) -> list[dict]:
    result: list[dict] = []
    for record in records:
        row = {f: record[f] for f in fields if f in record}
        if row:
            result.append(row)
    return result


@FAMILY.problem(
    "Each record in `grades` has a \"course\" and a \"score\". A score of at least `passing`"
    " passes. Return a dictionary from course to a list [passed, failed] with the number of"
    " passing and failing scores in that course.",
    "Summarise exam results per course. grades is a list of {\"course\": str, \"score\": int}; a"
    " score passes when it is greater than or equal to passing. For every course that appears,"
    " return [number passed, number failed].",
    examples=[([{"course": "math", "score": 70}, {"course": "math", "score": 40}, {"course": "art", "score": 50}], 50)],
    tests=[([], 10), ([{"course": "a", "score": 10}], 10), ([{"course": "a", "score": 9}], 10),
           ([{"course": "x", "score": 0}, {"course": "y", "score": 100}, {"course": "x", "score": 60},
             {"course": "x", "score": 59}, {"course": "y", "score": 61}], 60)],
)
def pass_fail_by_course(grades: list[dict], passing: int) -> dict[str, list[int]]:
    summary: dict[str, list[int]] = {}
    for g in grades:
        counts = summary.setdefault(g["course"], [0, 0])
        if g["score"] >= passing:
            counts[0] += 1
        else:
            counts[1] += 1
    return summary


@FAMILY.problem(
    "Each item in `items` has \"name\", \"qty\", \"min_qty\" and \"batch\" (a positive batch"
    " size). An item needs restocking when qty is below min_qty; it is then ordered in whole"
    " batches, the fewest that bring qty up to at least min_qty. Return (name, units ordered)"
    " pairs for the items that need restocking, in input order.",
    "A supplier only ships goods in multiples of an item's \"batch\" size. For each inventory record"
    " with \"qty\" strictly less than \"min_qty\", work out the smallest multiple of batch that"
    " lifts qty to min_qty or more, and report it as (name, units). Items already at or above"
    " their minimum are skipped.",
    examples=[([{"name": "cups", "qty": 3, "min_qty": 10, "batch": 4}, {"name": "lids", "qty": 12, "min_qty": 10,
                 "batch": 5}],)],
    tests=[([],), ([{"name": "a", "qty": 10, "min_qty": 10, "batch": 3}],),
           ([{"name": "a", "qty": 9, "min_qty": 10, "batch": 3}],),
           ([{"name": "a", "qty": 0, "min_qty": 12, "batch": 4}, {"name": "b", "qty": 1, "min_qty": 12, "batch": 4}],),
           ([{"name": "p", "qty": -2, "min_qty": 5, "batch": 1}, {"name": "q", "qty": 5, "min_qty": 20, "batch": 6},
             {"name": "r", "qty": 30, "min_qty": 20, "batch": 6}],)],
)
def restock_orders(items: list[dict]) -> list[tuple[str, int]]:
    orders: list[tuple[str, int]] = []
    for item in items:
        shortfall = item["min_qty"] - item["qty"]
        if shortfall > 0:
            batches = (shortfall + item["batch"] - 1) // item["batch"]
            orders.append((item["name"], batches * item["batch"]))
    return orders


@FAMILY.problem(
    "Process `orders` in sequence against `stock` (item -> units available). Each order is a dict"
    " with an \"id\" and \"items\" (item -> units wanted). An order is filled only if every item"
    " it wants is fully available; filling it removes those units from stock. Orders that cannot"
    " be filled are skipped and change nothing. Return the ids of the filled orders in order.",
    "A warehouse handles orders first come, first served. For each order record (an \"id\" and an"
    " \"items\" dictionary of quantities) check whether the remaining stock covers all of its items"
    " (an item missing from stock counts as 0 available). If so, ship it and deduct the units;"
    " otherwise leave it. Return the list of shipped order ids. Do not modify the stock argument.",
    examples=[({"a": 3, "b": 1}, [{"id": 1, "items": {"a": 2}}, {"id": 2, "items": {"a": 2}},
                                   {"id": 3, "items": {"a": 1, "b": 1}}])],
    tests=[({}, []), ({}, [{"id": 5, "items": {"x": 1}}]), ({"x": 1}, [{"id": 5, "items": {"x": 1}}]),
           ({"x": 2, "y": 1}, [{"id": 1, "items": {"x": 1, "y": 2}}, {"id": 2, "items": {"x": 2}},
                                {"id": 3, "items": {"y": 1}}]),
           ({"p": 5, "q": 5}, [{"id": 9, "items": {"p": 3, "q": 1}}, {"id": 8, "items": {"p": 3}},
                                {"id": 7, "items": {"p": 2, "q": 4}}, {"id": 6, "items": {"q": 1}},
                                {"id": 4, "items": {}}]),
           ({"a": 1}, [{"id": 1, "items": {"a": 1, "z": 0}}, {"id": 2, "items": {"a": 1}}])],
)
def fill_orders(stock: dict[str, int], orders: list[dict]) -> list[int]:
    remaining = dict(stock)
    filled: list[int] = []
    for order in orders:
        wanted = order["items"]
        if all(remaining.get(item, 0) >= units for item, units in wanted.items()):
            for item, units in wanted.items():
                remaining[item] = remaining.get(item, 0) - units
            filled.append(order["id"])
    return filled


@FAMILY.problem(
    "Each event in `events` is a dict with \"user\", \"time\" and \"status\". Return a dictionary"
    " from each user to the status of their event with the largest time. If a user has several"
    " events at that same largest time, the one appearing last in the list wins.",
    "Status updates arrive out of order as records (user, time, status). Work out every user's"
    " current status, i.e. the status of their most recent update by time; among updates with"
    " equal time, the later one in the list counts. Return user -> status.",
    examples=[([{"user": "u1", "time": 5, "status": "away"}, {"user": "u1", "time": 3, "status": "busy"},
                {"user": "u2", "time": 1, "status": "on"}],)],
    tests=[([],), ([{"user": "a", "time": 0, "status": "x"}],),
           ([{"user": "a", "time": 2, "status": "x"}, {"user": "a", "time": 2, "status": "y"}],),
           ([{"user": "a", "time": 1, "status": "x"}, {"user": "a", "time": 4, "status": "y"},
             {"user": "b", "time": 3, "status": "z"}, {"user": "a", "time": 3, "status": "w"},
             {"user": "b", "time": 9, "status": "v"}],),
           ([{"user": "q", "time": -5, "status": "old"}, {"user": "q", "time": -2, "status": "new"}],)],
)
def latest_status(events: list[dict]) -> dict[str, str]:
    best: dict[str, tuple[int, str]] = {}
    for event in events:
        user = event["user"]
        if user not in best or event["time"] >= best[user][0]:
            best[user] = (event["time"], event["status"])
    return {user: status for user, (_, status) in best.items()}


@FAMILY.problem(
    "Given `users` (dicts with \"id\" and \"name\") and `orders` (dicts with \"user_id\" and"
    " \"amount\"), return one (name, amount) tuple per order with a positive amount, in order;"
    " orders with amount 0 or less are cancelled and left out. If an order's user_id matches no"
    " user, use the name \"unknown\".",
    "Join two tables: for every order record whose \"amount\" is greater than zero, look up the"
    " user whose \"id\" equals the order's \"user_id\" and pair that user's \"name\" with the"
    " amount. Orders with no matching user are labelled \"unknown\". Return the list of pairs in"
    " the order of orders.",
    examples=[([{"id": 1, "name": "ada"}, {"id": 2, "name": "bo"}], [{"user_id": 2, "amount": 30},
                                                                     {"user_id": 3, "amount": 5}])],
    tests=[([], []), ([], [{"user_id": 1, "amount": 1}]), ([{"id": 1, "name": "x"}], []),
           ([{"id": 0, "name": "zero"}, {"id": 1, "name": "one"}],
            [{"user_id": 1, "amount": 4}, {"user_id": 0, "amount": 6}, {"user_id": 1, "amount": 2}]),
           ([{"id": 7, "name": "g"}], [{"user_id": 8, "amount": 1}, {"user_id": 7, "amount": 2}]),
           ([{"id": 3, "name": "c"}], [{"user_id": 3, "amount": 0}, {"user_id": 3, "amount": -4},
                                       {"user_id": 3, "amount": 1}])],
)
def join_orders(users: list[dict], orders: list[dict]) -> list[tuple[str, int]]:
    names = {user["id"]: user["name"] for user in users}
    return [(names[o["user_id"]] if o["user_id"] in names else "unknown", o["amount"])
            for o in orders if o["amount"] > 0]


@FAMILY.problem(
    "Each employee in `staff` has a \"dept\" and a \"salary\". Return a dictionary from each"
    " department to a tuple (lowest salary, highest salary) in that department.",
    "Given employee records with a department name \"dept\" and an integer \"salary\", report the"
    " salary range of every department as (minimum, maximum). A department with one employee has"
    " the same minimum and maximum; no employees gives an empty dictionary.",
    examples=[([{"dept": "ops", "salary": 50}, {"dept": "dev", "salary": 70}, {"dept": "ops", "salary": 65}],)],
    tests=[([],), ([{"dept": "a", "salary": 10}],),
           ([{"dept": "a", "salary": 10}, {"dept": "a", "salary": 3}, {"dept": "a", "salary": 7}],),
           ([{"dept": "x", "salary": 5}, {"dept": "y", "salary": 9}, {"dept": "x", "salary": 6},
             {"dept": "y", "salary": 1}, {"dept": "y", "salary": 4}],)],
)
def salary_ranges(staff: list[dict]) -> dict[str, tuple[int, int]]:
    ranges: dict[str, tuple[int, int]] = {}
    for person in staff:
        s = person["salary"]
        if person["dept"] in ranges:
            low, high = ranges[person["dept"]]
            ranges[person["dept"]] = (min(low, s), max(high, s))
        else:
            ranges[person["dept"]] = (s, s)
    return ranges


@FAMILY.problem(
    "Remove duplicate records from `records`: keep only the first record for each distinct value of"
    " the field `key`, preserving the original order. Records that do not have the field are all"
    " kept.",
    "A contact list has repeated entries. Given the records and the name of an identifying field"
    " key, return the list with later records dropped whenever an earlier record had the same"
    " value for key. Records lacking that field are never dropped.",
    examples=[([{"email": "a@x", "n": 1}, {"email": "b@x", "n": 2}, {"email": "a@x", "n": 3}], "email")],
    tests=[([], "id"), ([{"id": 1}], "id"), ([{"n": 1}, {"n": 2}], "id"),
           ([{"id": 1, "v": "a"}, {"v": "b"}, {"id": 1, "v": "c"}, {"v": "b"}, {"id": 2, "v": "d"}], "id"),
           ([{"k": 0}, {"k": 0}, {"k": 0}], "k")],
)
def dedupe_by_field(records: list[dict], key: str) -> list[dict]:
    seen = set()
    result: list[dict] = []
    for record in records:
        if key in record:
            if record[key] in seen:
                continue
            seen.add(record[key])
        result.append(record)
    return result


@FAMILY.problem(
    "Each record in `grades` has a \"name\" and an integer \"score\". Return the names of the"
    " students whose score is strictly above the class average, in their original order.",
    "Find who beat the class average: from the list of {\"name\", \"score\"} records, return the"
    " names with a score strictly greater than the mean of all scores, keeping the list order."
    " An empty class has nobody above average.",
    examples=[([{"name": "a", "score": 60}, {"name": "b", "score": 90}, {"name": "c", "score": 75}],)],
    tests=[([],), ([{"name": "x", "score": 50}],), ([{"name": "x", "score": 4}, {"name": "y", "score": 4}],),
           ([{"name": "p", "score": 1}, {"name": "q", "score": 2}, {"name": "r", "score": 2}],),
           ([{"name": "s", "score": -3}, {"name": "t", "score": 10}, {"name": "u", "score": 4},
             {"name": "v", "score": 5}],)],
)
def above_average(grades: list[dict]) -> list[str]:
    total = sum(g["score"] for g in grades)
    return [g["name"] for g in grades if g["score"] * len(grades) > total]


@FAMILY.problem(
    "Each record in `people` has a \"name\" and an integer \"age\". Return the names of the people"
    " aged `min_age` or older, in their original order.",
    "From a list of {\"name\", \"age\"} dictionaries, keep the names of everyone whose age is at"
    " least min_age, in list order. Return [] when nobody is old enough.",
    examples=[([{"name": "ann", "age": 17}, {"name": "bo", "age": 18}, {"name": "cy", "age": 40}], 18)],
    tests=[([], 0), ([{"name": "x", "age": 5}], 6), ([{"name": "x", "age": 6}], 6),
           ([{"name": "p", "age": 30}, {"name": "q", "age": 12}, {"name": "r", "age": 31}], 30),
           ([{"name": "a", "age": 0}, {"name": "b", "age": 1}], 0)],
    level=1,
)
def names_at_least_age(people: list[dict], min_age: int) -> list[str]:
    return [person["name"] for person in people if person["age"] >= min_age]


@FAMILY.problem(
    "Each record in `items` has a \"name\" and a \"qty\". Return the total qty of the records whose"
    " name equals `name` (0 if there are none).",
    "An inventory list may hold several {\"name\", \"qty\"} entries for the same product. Add up the"
    " quantities of all entries for the product called name and return the sum.",
    examples=[([{"name": "pen", "qty": 3}, {"name": "ink", "qty": 4}, {"name": "pen", "qty": 2}], "pen")],
    tests=[([], "pen"), ([{"name": "ink", "qty": 4}], "pen"), ([{"name": "a", "qty": 7}], "a"),
           ([{"name": "a", "qty": 1}, {"name": "b", "qty": 10}, {"name": "a", "qty": -3},
             {"name": "a", "qty": 5}], "a"),
           ([{"name": "b", "qty": 2}, {"name": "bb", "qty": 9}], "b")],
    level=1,
)
def qty_for_name(items: list[dict], name: str) -> int:
    return sum(item["qty"] for item in items if item["name"] == name)


@FAMILY.problem(
    "Each record in `people` has a \"name\" and an \"age\". Return the name of the oldest person;"
    " if several share the highest age, the one listed first. Return \"\" for an empty list.",
    "Find the eldest in a list of {\"name\", \"age\"} records and return their name, preferring the"
    " earliest record on a tie. With no records, return the empty string.",
    examples=[([{"name": "ann", "age": 31}, {"name": "bo", "age": 45}, {"name": "cy", "age": 45}],)],
    tests=[([],), ([{"name": "solo", "age": 0}],), ([{"name": "a", "age": 9}, {"name": "b", "age": 3}],),
           ([{"name": "a", "age": 3}, {"name": "b", "age": 9}, {"name": "c", "age": 4}],),
           ([{"name": "p", "age": 7}, {"name": "q", "age": 7}],)],
    level=1,
)
def oldest_name(people: list[dict]) -> str:
    if not people:
        return ""
    return max(people, key=lambda person: person["age"])["name"]


@FAMILY.problem(
    "Each record in `products` has a \"name\" and a \"price\". Return the names of the products"
    " that are not free (price greater than 0), ordered from the cheapest to the most expensive;"
    " products with equal prices keep their original order.",
    "Sort a list of {\"name\", \"price\"} product records by price, lowest first, after dropping"
    " the free ones (price 0 or less). Products that cost the same stay in the order they were"
    " given. Return just the names.",
    examples=[([{"name": "cake", "price": 5}, {"name": "tea", "price": 2}, {"name": "gift", "price": 0},
                {"name": "jam", "price": 5}],)],
    tests=[([],), ([{"name": "x", "price": 1}],), ([{"name": "b", "price": 3}, {"name": "a", "price": 3}],),
           ([{"name": "z", "price": 10}, {"name": "y", "price": -1}, {"name": "w", "price": 4}],),
           ([{"name": "m", "price": 2}, {"name": "n", "price": 1}, {"name": "o", "price": 2},
             {"name": "p", "price": 0}],)],
    level=1,
)
def paid_names_by_price(products: list[dict]) -> list[str]:
    paid = [p for p in products if p["price"] > 0]
    return [p["name"] for p in sorted(paid, key=lambda p: p["price"])]


@FAMILY.problem(
    "Each task in `tasks` is a dict with a \"title\" and a \"status\". Return how many tasks have"
    " the given `status`.",
    "Count the records in the to-do list tasks whose \"status\" field is exactly status (the"
    " comparison is case-sensitive). An empty list gives 0.",
    examples=[([{"title": "a", "status": "done"}, {"title": "b", "status": "open"}, {"title": "c", "status": "done"}],
               "done")],
    tests=[([], "done"), ([{"title": "a", "status": "open"}], "done"), ([{"title": "a", "status": "Done"}], "done"),
           ([{"title": "a", "status": "x"}, {"title": "b", "status": "x"}, {"title": "c", "status": "x"}], "x"),
           ([{"title": "a", "status": "open"}, {"title": "b", "status": "done"}, {"title": "c", "status": "open"}],
            "open")],
    level=1,
)
def count_with_status(tasks: list[dict], status: str) -> int:
    return sum(1 for task in tasks if task["status"] == status)


@FAMILY.problem(
    "Return the values of the field `key` from the records in `records`, in order, skipping the"
    " records that do not have that field.",
    "Pull one column out of a list of dictionaries: for every record that contains key, take its"
    " value; records without key contribute nothing. Return the values as a list in record order.",
    examples=[([{"id": 4, "tag": "a"}, {"tag": "b"}, {"id": 9}], "id")],
    tests=[([], "id"), ([{"a": 1}], "id"), ([{"id": 0}], "id"), ([{"x": 1, "y": 2}, {"y": 3}, {"x": 5}], "x"),
           ([{"k": "s"}, {"k": "t"}, {"j": "u"}, {"k": "s"}], "k")],
    level=1,
)
def pluck_field(records: list[dict], key: str) -> list:
    return [record[key] for record in records if key in record]
