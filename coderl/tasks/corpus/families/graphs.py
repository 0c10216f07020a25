from coderl.tasks.corpus.define import Family

FAMILY = Family("graphs", "small graphs as adjacency dicts or edge lists: reachability, BFS, components, cycles, order")


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it has a directed edge to (some nodes may appear only inside"
    " those lists). Return True if `goal` can be reached from `start` by following edges, and False otherwise."
    " Every node reaches itself.",
    "Given a one-way road map graph (a dict from a town to the towns reachable by a single road from it), decide"
    " whether one can drive from start to goal. Towns without an entry have no outgoing roads; start == goal is"
    " always reachable.",
    examples=[({"a": ["b"], "b": ["c"], "c": []}, "a", "c"), ({"a": ["b"], "b": ["c"], "c": []}, "c", "a")],
    tests=[({}, "x", "x"), ({}, "x", "y"), ({"a": ["b"], "b": ["a"]}, "a", "c"),
           ({"a": ["b", "c"], "c": ["d"], "d": ["a"], "e": ["a"]}, "a", "d"),
           ({"a": ["b", "c"], "c": ["d"], "d": ["a"], "e": ["a"]}, "d", "e"), ({"s": ["t"], "t": ["u"]}, "s", "u")],
)
def can_reach(graph: dict[str, list[str]], start: str, goal: str) -> bool:
    seen = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in graph.get(node, []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


@FAMILY.problem(
    "`graph` is a directed graph given as a dict from each node to its list of successors (nodes without an entry"
    " have none). Return the smallest number of edges on a path from `start` to `goal`: 0 if they are the same"
    " node, and -1 if `goal` cannot be reached.",
    "Given a flight network graph (airport -> airports with a direct flight from it), compute the fewest flights"
    " needed to get from start to goal using breadth-first search. Staying put costs 0 flights; return -1 when"
    " there is no way to get there.",
    examples=[({"A": ["B", "C"], "B": ["D"], "C": ["D"], "D": ["E"]}, "A", "E"), ({"A": ["B"]}, "B", "A")],
    tests=[({}, "Q", "Q"), ({"a": ["b"]}, "a", "b"), ({"a": ["b"], "b": ["c"], "c": ["a"]}, "b", "a"),
           ({"a": ["b", "e"], "b": ["c"], "c": ["d"], "e": ["d"], "d": []}, "a", "d"),
           ({"a": ["b"], "b": ["a"], "c": ["a"]}, "a", "c"),
           ({"1": ["2", "3"], "2": ["4"], "3": ["4", "5"], "4": ["6"], "5": ["6"], "6": ["7"]}, "1", "7")],
)
def hop_distance(graph: dict[str, list[str]], start: str, goal: str) -> int:
    from collections import deque

    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            return dist[node]
        for nxt in graph.get(node, []):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return -1


@FAMILY.problem(
    "An undirected graph has nodes 0 to n-1 and the edges listed in `edges` as pairs (u, v). Return the number of"
    " connected components; an isolated node is a component of its own, and n = 0 gives 0.",
    "Given n computers numbered 0..n-1 and a list edges of cable connections (pairs of computer numbers, usable in"
    " both directions), compute how many separate networks there are. A computer with no cable forms a network by"
    " itself.",
    examples=[(5, [(0, 1), (1, 2), (3, 4)]), (3, [])],
    tests=[(0, []), (1, []), (1, [(0, 0)]), (4, [(0, 1), (2, 3), (1, 2)]), (6, [(5, 4), (4, 3), (0, 0)]),
           (7, [(0, 6), (6, 1), (2, 5), (5, 2), (3, 4)])],
)
def count_components(n: int, edges: list[tuple[int, int]]) -> int:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    components = n
    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            components -= 1
    return components


@FAMILY.problem(
    "`graph` maps each node to the nodes it has directed edges to (nodes that only appear in those lists have no"
    " outgoing edges). Return True if the graph contains a directed cycle (a self-loop counts), otherwise False.",
    "Given task dependencies graph (task -> tasks it must wait for), decide whether the dependencies are circular,"
    " i.e. whether following the arrows from some task can lead back to it. A task depending on itself is circular;"
    " an empty graph is not.",
    examples=[({"a": ["b"], "b": ["c"], "c": ["a"]},), ({"a": ["b", "c"], "b": ["c"]},)],
    tests=[({},), ({"x": ["x"]},), ({"a": ["b"], "b": []},), ({"a": ["b"], "c": ["b"], "b": ["d"]},),
           ({"a": ["b"], "b": ["c"], "c": ["d"], "d": ["b"]},),
           ({"p": ["q", "r"], "q": ["r"], "r": ["s"], "t": ["p"]},), ({"a": ["b"], "b": ["a"]},)],
)
def has_cycle(graph: dict[str, list[str]]) -> bool:
    state = {}

    def visit(node: str) -> bool:
        state[node] = "active"
        for nxt in graph.get(node, []):
            if state.get(nxt) == "active":
                return True
            if nxt not in state and visit(nxt):
                return True
        state[node] = "done"
        return False

    return any(node not in state and visit(node) for node in graph)


@FAMILY.problem(
    "`graph` maps each course to the list of courses that can only be taken after it. Every course that appears"
    " anywhere (as a key or in a list) must be scheduled. Return an order of all courses in which each course comes"
    " before the courses listed for it; whenever several courses are available, take the alphabetically smallest"
    " first. If the prerequisites are circular, return [].",
    "Given a directed graph graph (node -> nodes that must come after it), produce its topological order using"
    " this tie rule: at every step, output the smallest (alphabetically) node all of whose predecessors have"
    " already been output. Include nodes that appear only as targets. If no complete order exists because of a"
    " cycle, return an empty list.",
    examples=[({"b": ["a"], "c": ["a"], "d": []},), ({"x": ["y"], "y": ["x"]},)],
    tests=[({},), ({"m": []},), ({"a": ["b", "c"], "b": ["d"], "c": ["d"]},), ({"z": ["a"], "y": ["a", "b"]},),
           ({"a": ["b"], "b": ["c"], "c": ["b"], "d": []},), ({"e": ["d"], "d": ["c"], "b": ["a"], "c": ["a"]},)],
)
def course_order(graph: dict[str, list[str]]) -> list[str]:
    import heapq

    indegree = {}
    for node, nexts in graph.items():
        indegree.setdefault(node, 0)
        for nxt in nexts:
            indegree[nxt] = indegree.get(nxt, 0) + 1
    ready = [node for node, d in indegree.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for nxt in graph.get(node, []):
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, nxt)
    return order if len(order) == len(indegree) else []


@FAMILY.problem(
    "`edges` is a list of undirected edges (u, v) between named nodes. Return the node with the highest degree"
    " (number of edge ends touching it; a self-loop (u, u) adds 2). If several nodes tie, return the"
    " alphabetically smallest; if there are no edges, return ''.",
    "Given the friendships edges of a social network as pairs of names, find the busiest person: the one appearing"
    " in the most pairs (a pair listed twice counts twice, and a pair (x, x) counts twice for x). Break ties by"
    " choosing the name that sorts first, and return '' for an empty list.",
    examples=[([("ann", "bob"), ("bob", "cat"), ("cat", "dan")],), ([],)],
    tests=[([("x", "y")],), ([("b", "a"), ("c", "a"), ("b", "c")],), ([("z", "z"), ("a", "b")],),
           ([("p", "q"), ("q", "r"), ("r", "p"), ("r", "s"), ("q", "t")],), ([("m", "n"), ("m", "n"), ("n", "o")],),
           ([("d", "e"), ("c", "e"), ("a", "b"), ("a", "c")],)],
)
def busiest_node(edges: list[tuple[str, str]]) -> str:
    degree = {}
    for u, v in edges:
        degree[u] = degree.get(u, 0) + 1
        degree[v] = degree.get(v, 0) + 1
    best = ""
    for node in sorted(degree):
        if best == "" or degree[node] > degree[best]:
            best = node
    return best


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it has a directed edge to. Return a dict giving the in-degree"
    " (number of incoming edges) of every node that appears in the graph, as a key or as a target. Repeated edges"
    " count every time.",
    "Given a directed graph graph (node -> list of successors), count for each node how many edges point at it."
    " Nodes that nothing points to get 0, and nodes that appear only as targets are included too.",
    examples=[({"a": ["b", "c"], "b": ["c"]},), ({},)],
    tests=[({"x": []},), ({"x": ["x"]},), ({"a": ["b", "b"], "c": ["b", "a"]},),
           ({"p": ["q"], "q": ["r"], "r": ["p"]},), ({"s": ["t", "u", "v"], "t": ["v"], "u": ["v"], "w": []},)],
)
def in_degrees(graph: dict[str, list[str]]) -> dict[str, int]:
    counts = {node: 0 for node in graph}
    for targets in graph.values():
        for t in targets:
            counts[t] = counts.get(t, 0) + 1
    return counts


@FAMILY.problem(
    "`grid` is a maze of equal-length strings where '.' is open floor and '#' is a wall. Moving one cell up, down,"
    " left or right at a time through open cells, return the fewest moves from the top-left cell to the"
    " bottom-right cell, or -1 if that is impossible (including when either corner is a wall).",
    "Given a maze grid ('.' open, '#' wall), use breadth-first search to find the length of the shortest path from"
    " the upper-left corner to the lower-right corner with 4-directional steps. A 1 x 1 open maze needs 0 moves;"
    " return -1 when the exit cannot be reached.",
    examples=[(["..#", "#..", "#.."],), ([".#", "#."],)],
    tests=[(["."],), (["#"],), (["#.", ".."],), (["...."],), (["..", ".#"],), (["...#", "##.#", "....", ".##."],),
           ([".#...", ".#.#.", "...#."],), (["..", ".."],), ([".#.", "#..", "..."],),
           (["...", "##.", "...", ".##", "..."],)],
)
def maze_steps(grid: list[str]) -> int:
    from collections import deque

    rows, cols = len(grid), len(grid[0])
    if grid[0][0] == "#" or grid[rows - 1][cols - 1] == "#":
        return -1
    dist = {(0, 0): 0}
    queue = deque([(0, 0)])
    while queue:
        r, c = queue.popleft()
        if (r, c) == (rows - 1, cols - 1):
            return dist[(r, c)]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] == "." and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    return -1


@FAMILY.problem(
    "`grid` is a map of equal-length strings where '#' is land and '.' is water. An island is a group of land"
    " cells connected up, down, left or right (not diagonally). Return how many islands have at least `min_size`"
    " cells.",
    "Given a satellite map grid ('#' land, '.' sea) and a threshold min_size, count the islands made of min_size"
    " or more land cells, where land cells belong to the same island when they touch by an edge (diagonal contact"
    " does not join them). An empty map has no islands.",
    examples=[(["##..", "#..#", "...#"], 2), (["##..", "#..#", "...#"], 3)],
    tests=[([], 1), (["."], 1), (["#"], 1), (["#"], 2), (["#.#", ".#.", "#.#"], 1), (["###", "#.#", "###"], 8),
           (["##.##", "#...#", "..#..", "#####"], 3), (["#.#", "###"], 1), (["..#", ".##", "##."], 5)],
)
def islands_at_least(grid: list[str], min_size: int) -> int:
    seen = set()
    count = 0
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            if grid[r][c] != "#" or (r, c) in seen:
                continue
            seen.add((r, c))
            stack, size = [(r, c)], 0
            while stack:
                y, x = stack.pop()
                size += 1
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < len(grid) and 0 <= nx < len(grid[ny]) and grid[ny][nx] == "#" and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            if size >= min_size:
                count += 1
    return count


@FAMILY.problem(
    "An undirected graph has nodes 0 to n-1 and the edges in `edges`. Return True if its nodes can be colored with"
    " two colors so that every edge joins nodes of different colors (the graph is bipartite), else False. A"
    " self-loop makes it impossible.",
    "Given n guests (0..n-1) and a list edges of pairs who refuse to sit at the same table, decide whether two"
    " tables are enough to seat everyone. Guests with no conflicts can sit anywhere; a guest in conflict with"
    " themselves makes it impossible.",
    examples=[(4, [(0, 1), (1, 2), (2, 3), (3, 0)]), (3, [(0, 1), (1, 2), (2, 0)])],
    tests=[(0, []), (2, [(1, 1)]), (5, [(0, 1), (2, 3)]), (5, [(0, 1), (1, 2), (3, 4), (4, 2), (0, 3)]),
           (6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]), (6, [(5, 4), (3, 4), (3, 5), (0, 1)])],
)
def two_colorable(n: int, edges: list[tuple[int, int]]) -> bool:
    adjacent = [[] for _ in range(n)]
    for u, v in edges:
        adjacent[u].append(v)
        adjacent[v].append(u)
    color = [-1] * n
    for start in range(n):
        if color[start] != -1:
            continue
        color[start] = 0
        stack = [start]
        while stack:
            node = stack.pop()
            for nxt in adjacent[node]:
                if color[nxt] == -1:
                    color[nxt] = 1 - color[node]
                    stack.append(nxt)
                elif color[nxt] == color[node]:
                    return False
    return True


@FAMILY.problem(
    "`graph` maps each node to its directed successors. Group the nodes reachable from `start` by their BFS"
    " distance: return a list whose k-th element is the sorted list of nodes exactly k edges away from `start`"
    " along a shortest path (the first element is [start]).",
    "Given a directed graph graph (node -> successors; missing keys have none) and a start node, return the"
    " breadth-first layers: layer 0 is [start], layer 1 holds the nodes at distance 1, and so on, each layer sorted"
    " alphabetically. Unreachable nodes are not listed and there are no empty layers.",
    examples=[({"a": ["b", "c"], "b": ["d"], "c": ["d", "e"]}, "a"), ({}, "z")],
    tests=[({"a": ["a"]}, "a"), ({"a": ["b"], "b": ["c"], "c": ["a"]}, "b"), ({"s": ["c", "b", "a"], "x": ["s"]}, "s"),
           ({"1": ["3", "2"], "2": ["4"], "3": ["4", "1"], "4": ["5", "0"]}, "1"),
           ({"m": ["n"], "n": ["o", "m"], "o": ["p", "q"], "q": ["m"]}, "m")],
)
def bfs_layers(graph: dict[str, list[str]], start: str) -> list[list[str]]:
    seen = {start}
    layers = [[start]]
    while True:
        nxt = sorted({t for node in layers[-1] for t in graph.get(node, []) if t not in seen})
        if not nxt:
            return layers
        seen.update(nxt)
        layers.append(nxt)


@FAMILY.problem(
    "Return the nodes of `graph` (node -> list of neighbours) in depth-first preorder starting at `start`: visit a"
    " node, then recursively visit each of its not-yet-visited neighbours in alphabetical order. Nodes missing from"
    " the dict have no neighbours; nodes that are never reached are left out.",
    "Given a directed graph graph and a start node, list the nodes in the order a recursive depth-first search"
    " first visits them, always trying the neighbours of a node in sorted order (not the order they are stored)"
    " and skipping nodes already visited.",
    examples=[({"a": ["c", "b"], "b": ["d"], "c": ["d"]}, "a"), ({"x": []}, "x")],
    tests=[({}, "q"), ({"a": ["a", "b"]}, "a"), ({"a": ["b"], "b": ["c"], "c": ["a"]}, "c"),
           ({"r": ["z", "m", "b"], "b": ["z"], "m": ["a"], "z": ["m"]}, "r"),
           ({"s": ["u", "t"], "t": ["w", "v"], "u": ["t"], "v": ["s"]}, "s")],
)
def dfs_preorder(graph: dict[str, list[str]], start: str) -> list[str]:
    order = []

    def visit(node: str) -> None:
        order.append(node)
        for nxt in sorted(graph.get(node, [])):
            if nxt not in order:
                visit(nxt)

    visit(start)
    return order


@FAMILY.problem(
    "`edges` lists two-way roads (u, v) between named places. Return a shortest route from `start` to `goal` as"
    " the list of places visited, both ends included. If several shortest routes exist, return the one that is"
    " smallest when the routes are compared place by place (alphabetically). Return [start] if start == goal and"
    " [] if goal is unreachable.",
    "Given an undirected graph as an edge list edges, find a path from start to goal with the fewest edges; among"
    " all such paths pick the lexicographically smallest list of node names. The path lists every node from start"
    " to goal; when there is no path the answer is [].",
    examples=[([("a", "c"), ("a", "b"), ("b", "d"), ("c", "d")], "a", "d"), ([("a", "b")], "a", "z")],
    tests=[([], "x", "x"), ([("a", "b")], "b", "a"),
           ([("s", "y"), ("y", "t"), ("s", "x"), ("x", "t"), ("s", "t")], "s", "t"),
           ([("s", "b"), ("b", "t"), ("s", "a"), ("a", "c"), ("c", "t"), ("a", "z"), ("z", "t")], "s", "t"),
           ([("p", "q"), ("q", "r"), ("r", "s"), ("p", "x"), ("x", "y"), ("y", "s"), ("q", "y")], "p", "s"),
           ([("a", "b"), ("c", "d")], "a", "d")],
)
def shortest_route(edges: list[tuple[str, str]], start: str, goal: str) -> list[str]:
    from collections import deque

    adjacent = {}
    for u, v in edges:
        adjacent.setdefault(u, []).append(v)
        adjacent.setdefault(v, []).append(u)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        node = queue.popleft()
        for nxt in adjacent.get(node, []):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    if start not in dist:
        return []
    route = [start]
    while route[-1] != goal:
        here = route[-1]
        route.append(min(n for n in adjacent[here] if dist.get(n) == dist[here] - 1))
    return route


@FAMILY.problem(
    "A directed graph has nodes 0 to n-1 and weighted edges (u, v, w) in `edges`, with w >= 0. Return a list whose"
    " i-th element is the length of the cheapest path from `source` to node i (0 for the source itself), or -1 if"
    " node i cannot be reached.",
    "Given n junctions (0..n-1) joined by one-way streets edges written as (from, to, length) with non-negative"
    " lengths, compute the shortest driving distance from source to every junction using Dijkstra's algorithm."
    " Report -1 for junctions you cannot reach; parallel streets may exist.",
    examples=[(4, [(0, 1, 4), (0, 2, 1), (2, 1, 2), (1, 3, 5)], 0), (3, [(1, 2, 7)], 0)],
    tests=[(1, [], 0), (2, [(0, 1, 0)], 0), (3, [(0, 1, 5), (0, 1, 2), (1, 2, 1), (0, 2, 9)], 0),
           (4, [(0, 1, 1), (1, 2, 1), (2, 0, 1), (3, 0, 1)], 1),
           (5, [(0, 1, 10), (0, 2, 3), (2, 1, 4), (1, 3, 2), (2, 3, 8), (3, 4, 7), (2, 4, 20)], 0)],
)
def street_distances(n: int, edges: list[tuple[int, int, int]], source: int) -> list[int]:
    import heapq

    adjacent = [[] for _ in range(n)]
    for u, v, w in edges:
        adjacent[u].append((v, w))
    dist = [-1] * n
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if dist[node] != -1:
            continue
        dist[node] = d
        for nxt, w in adjacent[node]:
            if dist[nxt] == -1:
                heapq.heappush(heap, (d + w, nxt))
    return dist


@FAMILY.problem(
    "`graph` is a directed acyclic graph given as node -> list of successors. Return the number of different"
    " paths from `start` to `goal` (a path from a node to itself counts as 1). Parallel edges listed twice give"
    " different paths.",
    "Given a DAG graph (no cycles; nodes without an entry have no outgoing edges), count the distinct routes that"
    " lead from start to goal by following edges. If start equals goal there is exactly one route; if goal is"
    " unreachable there are none.",
    examples=[({"a": ["b", "c"], "b": ["d"], "c": ["d"]}, "a", "d"), ({"a": ["b"]}, "b", "a")],
    tests=[({}, "x", "x"), ({"a": ["b", "b"]}, "a", "b"), ({"a": ["b"], "b": ["c"]}, "a", "c"),
           ({"s": ["a", "b", "t"], "a": ["b", "t"], "b": ["t"]}, "s", "t"),
           ({"1": ["2", "3"], "2": ["4", "5"], "3": ["4", "5"], "4": ["6"], "5": ["6"], "6": []}, "1", "6"),
           ({"1": ["2", "3"], "2": ["4", "5"], "3": ["4", "5"], "4": ["6"], "5": ["6"], "6": []}, "2", "3")],
)
def count_dag_paths(graph: dict[str, list[str]], start: str, goal: str) -> int:
    memo = {}

    def paths(node: str) -> int:
        if node == goal:
            return 1
        if node not in memo:
            memo[node] = sum(paths(nxt) for nxt in graph.get(node, []))
        return memo[node]

    return paths(start)


@FAMILY.problem(
    "`follows` is a list of pairs (a, b) meaning user a follows user b. Return every pair of users who follow each"
    " other, each pair written as a tuple with the alphabetically smaller name first, and the list sorted. Each"
    " mutual pair appears once even if a follow is listed twice; users never follow themselves.",
    "Given the follow relation follows of a social app as (follower, followed) pairs, find the mutual connections:"
    " unordered pairs {a, b} where a follows b and b follows a. Return them as sorted (smaller, larger) tuples in"
    " ascending order, without duplicates.",
    examples=[([("ann", "bob"), ("bob", "ann"), ("bob", "cy")],), ([],)],
    tests=[([("a", "b")],), ([("b", "a"), ("a", "b"), ("a", "b")],), ([("x", "y"), ("y", "z"), ("z", "x")],),
           ([("d", "c"), ("a", "b"), ("c", "d"), ("b", "a"), ("a", "c")],), ([("m", "n"), ("n", "o"), ("o", "n")],)],
)
def mutual_follows(follows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    pairs = set(follows)
    return sorted({(min(a, b), max(a, b)) for a, b in pairs if (b, a) in pairs})


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it points to. Return, in alphabetical order, the sink nodes:"
    " those with no outgoing edges. Nodes that appear only as targets are sinks too, and a node with a self-loop is"
    " not a sink.",
    "Given a directed graph graph (node -> successors), list every node that has nothing to point to: keys with an"
    " empty list and nodes that only ever occur as targets. Return them sorted and without duplicates.",
    examples=[({"a": ["b", "c"], "b": [], "c": ["b"]},), ({},)],
    tests=[({"x": []},), ({"x": ["x"]},), ({"a": ["z", "y"], "y": []},), ({"p": ["q", "q"], "q": ["p"], "r": ["s"]},),
           ({"m": ["b"], "b": ["a"], "a": [], "c": ["a", "d"]},)],
)
def sink_nodes(graph: dict[str, list[str]]) -> list[str]:
    nodes = set(graph) | {t for targets in graph.values() for t in targets}
    return sorted(node for node in nodes if not graph.get(node))


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it points to. Return how many different nodes `node` points to,"
    " not counting itself; a node without an entry points to none.",
    "Given a directed graph graph (node -> successors, possibly with repeats and self-loops), count the distinct"
    " successors of node other than node itself. Return 0 when node is not a key.",
    examples=[({"a": ["b", "c", "b"], "b": []}, "a"), ({"a": ["b"]}, "z")],
    tests=[({"a": []}, "a"), ({"a": ["a"]}, "a"), ({"a": ["a", "b"]}, "a"), ({"x": ["y", "z", "y", "w"]}, "x"),
           ({"p": ["q"], "q": ["p", "r", "q"]}, "q")],
    level=1,
)
def distinct_successors(graph: dict[str, list[str]], node: str) -> int:
    return len({t for t in graph.get(node, []) if t != node})


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it has an edge to. Return the sorted list of nodes that have an"
    " edge pointing to `target` (target itself is included if it has a self-loop).",
    "Given a directed graph graph (node -> successors) and a node target, list, in alphabetical order, every node"
    " whose successor list contains target. Return [] when nothing points to it.",
    examples=[({"a": ["c"], "b": ["c", "a"], "c": []}, "c"), ({"a": ["b"]}, "a")],
    tests=[({}, "x"), ({"x": ["x"]}, "x"), ({"d": ["a"], "c": ["a"], "a": ["b"]}, "a"),
           ({"m": ["n", "n"], "n": ["m"], "o": ["n"]}, "n"), ({"a": ["b"], "b": ["c"]}, "c")],
    level=1,
)
def nodes_pointing_to(graph: dict[str, list[str]], target: str) -> list[str]:
    return sorted(n for n, succ in graph.items() if target in succ)


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it points to. Return the total number of edges, counting repeated"
    " edges each time but leaving out self-loops (an edge from a node to itself).",
    "Count the directed edges in graph (node -> successors) whose two ends are different nodes. Duplicate entries"
    " in a successor list count separately; an empty graph has 0 edges.",
    examples=[({"a": ["b", "a"], "b": ["a"]},), ({},)],
    tests=[({"x": []},), ({"x": ["x", "x"]},), ({"a": ["b", "b", "c"]},), ({"a": ["b"], "b": ["c"], "c": ["a", "c"]},),
           ({"p": ["q"], "q": ["q"], "r": ["p", "q", "r"]},)],
    level=1,
)
def edge_count_no_loops(graph: dict[str, list[str]]) -> int:
    return sum(1 for node, succ in graph.items() for t in succ if t != node)


@FAMILY.problem(
    "`edges` lists undirected edges as pairs (u, v). Return the sorted list of distinct neighbours of `node`: the"
    " other end of every edge that touches it (a self-loop makes node its own neighbour).",
    "Given an undirected edge list edges and a node, collect every node joined to it by an edge, in either"
    " position of the pair, without duplicates, and return them in alphabetical order ([] if none).",
    examples=[([("a", "b"), ("c", "a"), ("b", "c")], "a"), ([("x", "y")], "z")],
    tests=[([], "a"), ([("a", "a")], "a"), ([("b", "a"), ("a", "b"), ("a", "c")], "a"),
           ([("m", "n"), ("n", "o"), ("p", "n"), ("m", "o")], "n"), ([("d", "e"), ("e", "f")], "f")],
    level=1,
)
def undirected_neighbours(edges: list[tuple[str, str]], node: str) -> list[str]:
    return sorted({v if u == node else u for u, v in edges if node in (u, v)})


@FAMILY.problem(
    "`graph` maps each node to the list of nodes it points to. Return, in alphabetical order, the nodes that have"
    " an edge to themselves (a self-loop). A graph without self-loops gives [].",
    "Given a directed graph graph (node -> successors), list every node whose own successor list contains it,"
    " sorted alphabetically and each once.",
    examples=[({"a": ["a", "b"], "b": ["a"]},), ({},)],
    tests=[({"x": []},), ({"x": ["x", "x"]},), ({"c": ["c"], "a": ["a"], "b": ["c"]},),
           ({"p": ["q"], "q": ["p"]},), ({"m": ["n", "m"], "n": ["m"], "o": ["o"]},)],
    level=1,
)
def self_loop_nodes(graph: dict[str, list[str]]) -> list[str]:
    return sorted(n for n, succ in graph.items() if n in succ)
