from coderl.tasks.corpus.define import Family

FAMILY = Family("matrices", "2D lists and grids: transpose, rotate, neighbours, spiral, row/column sums, grid scans")


@FAMILY.problem(
    "Return the transpose of the rectangular matrix `grid`: row i of the result is column i of"
    " grid. An empty grid (no rows) gives [].",
    "Given a matrix grid as a list of equally long rows, swap its rows and columns so that the"
    " element at grid[r][c] ends up at result[c][r]. Return [] when grid has no rows.",
    examples=[([[1, 2, 3], [4, 5, 6]],)],
    tests=[([],), ([[7]],), ([[1, 2, 3, 4]],), ([[1], [2], [3]],), ([[1, 2], [3, 4], [5, 6]],)],
)
def transpose(grid: list[list[int]]) -> list[list[int]]:
    if not grid:
        return []
    return [[grid[r][c] for r in range(len(grid))] for c in range(len(grid[0]))]


@FAMILY.problem(
    "Rotate the rectangular matrix `grid` 90 degrees clockwise and return the result as a new"
    " matrix (a grid with R rows and C columns becomes one with C rows and R columns). An empty"
    " grid gives [].",
    "A photo is stored as rows of pixel values in grid. Turn it a quarter turn to the right: the"
    " first column read from bottom to top becomes the first row. Return the turned photo, or []"
    " for a photo with no rows.",
    examples=[([[1, 2], [3, 4], [5, 6]],)],
    tests=[([],), ([[9]],), ([[1, 2, 3]],), ([[1], [2]],), ([[1, 2, 3], [4, 5, 6], [7, 8, 9]],)],
)
def rotate_clockwise(grid: list[list[int]]) -> list[list[int]]:
    if not grid:
        return []
    rows = len(grid)
    return [[grid[rows - 1 - r][c] for r in range(rows)] for c in range(len(grid[0]))]


@FAMILY.problem(
    "Return a tuple (row_sums, column_sums) for the rectangular matrix `grid`: row_sums[i] is the"
    " sum of row i and column_sums[j] the sum of column j. An empty grid gives ([], []).",
    "Given a spreadsheet grid of integers (all rows the same length), compute the total of every"
    " row and the total of every column and return them as a pair of lists (rows first, then"
    " columns). With no rows both lists are empty.",
    examples=[([[1, 2, 3], [4, 5, 6]],)],
    tests=[([],), ([[5]],), ([[1, -1], [-1, 1]],), ([[0, 0, 0]],), ([[2], [3], [4]],),
           ([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],)],
)
def row_and_column_sums(grid: list[list[int]]) -> tuple[list[int], list[int]]:
    rows = [sum(row) for row in grid]
    cols = [sum(row[c] for row in grid) for c in range(len(grid[0]))] if grid else []
    return (rows, cols)


@FAMILY.problem(
    "Return the elements of the rectangular matrix `grid` in counter-clockwise spiral order:"
    " down the left column from the top-left corner, along the bottom row left to right, up the"
    " right column, along the top row right to left, then the same for the inner part, until every"
    " element is listed once. An empty grid gives [].",
    "Given a matrix grid (a list of equally long rows), walk around it anticlockwise like a snail:"
    " start at the top-left corner and go down first, then right, then up, then left, turning"
    " inwards each time you reach an edge or an already visited cell. Return the values in the"
    " order visited.",
    examples=[([[1, 2, 3], [4, 5, 6], [7, 8, 9]],)],
    tests=[([],), ([[1]],), ([[1, 2, 3, 4]],), ([[1], [2], [3]],), ([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],),
           ([[1, 2], [3, 4], [5, 6], [7, 8]],), ([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]],)],
)
def spiral_anticlockwise(grid: list[list[int]]) -> list[int]:
    out = []
    if not grid:
        return out
    top, bottom, left, right = 0, len(grid) - 1, 0, len(grid[0]) - 1
    while top <= bottom and left <= right:
        out += [grid[r][left] for r in range(top, bottom + 1)]
        out += [grid[bottom][c] for c in range(left + 1, right + 1)]
        if left < right:
            out += [grid[r][right] for r in range(bottom - 1, top - 1, -1)]
        if top < bottom:
            out += [grid[top][c] for c in range(right - 1, left, -1)]
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return out


@FAMILY.problem(
    "`grid` is a rectangle of 0s and 1s. Return how many of the (up to 8) cells touching cell"
    " (`row`, `col`) horizontally, vertically or diagonally contain a 1. The cell itself is not"
    " counted, and positions outside the grid are ignored.",
    "Given a 0/1 grid and a cell position (row, col) inside it, count the live neighbours of that"
    " cell: the cells among its eight surrounding positions (fewer at the border) whose value is 1.",
    examples=[([[1, 1, 0], [0, 1, 0], [1, 0, 1]], 1, 1)],
    tests=[([[1]], 0, 0), ([[1, 1], [1, 1]], 0, 0), ([[1, 1, 1], [1, 1, 1], [1, 1, 1]], 1, 1),
           ([[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 0]], 2, 3), ([[1, 0, 1], [0, 0, 0], [1, 0, 1]], 0, 1),
           ([[0, 0, 1], [1, 1, 0]], 1, 0)],
)
def live_neighbours(grid: list[list[int]], row: int, col: int) -> int:
    count = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            if (dr or dc) and 0 <= r < len(grid) and 0 <= c < len(grid[0]):
                count += grid[r][c]
    return count


@FAMILY.problem(
    "`grid` is a square matrix. Return a tuple (main, anti) where main is the sum of the main"
    " diagonal (top-left to bottom-right) and anti the sum of the anti-diagonal (top-right to"
    " bottom-left). An empty grid gives (0, 0).",
    "Given an n-by-n matrix grid, add up the elements grid[i][i] and, separately, the elements"
    " grid[i][n - 1 - i], and return both totals as a pair in that order. The centre element of an"
    " odd-sized matrix belongs to both diagonals.",
    examples=[([[1, 2, 3], [4, 5, 6], [7, 8, 9]],)],
    tests=[([],), ([[4]],), ([[1, 2], [3, 4]],), ([[0, 0, 5], [0, 1, 0], [2, 0, 0]],),
           ([[1, 0, 0, 2], [0, 3, 4, 0], [0, 5, 6, 0], [7, 0, 0, 8]],)],
)
def diagonal_sums(grid: list[list[int]]) -> tuple[int, int]:
    n = len(grid)
    main = sum(grid[i][i] for i in range(n))
    anti = sum(grid[i][n - 1 - i] for i in range(n))
    return (main, anti)


@FAMILY.problem(
    "Return the positions (row, column) of every cell of `grid` whose string equals `target`"
    " when upper/lower case is ignored, as a list of tuples in row-major order (row by row, left to"
    " right within a row). Rows may have different lengths. Return [] if target does not occur.",
    "Given a seating chart grid (a list of rows, possibly of different lengths) and a name target,"
    " list the (row, seat) coordinates of every seat holding that name, compared case-insensitively"
    " ('Bo' matches 'bO'), scanning the rows from top to bottom and each row from left to right.",
    examples=[([["ann", "Bo"], ["bo", "cy", "BO"]], "bo")],
    tests=[([], "x"), ([[]], "x"), ([["x"]], "x"), ([["a", "b"], ["c"]], "z"),
           ([["q", "q"], ["q"], [], ["r", "q"]], "q"), ([["Bo", "bob", "bO"]], "BO"), ([["Al", "al"]], "al")],
)
def find_cells(grid: list[list[str]], target: str) -> list[tuple[int, int]]:
    key = target.lower()
    return [(r, c) for r, row in enumerate(grid) for c, value in enumerate(row) if value.lower() == key]


@FAMILY.problem(
    "Compute one step of Conway's Game of Life on the 0/1 grid `grid`, which wraps around like a"
    " torus: the row above the first row is the last row and the column left of the first column"
    " is the last column (grid has at least 3 rows and 3 columns). A live cell (1) with 2 or 3 live"
    " neighbours among its 8 surrounding cells stays alive, otherwise it dies; a dead cell (0) with"
    " exactly 3 live neighbours becomes alive. Return the new grid without modifying the input.",
    "Given a rectangular grid of 0s (dead) and 1s (alive), at least 3 by 3, whose edges are glued"
    " together (moving off the right edge re-enters on the left, off the bottom re-enters at the"
    " top), return the next Game of Life generation: a living cell survives only with two or three"
    " living cells among its eight wrapped-around neighbours, and an empty cell is born with exactly"
    " three. All cells update simultaneously.",
    examples=[([[0, 0, 0, 0], [0, 1, 1, 1], [0, 0, 0, 0]],)],
    tests=[([[0, 0, 0], [0, 1, 0], [0, 0, 0]],), ([[1, 0, 0], [0, 0, 0], [0, 0, 1]],),
           ([[1, 1, 1], [1, 1, 1], [1, 1, 1]],), ([[1, 1, 0], [1, 0, 0], [0, 0, 0]],),
           ([[0, 0, 1, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]],),
           ([[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]],),
           ([[0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 0, 0, 0, 1]],)],
)
def life_step_torus(grid: list[list[int]]) -> list[list[int]]:
    rows, cols = len(grid), len(grid[0])
    out = []
    for r in range(rows):
        new_row = []
        for c in range(cols):
            n = sum(grid[(r + dr) % rows][(c + dc) % cols] for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if dr or dc)
            new_row.append(1 if n == 3 or (grid[r][c] == 1 and n == 2) else 0)
        out.append(new_row)
    return out


@FAMILY.problem(
    "Return the positions (row, column) of the cells of `grid` whose value is strictly greater than"
    " each of their up-to-four horizontal and vertical neighbours (neighbours outside the grid do not"
    " exist). List them in row-major order.",
    "A height map is given as a rectangular grid of integers. A peak is a cell higher than every"
    " cell directly above, below, left or right of it that lies inside the map (diagonals do not"
    " matter; equal heights are not peaks). Return the (row, col) of all peaks, scanning row by row"
    " from the top-left.",
    examples=[([[1, 4, 1], [2, 1, 3], [5, 2, 1]],)],
    tests=[([[7]],), ([[2, 2], [2, 2]],), ([[1, 2, 3, 4]],), ([[9], [1], [8]],),
           ([[5, 1, 5], [1, 5, 1], [5, 1, 5]],), ([[3, 3, 1], [0, 2, 4], [6, 1, 4]],)],
)
def grid_peaks(grid: list[list[int]]) -> list[tuple[int, int]]:
    peaks = []
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            ok = True
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < len(grid) and 0 <= nc < len(grid[r]) and grid[nr][nc] >= grid[r][c]:
                    ok = False
            if ok:
                peaks.append((r, c))
    return peaks


@FAMILY.problem(
    "Multiply the matrices `a` (n rows, m columns) and `b` (m rows, p columns) and return the n-by-p"
    " product, where entry (i, j) is the sum over k of a[i][k] * b[k][j]. If the number of columns"
    " of a differs from the number of rows of b, return None.",
    "Given two integer matrices a and b as lists of rows, compute their matrix product a x b."
    " Each result entry (i, j) pairs row i of a with column j of b, multiplying element by element"
    " and adding. When the shapes do not fit (columns of a != rows of b) the answer is None.",
    examples=[([[1, 2], [3, 4]], [[5, 6], [7, 8]])],
    tests=[([[2]], [[3]]), ([[1, 2, 3]], [[1], [2], [3]]), ([[1], [2]], [[3, 4]]), ([[1, 2]], [[1, 2]]),
           ([[1, 0, -1], [2, 1, 0]], [[1, 2], [0, 1], [3, -1]]), ([[0, 0], [0, 0]], [[5, 6], [7, 8]])],
)
def matrix_product(a: list[list[int]], b: list[list[int]]) -> list[list[int]] | None:
    if len(a[0]) != len(b):
        return None
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


@FAMILY.problem(
    "Return the index of the row of `grid` with the largest sum. If several rows tie, return the"
    " smallest such index. Rows may have different lengths (an empty row sums to 0). Return -1 for"
    " a grid with no rows.",
    "Each row of grid lists one team's scores. Find the team (row index) with the highest total"
    " score; on a tie the earlier team wins, and with no teams at all the answer is -1.",
    examples=[([[1, 2], [5], [3, 0]],)],
    tests=[([],), ([[]],), ([[-1], [-2]],), ([[2, 2], [4], [1, 3]],), ([[0], [1, -1, 5], [], [6, -1]],),
           ([[-5, -5], [], [-1]],)],
)
def best_row(grid: list[list[int]]) -> int:
    best = -1
    best_sum = 0
    for i, row in enumerate(grid):
        total = sum(row)
        if best == -1 or total > best_sum:
            best, best_sum = i, total
    return best


@FAMILY.problem(
    "Return the sum of the cells on the border of the rectangular matrix `grid` (first and last"
    " row, first and last column), counting every cell once even where a row and a column meet."
    " An empty grid gives 0.",
    "A picture frame is the outermost ring of cells of a grid of integers. Add up the values in"
    " the frame, each cell only once; a grid with a single row or column is all frame.",
    examples=[([[1, 2, 3], [4, 5, 6], [7, 8, 9]],)],
    tests=[([],), ([[5]],), ([[1, 2, 3]],), ([[1], [2], [3]],), ([[1, 1], [1, 1]],),
           ([[1, 2, 3, 4], [5, 100, 100, 6], [7, 100, 100, 8], [9, 10, 11, 12]],)],
)
def border_sum(grid: list[list[int]]) -> int:
    total = 0
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if r == 0 or r == len(grid) - 1 or c == 0 or c == len(row) - 1:
                total += value
    return total


@FAMILY.problem(
    "Read the matrix `grid` in snake order and return the values as one list: row 0 from left to"
    " right, row 1 from right to left, row 2 from left to right again, and so on. An empty grid"
    " gives [].",
    "A lawn mower crosses a field given as rows of numbers, going left to right on the first row,"
    " turning back right to left on the second, and alternating like that. Return the numbers in"
    " the order the mower passes them.",
    examples=[([[1, 2, 3], [4, 5, 6], [7, 8, 9]],)],
    tests=[([],), ([[1, 2]],), ([[1], [2], [3]],), ([[1, 2], [3, 4], [5, 6], [7, 8]],), ([[9, 8, 7], [], [1, 2]],)],
)
def snake_order(grid: list[list[int]]) -> list[int]:
    out = []
    for r, row in enumerate(grid):
        out += row if r % 2 == 0 else row[::-1]
    return out


@FAMILY.problem(
    "Return the positions (row, column) of the cells of `grid` whose value is the smallest in"
    " their row (ties allowed) and at the same time the largest in their column (ties allowed), as"
    " a list of tuples in row-major order. Return [] if there is none.",
    "Given a rectangular matrix grid of integers that may repeat, find its saddle cells: a cell"
    " whose value is no greater than any value in its row and no smaller than any value in its"
    " column. List their (row, col) coordinates scanning row by row, left to right; [] when no cell"
    " qualifies.",
    examples=[([[3, 7, 8], [9, 11, 13], [15, 16, 17]],), ([[2, 2], [2, 2]],)],
    tests=[([[5]],), ([[1, 2], [3, 4]],), ([[1, 10, 4, 2], [9, 3, 8, 7], [15, 16, 17, 12]],),
           ([[7, 8], [1, 2]],), ([[2, 1], [4, 3]],), ([[4, 9], [10, 2]],), ([[1, 1], [0, 5]],),
           ([[3, 3, 4], [3, 3, 5], [1, 2, 3]],)],
)
def saddle_cells(grid: list[list[int]]) -> list[tuple[int, int]]:
    out = []
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if value == min(row) and value == max(g[c] for g in grid):
                out.append((r, c))
    return out


@FAMILY.problem(
    "Reshape the flat list `values` into a matrix with `rows` rows and `cols` columns, filling it"
    " row by row. If rows * cols is not equal to the length of values, return an empty list.",
    "Given a list of numbers values and a target shape rows x cols (both at least 1), lay the"
    " numbers out row after row into that shape and return the list of rows. A shape that does not"
    " hold exactly len(values) numbers gives [].",
    examples=[([1, 2, 3, 4, 5, 6], 2, 3), ([1, 2, 3], 2, 2)],
    tests=[([], 1, 1), ([7], 1, 1), ([1, 2, 3, 4], 4, 1), ([1, 2, 3, 4], 1, 4), ([1, 2, 3, 4, 5, 6], 3, 2),
           ([1, 2, 3, 4, 5, 6], 4, 2), ([1, 2, 3, 4, 5], 2, 2)],
)
def reshape(values: list[int], rows: int, cols: int) -> list[list[int]]:
    if rows * cols != len(values):
        return []
    return [values[r * cols:(r + 1) * cols] for r in range(rows)]


@FAMILY.problem(
    "`board` is a Minesweeper board given as a list of equal-length strings of '*' (mine) and '.'"
    " (empty). Return a new board of the same shape where each '.' is replaced by the digit"
    " counting the mines among its up to 8 neighbours, or by '.' if that count is 0; mines stay '*'.",
    "Given rows of a minefield board, each character being '*' for a mine or '.' for a safe"
    " square, annotate every safe square with the number of adjacent mines (horizontally,"
    " vertically or diagonally). Squares with no adjacent mines remain '.', mines remain '*'."
    " Return the annotated rows as a list of strings.",
    examples=[(["*..", "...", "..*"],)],
    tests=[(["."],), (["*"],), (["***", "*.*", "***"],), (["....", "...."],), ([".*.*."],), (["*", ".", "*"],),
           (["..*.", "*...", "...*"],)],
)
def annotate_mines(board: list[str]) -> list[str]:
    out = []
    for r, row in enumerate(board):
        line = ""
        for c, ch in enumerate(row):
            if ch == "*":
                line += "*"
                continue
            n = 0
            for i in range(max(0, r - 1), min(len(board), r + 2)):
                for j in range(max(0, c - 1), min(len(row), c + 2)):
                    n += board[i][j] == "*"
            line += str(n) if n else "."
        out.append(line)
    return out


@FAMILY.problem(
    "Return a list with one number per row of `grid`: the largest value of the row minus its"
    " smallest value. An empty row gives 0.",
    "For every row of the matrix grid, compute how far apart its biggest and smallest numbers are"
    " (max minus min) and return these spreads in row order; a row with no numbers has spread 0.",
    examples=[([[3, 9, 4], [5, 5], [-2, 6]],)],
    tests=[([],), ([[]],), ([[7]],), ([[1, 2, 3], [10, -10]],), ([[4, 4, 4], [], [0, -3, 8, 1]],),
           ([[-5, -9], [2]],)],
    level=1,
)
def row_spreads(grid: list[list[int]]) -> list[int]:
    return [max(row) - min(row) if row else 0 for row in grid]


@FAMILY.problem(
    "Return column `col` of `grid` read from the bottom row up to the top row. Rows too short to"
    " have that column are skipped.",
    "Given a matrix grid (a list of rows, maybe of different lengths) and a column index col, list"
    " the values in that column starting from the last row and ending with the first row, leaving"
    " out rows that have no cell at index col. A grid with no rows gives [].",
    examples=[([[1, 2], [3, 4], [5, 6]], 1), ([[1, 2], [3], [5, 6]], 1)],
    tests=[([], 0), ([[8]], 0), ([[1, 2, 3]], 2), ([[1, 2], [3, 4], [5, 6]], 0), ([[9, 0], [7], [5, 2], [], [3, 3]], 1),
           ([[1], [2, 3], [4]], 1)],
    level=1,
)
def column_bottom_up(grid: list[list[int]], col: int) -> list[int]:
    return [row[col] for row in reversed(grid) if col < len(row)]


@FAMILY.problem(
    "Return the strictly positive values of `grid`, read row by row from left to right, as one flat"
    " list. Zeros and negative values are left out.",
    "Walk through the matrix grid row after row, left to right, and collect every number greater"
    " than 0 into a single list. Return [] if there is none.",
    examples=[([[3, -1, 0], [0, 5], [2]],)],
    tests=[([],), ([[]],), ([[0, -2], [-7]],), ([[1]],), ([[4, 0, 4], [-4, 6], [], [1, 2]],)],
    level=1,
)
def positive_cells(grid: list[list[int]]) -> list[int]:
    return [value for row in grid for value in row if value > 0]


@FAMILY.problem(
    "Return an n-by-n matrix with `value` on the main diagonal (row index equal to column index)"
    " and 0 everywhere else. For n = 0 return [].",
    "Build a square grid of n rows and n columns filled with zeros, except that the cells from the"
    " top-left corner to the bottom-right corner hold value. Return it as a list of rows.",
    examples=[(3, 7)],
    tests=[(0, 5), (1, 9), (2, -1), (4, 2), (3, 0)],
    level=1,
)
def diagonal_matrix(n: int, value: int) -> list[list[int]]:
    return [[value if r == c else 0 for c in range(n)] for r in range(n)]


@FAMILY.problem(
    "Return how many rows of `grid` contain only zeros. An empty row counts as such a row.",
    "Count the rows of the matrix grid in which no cell is different from 0 (a row with no cells"
    " at all also counts). Return 0 for a grid with no rows.",
    examples=[([[0, 0], [0, 3], [0, 0]],)],
    tests=[([],), ([[]],), ([[1]],), ([[0]],), ([[0, 0, 0], [-1, 0, 0], [0, 0, 2], [0]],), ([[5, 5], [0, 0]],)],
    level=1,
)
def zero_rows(grid: list[list[int]]) -> int:
    return sum(1 for row in grid if not any(row))


@FAMILY.problem(
    "Return the index of the first row of `grid` that contains `target`, or -1 if no row"
    " contains it.",
    "Scan the rows of the matrix grid from top to bottom and report the position (0-based) of the"
    " earliest row holding the number target. When target is nowhere in grid, the answer is -1.",
    examples=[([[1, 2], [3, 4], [4, 5]], 4)],
    tests=[([], 1), ([[1]], 1), ([[1, 2], [3]], 9), ([[0], [], [7, 7], [7]], 7), ([[5, 6], [6, 5]], 5),
           ([[2], [3], [1]], 1)],
    level=1,
)
def first_row_containing(grid: list[list[int]], target: int) -> int:
    for i, row in enumerate(grid):
        if target in row:
            return i
    return -1
