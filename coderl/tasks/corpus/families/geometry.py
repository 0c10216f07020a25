from coderl.tasks.corpus.define import Family

FAMILY = Family("geometry", "integer geometry: points, distances, rectangles, polygons, orientation")


@FAMILY.problem(
    "Return the Manhattan distance between points `p` and `q`, each an (x, y) pair of integers:"
    " |x1 - x2| + |y1 - y2|.",
    "A taxi in a city of square blocks drives from p to q (both (x, y) integer pairs) moving only"
    " along the grid. Compute how many blocks it travels, i.e. the sum of the absolute differences of"
    " the coordinates.",
    examples=[((1, 2), (4, 0))],
    tests=[((0, 0), (0, 0)), ((5, 5), (2, 9)), ((-3, -4), (3, 4)), ((7, -2), (-1, -2)), ((0, 10), (0, -10))],
)
def manhattan_distance(p: tuple[int, int], q: tuple[int, int]) -> int:
    return abs(p[0] - q[0]) + abs(p[1] - q[1])


@FAMILY.problem(
    "A chess king stands on square `start` of an infinite board and must reach `end` (both (x, y)"
    " integer pairs). It moves one square in any of the 8 directions per move. Return the minimum"
    " number of moves.",
    "Return the Chebyshev distance between the points start and end: the larger of |x1 - x2| and"
    " |y1 - y2|. Coordinates may be negative; identical points give 0.",
    examples=[((0, 0), (3, 5))],
    tests=[((2, 2), (2, 2)), ((4, 1), (0, 0)), ((-3, 7), (2, 6)), ((0, -8), (0, 8)), ((5, -5), (-5, 4))],
)
def king_moves(start: tuple[int, int], end: tuple[int, int]) -> int:
    return max(abs(start[0] - end[0]), abs(start[1] - end[1]))


@FAMILY.problem(
    "Return the index of the point in `points` closest to `origin` by squared Euclidean distance"
    " (dx*dx + dy*dy). On a tie return the smallest index; return -1 if points is empty.",
    "Given a list of (x, y) integer points and an origin point, find which point is nearest to the"
    " origin (straight-line distance, compared exactly using squared distances). Report its position"
    " in the list; if several are equally near, report the first of them, and report -1 when there"
    " are no points.",
    examples=[([(3, 4), (1, 1), (-2, 0)], (0, 0))],
    tests=[([], (0, 0)), ([(5, 5)], (1, 1)), ([(1, 0), (0, 1), (-1, 0)], (0, 0)),
           ([(10, 10), (4, 3), (3, 4), (2, 2)], (5, 5)), ([(-7, -7), (-6, -9), (0, 0)], (-6, -8)),
           ([(3, 0), (0, 2), (1, 1)], (0, 0))],
)
def closest_point_index(points: list[tuple[int, int]], origin: tuple[int, int]) -> int:
    best, best_dist = -1, 0
    for i, (x, y) in enumerate(points):
        d = (x - origin[0]) ** 2 + (y - origin[1]) ** 2
        if best == -1 or d < best_dist:
            best, best_dist = i, d
    return best


@FAMILY.problem(
    "Each of `a` and `b` is an axis-aligned rectangle given as (x1, y1, x2, y2), two opposite"
    " corners in any order. Return True if the rectangles share at least one point; rectangles that"
    " only touch along an edge or at a corner count as sharing.",
    "Decide whether two axis-aligned rectangles a and b intersect. A rectangle is written as a"
    " tuple (x1, y1, x2, y2) of two opposite corners, which may be listed in either order (x1 may be"
    " larger than x2, and likewise for y). Touching boundaries count as an intersection; only"
    " rectangles separated by a positive gap do not intersect.",
    examples=[((0, 0, 2, 2), (1, 1, 3, 3)), ((0, 0, 1, 1), (2, 2, 3, 3))],
    tests=[((0, 0, 2, 2), (2, 0, 4, 2)), ((0, 0, 2, 2), (-3, 1, 0, 5)), ((1, 1, 6, 3), (2, -4, 3, 1)),
           ((1, 1, 6, 3), (7, 3, 9, 8)), ((6, 3, 1, 1), (0, 4, 2, 9)), ((4, 4, 0, 0), (1, 5, 3, 3)),
           ((-5, -1, -2, -4), (-3, 0, 0, -2)), ((0, 5, 8, 6), (3, -2, 4, 4)), ((2, 2, 3, 3), (-1, 0, 5, 7))],
)
def rectangles_touch(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    x_ok = max(min(ax1, ax2), min(bx1, bx2)) <= min(max(ax1, ax2), max(bx1, bx2))
    y_ok = max(min(ay1, ay2), min(by1, by2)) <= min(max(ay1, ay2), max(by1, by2))
    return x_ok and y_ok


@FAMILY.problem(
    "Return the area of the intersection of the axis-aligned rectangles `a` and `b`, each given as"
    " (x1, y1, x2, y2) with two opposite corners in any order. Return 0 if they do not overlap or"
    " only touch.",
    "Two rectangular flower beds a and b, aligned with the axes, are described by opposite corners"
    " (x1, y1, x2, y2) in no particular order. Compute the integer area that belongs to both beds;"
    " beds that merely share an edge or are apart have a common area of 0.",
    examples=[((0, 0, 4, 3), (2, 1, 6, 5))],
    tests=[((0, 0, 2, 2), (2, 0, 4, 2)), ((0, 0, 2, 2), (5, 5, 6, 6)), ((4, 3, 0, 0), (6, 5, 2, 1)),
           ((0, 0, 10, 10), (2, 3, 5, 7)), ((-3, -3, 3, 3), (-1, -10, 1, 10)), ((0, 0, 3, 3), (1, 5, 2, 4)),
           ((0, 0, 2, 6), (5, 1, 7, 3)), ((9, 1, 1, 4), (2, 8, 5, 3)), ((0, 0, 3, 3), (2, -1, 5, 8)),
           ((0, 0, 6, 4), (-2, 3, 3, 9))],
)
def overlap_area(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    ax1, ay1, ax2, ay2 = a
    bx1, by1, bx2, by2 = b
    width = min(max(ax1, ax2), max(bx1, bx2)) - max(min(ax1, ax2), min(bx1, bx2))
    height = min(max(ay1, ay2), max(by1, by2)) - max(min(ay1, ay2), min(by1, by2))
    if width <= 0 or height <= 0:
        return 0
    return width * height


@FAMILY.problem(
    "Walking from point `p` to point `q` and then on to point `r`, return \"left\" if the path turns"
    " counter-clockwise at q, \"right\" if it turns clockwise, and \"straight\" if the three points"
    " are collinear (including when points coincide). Use the sign of the cross product"
    " (q - p) x (r - q).",
    "Given three integer points p, q and r, classify their orientation: compute"
    " (qx - px) * (ry - qy) - (qy - py) * (rx - qx); a positive value means \"left\", a negative value"
    " means \"right\" and zero means \"straight\".",
    examples=[((0, 0), (1, 0), (1, 1)), ((0, 0), (2, 2), (4, 4))],
    tests=[((0, 0), (1, 0), (2, -1)), ((1, 1), (1, 1), (5, 3)), ((0, 0), (0, 5), (-3, 6)),
           ((-2, -2), (0, 0), (-1, 3)), ((3, 1), (6, 2), (9, 3)), ((0, 0), (4, 1), (1, 2)),
           ((5, 0), (0, 0), (-5, -1))],
)
def turn_direction(p: tuple[int, int], q: tuple[int, int], r: tuple[int, int]) -> str:
    cross = (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0])
    if cross > 0:
        return "left"
    if cross < 0:
        return "right"
    return "straight"


@FAMILY.problem(
    "`vertices` lists the corners of a closed route in order. Return the route's length measured"
    " with Manhattan distance, including the leg from the last vertex back to the first. Fewer than"
    " two vertices give 0.",
    "A delivery robot visits the grid points in vertices one after another and then returns to the"
    " first one; every leg costs |dx| + |dy|. Compute the total cost of the round trip. With zero or"
    " one vertex the robot does not move.",
    examples=[([(0, 0), (3, 0), (3, 2)],)],
    tests=[([],), ([(4, 4)],), ([(0, 0), (2, 3)],), ([(1, 1), (1, 1), (1, 1)],),
           ([(0, 0), (0, 5), (-4, 5), (-4, -1)],), ([(-2, 3), (4, -1), (0, 0), (7, 7)],)],
)
def round_trip_length(vertices: list[tuple[int, int]]) -> int:
    total = 0
    for i in range(len(vertices)):
        (x1, y1), (x2, y2) = vertices[i - 1], vertices[i]
        total += abs(x2 - x1) + abs(y2 - y1)
    return total


@FAMILY.problem(
    "Return twice the area of the simple polygon whose corners are listed in order in `vertices`"
    " (clockwise or counter-clockwise), using the shoelace formula. The result is a non-negative"
    " integer; fewer than three vertices give 0.",
    "Given the vertices of a polygon in boundary order, compute |sum over edges of"
    " (x_i * y_{i+1} - x_{i+1} * y_i)|, where the edge from the last vertex back to the first is"
    " included. This equals twice the polygon's area and is always an integer. Polygons with fewer"
    " than 3 vertices have area 0.",
    examples=[([(0, 0), (4, 0), (4, 3)],)],
    tests=[([],), ([(1, 1), (5, 5)],), ([(0, 0), (0, 2), (2, 2), (2, 0)],), ([(0, 0), (1, 0), (0, 1)],),
           ([(-1, -1), (3, -1), (3, 2), (1, 4), (-1, 2)],), ([(0, 0), (2, 2), (4, 4)],)],
)
def twice_polygon_area(vertices: list[tuple[int, int]]) -> int:
    total = 0
    for i in range(len(vertices)):
        x1, y1 = vertices[i - 1]
        x2, y2 = vertices[i]
        total += x1 * y2 - x2 * y1
    return abs(total)


@FAMILY.problem(
    "Return how many points with integer coordinates lie on the segment from `p` to `q`, endpoints"
    " included. If p equals q the answer is 1.",
    "Fence posts are placed at every lattice point of a straight fence running from p to q. Count"
    " the posts, including the two ends: this is gcd(|dx|, |dy|) + 1 for a fence with dx, dy the"
    " coordinate differences (a fence of zero length has a single post).",
    examples=[((0, 0), (6, 4))],
    tests=[((3, 3), (3, 3)), ((0, 0), (5, 0)), ((-2, -2), (2, 2)), ((1, 2), (4, 9)), ((0, 7), (0, -5)),
           ((10, -3), (-2, 6))],
)
def lattice_points_on_segment(p: tuple[int, int], q: tuple[int, int]) -> int:
    import math
    return math.gcd(abs(q[0] - p[0]), abs(q[1] - p[1])) + 1


@FAMILY.problem(
    "Return how many of `points` lie inside or on the circle with integer `center` and `radius`."
    " Compare squared distances to radius * radius so no floats are needed. A negative radius"
    " contains no points.",
    "Given a list of (x, y) integer points, a center point and an integer radius, count the points"
    " whose distance from center is at most radius (points exactly on the circle count). If radius is"
    " negative the circle is empty and the answer is 0; a radius of 0 contains only the center itself.",
    examples=[([(0, 0), (3, 4), (4, 4)], (0, 0), 5)],
    tests=[([], (0, 0), 3), ([(1, 1), (1, 1), (2, 1)], (1, 1), 0), ([(0, 0), (1, 0)], (0, 0), -1),
           ([(5, 0), (0, 5), (-5, 0), (4, 3), (4, 4)], (0, 0), 5),
           ([(-2, -3), (6, 1), (1, 7), (2, 3), (5, -1)], (2, -1), 4),
           ([(3, 9), (8, 5), (7, 6), (0, 0)], (3, 5), 5),
           ([(0, 6), (0, 7)], (0, 0), 6)],
)
def points_in_circle(points: list[tuple[int, int]], center: tuple[int, int], radius: int) -> int:
    if radius < 0:
        return 0
    count = 0
    for x, y in points:
        if (x - center[0]) ** 2 + (y - center[1]) ** 2 <= radius * radius:
            count += 1
    return count


@FAMILY.problem(
    "Return the smallest axis-aligned box containing all `points` as (min_x, min_y, max_x, max_y)."
    " Return None if points is empty.",
    "Given a list of integer (x, y) points, compute the bounding box tuple (min_x, min_y, max_x,"
    " max_y) that just encloses them. A single point gives a box of zero size; an empty list has no"
    " box, so the result is None.",
    examples=[([(2, 3), (-1, 5), (4, 0)],)],
    tests=[([],), ([(7, -7)],), ([(0, 0), (0, 0)],), ([(-5, 2), (-1, -9), (-3, 4)],),
           ([(1, 10), (10, 1), (5, 5), (2, 8)],)],
)
def bounding_box(points: list[tuple[int, int]]) -> tuple[int, int, int, int] | None:
    if not points:
        return None
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    return (min(xs), min(ys), max(xs), max(ys))


@FAMILY.problem(
    "Return True if the points `a`, `b`, `c` form a right triangle (one angle of exactly 90 degrees)."
    " A degenerate triangle (repeated or collinear points) is not a right triangle. Work with"
    " integer squared side lengths.",
    "Given three integer points a, b and c, decide whether they are the corners of a non-degenerate"
    " triangle with a right angle: with squared side lengths s1 <= s2 <= s3 the test is s1 + s2 == s3"
    " and s1 > 0. Coincident or collinear points give False.",
    examples=[((0, 0), (3, 0), (0, 4)), ((0, 0), (2, 1), (4, 0))],
    tests=[((0, 0), (0, 0), (1, 1)), ((0, 0), (1, 1), (2, 2)), ((1, 1), (4, 5), (5, 2)),
           ((2, 0), (0, 0), (0, 2)), ((-1, 0), (1, 0), (0, 3)), ((0, 0), (5, 0), (5, -7)),
           ((0, 0), (1, 2), (3, 1)), ((0, 0), (0, 3), (2, 0)), ((0, 3), (2, 0), (0, 0)), ((1, 0), (0, 0), (0, 1))],
)
def is_right_triangle(a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]) -> bool:
    def sq(p: tuple[int, int], q: tuple[int, int]) -> int:
        return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2

    s1, s2, s3 = sorted([sq(a, b), sq(b, c), sq(a, c)])
    return s1 > 0 and s1 + s2 == s3


@FAMILY.problem(
    "Count how many of `points` fall in each quadrant. Return a dict with keys \"I\" (x > 0, y > 0),"
    " \"II\" (x < 0, y > 0), \"III\" (x < 0, y < 0), \"IV\" (x > 0, y < 0) and \"axis\" (x == 0 or"
    " y == 0). All five keys are always present, with 0 for empty groups.",
    "Given integer points, tally them by quadrant of the plane: \"I\" for both coordinates"
    " positive, \"II\" for negative x and positive y, \"III\" for both negative, \"IV\" for positive"
    " x and negative y, and \"axis\" for any point with a zero coordinate. Return a dict holding all"
    " five counts, zeros included.",
    examples=[([(1, 2), (-3, 4), (0, 5), (2, -2)],)],
    tests=[([],), ([(0, 0)],), ([(-1, -1), (-5, -2), (3, 0)],), ([(7, 7), (7, -7), (-7, 7), (-7, -7), (0, -3)],),
           ([(1, 1), (2, 2), (-1, 0), (-1, 3), (4, -1), (-2, 1), (-3, -1)],)],
)
def quadrant_counts(points: list[tuple[int, int]]) -> dict[str, int]:
    counts = {"I": 0, "II": 0, "III": 0, "IV": 0, "axis": 0}
    for x, y in points:
        if x == 0 or y == 0:
            counts["axis"] += 1
        elif x > 0:
            counts["I" if y > 0 else "IV"] += 1
        else:
            counts["II" if y > 0 else "III"] += 1
    return counts


@FAMILY.problem(
    "Each of `a` and `b` is a rectangle (x, y, width, height) with bottom-left corner (x, y) and"
    " non-negative width and height. Return the total area covered by the two rectangles together,"
    " counting overlapping area only once.",
    "Two rugs are laid on a floor; rug a and rug b are given as (x, y, width, height), where (x, y) is"
    " the lower-left corner. Compute how much floor area is covered by at least one rug: the sum of"
    " both areas minus the area they share (sharing only an edge adds nothing).",
    examples=[((0, 0, 4, 4), (2, 2, 4, 4))],
    tests=[((0, 0, 2, 2), (5, 5, 1, 1)), ((0, 0, 3, 3), (3, 0, 3, 3)), ((0, 0, 10, 10), (1, 1, 2, 2)),
           ((-4, -4, 4, 8), (-6, -2, 10, 2)), ((1, 1, 0, 5), (0, 0, 2, 2)), ((2, 2, 3, 3), (2, 2, 3, 3)),
           ((0, 0, 4, 2), (1, 5, 2, 2)), ((0, 0, 2, 4), (5, 1, 2, 2)), ((0, 0, 3, 3), (2, 1, 4, 1)),
           ((0, 0, 5, 5), (1, 4, 2, 3))],
)
def covered_area(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    shared = w * h if w > 0 and h > 0 else 0
    return aw * ah + bw * bh - shared


@FAMILY.problem(
    "Return True if all `points` lie on one straight line. Lists with fewer than three points, and"
    " lists whose points all coincide, count as collinear.",
    "Given a list of integer (x, y) points (duplicates allowed), decide whether a single straight"
    " line passes through every one of them. Use integer cross products: pick the first point and"
    " the first point different from it; every other point must have a zero cross product with"
    " them. With 0, 1 or 2 points, or all points equal, the answer is True.",
    examples=[([(0, 0), (2, 2), (5, 5)],), ([(0, 0), (1, 0), (1, 1)],)],
    tests=[([],), ([(4, -2)],), ([(1, 2), (8, -3)],), ([(3, 3), (3, 3), (3, 3)],), ([(2, 2), (2, 2), (4, 5), (6, 8)],),
           ([(0, 1), (0, 5), (0, -2), (1, 3)],), ([(1, 1), (1, 1), (2, 3), (3, 4)],),
           ([(-2, 4), (0, 0), (1, -2), (3, -6)],), ([(0, 0), (1, 1), (3, 7), (1, 1)],)],
)
def all_collinear(points: list[tuple[int, int]]) -> bool:
    if not points:
        return True
    x0, y0 = points[0]
    other = next((p for p in points if p != (x0, y0)), None)
    if other is None:
        return True
    dx, dy = other[0] - x0, other[1] - y0
    return all(dx * (y - y0) - dy * (x - x0) == 0 for x, y in points)


@FAMILY.problem(
    "Return `points` sorted by Manhattan distance from `origin`, nearest first; points at the same"
    " distance are ordered by x, then by y.",
    "Given a list of integer points and an origin, produce a new list ordered by |dx| + |dy| to the"
    " origin (smallest first), breaking ties by smaller x coordinate and then smaller y coordinate."
    " Duplicates are kept.",
    examples=[([(3, 3), (1, 0), (-1, 0), (0, 2)], (0, 0))],
    tests=[([], (1, 1)), ([(5, 5)], (0, 0)), ([(2, 2), (0, 0), (2, 2)], (1, 1)),
           ([(0, 3), (3, 0), (-3, 0), (0, -3), (1, 1)], (0, 0)), ([(-4, -4), (6, 0), (-1, 2)], (1, -1)),
           ([(3, 8), (0, 2), (5, 5), (-2, 4), (2, 1)], (2, 5))],
)
def sort_by_manhattan(points: list[tuple[int, int]], origin: tuple[int, int]) -> list[tuple[int, int]]:
    return sorted(points, key=lambda p: (abs(p[0] - origin[0]) + abs(p[1] - origin[1]), p[0], p[1]))


@FAMILY.problem(
    "Return True if point `p` lies on the closed segment from `a` to `b` (endpoints included). If a"
    " equals b, the segment is the single point a.",
    "Decide whether the integer point p sits on the line segment between a and b: the cross product"
    " (b - a) x (p - a) must be 0 and p must lie within the segment's bounding box (touching the"
    " ends counts). A zero-length segment contains only its own point.",
    examples=[((2, 2), (0, 0), (4, 4)), ((5, 5), (0, 0), (4, 4))],
    tests=[((0, 0), (0, 0), (4, 4)), ((4, 4), (0, 0), (4, 4)), ((1, 2), (0, 0), (4, 4)), ((3, 3), (3, 3), (3, 3)),
           ((3, 4), (3, 3), (3, 3)), ((-2, 1), (-4, 2), (2, -1)), ((6, -3), (-4, 2), (2, -1)),
           ((2, 5), (2, 9), (2, 1)), ((2, 10), (2, 9), (2, 1)), ((7, 3), (1, 3), (5, 3)), ((0, 3), (1, 3), (5, 3))],
)
def point_on_segment(p: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> bool:
    (px, py), (ax, ay), (bx, by) = p, a, b
    if (bx - ax) * (py - ay) - (by - ay) * (px - ax) != 0:
        return False
    return min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)


@FAMILY.problem(
    "Return the squared straight-line distance between points `p` and `q` (each an (x, y) pair of integers):"
    " (x1 - x2) ** 2 + (y1 - y2) ** 2.",
    "Given two integer points p and q, compute dx * dx + dy * dy, the square of their Euclidean distance, so the"
    " result stays an integer. Equal points give 0.",
    examples=[((0, 0), (3, 4)), ((2, 2), (2, 2))],
    tests=[((1, 1), (2, 1)), ((-1, -1), (1, 1)), ((5, 0), (0, -5)), ((3, 7), (-2, 7)), ((-4, 9), (0, 6))],
    level=1,
)
def squared_distance(p: tuple[int, int], q: tuple[int, int]) -> int:
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2


@FAMILY.problem(
    "Return the midpoint of points `p` and `q` with each coordinate rounded down: ((x1 + x2) // 2,"
    " (y1 + y2) // 2).",
    "Given two integer points p and q, return the point halfway between them as an (x, y) tuple, using floor"
    " division by 2 for each coordinate (so 3 and 0 give 1, and -1 and 0 give -1).",
    examples=[((0, 0), (4, 6)), ((1, 1), (2, 2))],
    tests=[((3, 3), (3, 3)), ((-1, 0), (0, -1)), ((-4, 10), (4, -10)), ((7, 2), (0, 9)), ((-5, -5), (-2, -8))],
    level=1,
)
def midpoint_floor(p: tuple[int, int], q: tuple[int, int]) -> tuple[int, int]:
    return ((p[0] + q[0]) // 2, (p[1] + q[1]) // 2)


@FAMILY.problem(
    "Return the area of the axis-aligned rectangle that has `a` and `b` as opposite corners (given in any order)."
    " If the corners share an x or a y coordinate the area is 0.",
    "Two opposite corners a and b of a rectangle with sides parallel to the axes are given as (x, y) pairs. Compute"
    " its area, |x1 - x2| * |y1 - y2|.",
    examples=[((1, 1), (4, 3)), ((5, 2), (5, 9))],
    tests=[((0, 0), (0, 0)), ((4, 3), (1, 1)), ((-2, -3), (2, 3)), ((3, -1), (-1, 4)), ((0, 5), (7, 5))],
    level=1,
)
def corner_rect_area(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) * abs(a[1] - b[1])


@FAMILY.problem(
    "Move every point of `points` by `offset` = (dx, dy): (x, y) becomes (x + dx, y + dy). Return the new list in"
    " the same order.",
    "Given a list of integer (x, y) points and a shift vector offset, return the list of shifted points, adding"
    " offset's first value to every x and its second value to every y. No points gives [].",
    examples=[([(0, 0), (2, 3)], (1, -1)), ([], (5, 5))],
    tests=[([(4, 4)], (0, 0)), ([(1, 2)], (3, 0)), ([(1, 2)], (0, 3)), ([(-1, -1), (5, 0), (2, 2)], (-2, 4)),
           ([(0, 7), (7, 0)], (10, -10))],
    level=1,
)
def translate_points(points: list[tuple[int, int]], offset: tuple[int, int]) -> list[tuple[int, int]]:
    return [(x + offset[0], y + offset[1]) for x, y in points]


@FAMILY.problem(
    "Return how many points of `points` lie strictly above the horizontal line y = `level`.",
    "Count the (x, y) points whose y coordinate is greater than level; points exactly on the line do not count,"
    " and an empty list gives 0.",
    examples=[([(0, 1), (2, 5), (3, -2)], 1), ([], 0)],
    tests=[([(9, 9)], 8), ([(9, 9)], 9), ([(0, 0), (0, 1), (0, -1)], 0), ([(5, -3), (1, -4), (2, -2)], -3),
           ([(1, 10), (2, 20), (3, 30)], 15)],
    level=1,
)
def count_above_level(points: list[tuple[int, int]], level: int) -> int:
    return sum(1 for _, y in points if y > level)


@FAMILY.problem(
    "Return the point of `points` farthest from the origin (0, 0) by Manhattan distance |x| + |y|; on a tie return"
    " the one that comes first. Return None if points is empty.",
    "Given a list of integer (x, y) points, find the one with the largest |x| + |y| and return it; when several are"
    " equally far, the earliest in the list wins. An empty list has no answer (None).",
    examples=[([(1, 2), (-4, 0), (2, 2)],), ([],)],
    tests=[([(0, 0)],), ([(3, 0), (0, -3)],), ([(1, 1), (-1, -5), (2, 3)],), ([(-2, -2), (4, 0), (0, 1)],),
           ([(1, 0), (0, 1), (0, 2), (2, 0)],)],
    level=1,
)
def farthest_from_origin(points: list[tuple[int, int]]) -> tuple[int, int] | None:
    return max(points, key=lambda p: abs(p[0]) + abs(p[1]), default=None)
