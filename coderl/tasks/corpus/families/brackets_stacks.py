from coderl.tasks.corpus.define import Family, Scenario

FAMILY = Family("brackets_stacks", "stack-based processing: bracket matching, nesting, undo logs, paths")


@FAMILY.problem(
    "Return True if the brackets in `text` are balanced. Four kinds count: (), [], {} and <>;"
    " every closing bracket must match the most recent unclosed opening bracket of the same"
    " kind, and none may be left open. All other characters are ignored.",
    "Given text (for example a snippet of generic code like \"Map<K, List[V]>\"), check its"
    " brackets. Round, square, curly and angle brackets must each close in the reverse order they"
    " were opened, with matching kinds, and nothing may remain open at the end. Characters that"
    " are not brackets do not matter. Return a bool.",
    examples=[("Map<K, List[V]>",), ("(]",)],
    tests=[("",), ("abc",), ("<{[()]}>",), ("((",), ("())",), ("[<]>",), ("f(x) {a[0] > b}",),
           ("{}<>",)],
)
def brackets_balanced(text: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{", ">": "<"}
    stack = []
    for ch in text:
        if ch in "([{<":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack


@FAMILY.problem(
    "Return the maximum nesting depth of the parentheses in `text`, or -1 if they are unbalanced"
    " (a `)` without an open `(` before it, or a `(` never closed). Only ( and ) matter; text with"
    " no parentheses has depth 0.",
    "Given text, find how deeply its round brackets nest: \"a(b(c))\" has depth 2. Scan left to"
    " right tracking the number of open parentheses and report the largest value reached. If the"
    " count ever drops below zero or is not zero at the end, return -1 instead.",
    examples=[("a(b(c))",), ("(()",)],
    tests=[("",), ("xyz",), ("()()()",), ("(()(()))",), (")(",), ("((a)",), ("(x)(((y)))z",)],
)
def max_paren_depth(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch == "(":
            depth += 1
            best = max(best, depth)
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return -1
    return best if depth == 0 else -1


@FAMILY.problem(
    "Find where the brackets of `text` first go wrong. Kinds are (), [] and {}; other characters"
    " are ignored. Return the index of the first closing bracket that has no matching open"
    " bracket or closes the wrong kind; if every closing bracket is fine but some brackets stay"
    " open, return len(text); if the text is balanced, return -1.",
    "An editor highlights the first bracket error in text. Scan it with a stack of open (, [ and"
    " {. At the first closing bracket that does not match the top of the stack (or meets an empty"
    " stack), return its index. If the scan ends with brackets still open, the error is at the"
    " end, so return the length of text. A balanced text returns -1.",
    examples=[("{[(])}",), ("([]",)],
    tests=[("",), ("()",), (")",), ("a{b}c]",), ("((((",), ("[x](y){z}",), ("{(})",)],
)
def first_bracket_error(text: str) -> int:
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for i, ch in enumerate(text):
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack[-1] != pairs[ch]:
                return i
            stack.pop()
    return len(text) if stack else -1


@FAMILY.problem(
    "Return the smallest number of parentheses that must be inserted into `text` to make its ("
    " and ) balanced. Other characters are ignored.",
    "Given text, count how many `(` or `)` characters you would have to add (anywhere) so that"
    " every parenthesis is matched: each `)` with no open `(` before it needs one `(`, and each"
    " `(` left open at the end needs one `)`. Return that count; a text without parentheses"
    " needs 0.",
    examples=[("())(",), ("(a(b)",)],
    tests=[("",), ("abc",), ("()",), ("(((",), (")))(((",), ("())(()",), (")a(b)c(",)],
)
def parens_to_insert(text: str) -> int:
    open_count = missing = 0
    for ch in text:
        if ch == "(":
            open_count += 1
        elif ch == ")":
            if open_count:
                open_count -= 1
            else:
                missing += 1
    return open_count + missing


@FAMILY.problem(
    "Simplify the Unix-style `path`. Split it on `/`, ignore empty parts and `.`, and let `..`"
    " remove the previous directory. For an absolute path (starting with `/`) a `..` at the root"
    " is dropped and the result starts with `/` (the root alone is \"/\"). For a relative path,"
    " `..` that cannot cancel anything is kept at the front, and an empty result is \".\".",
    "Given path, return its canonical form: collapse repeated slashes, drop `.` components,"
    " cancel each `..` against the directory before it, and remove any trailing slash. Absolute"
    " paths begin with \"/\" and cannot go above the root (\"/..\" is \"/\"). Relative paths keep"
    " leading `..` components that have nothing to cancel (\"../a\" stays \"../a\"), and become"
    " \".\" when nothing is left.",
    examples=[("/usr//local/./bin/../lib/",), ("a/../../b",)],
    tests=[("/",), ("/../..",), ("",), ("./.",), ("x/y/../../..",), ("/a/b/c/../../d",),
           ("../../x/./y/",), ("a/b/..",), ("../a/..",)],
)
def simplify_path(path: str) -> str:
    absolute = path.startswith("/")
    stack = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack and stack[-1] != "..":
                stack.pop()
            elif not absolute:
                stack.append("..")
        else:
            stack.append(part)
    if absolute:
        return "/" + "/".join(stack)
    return "/".join(stack) or "."


@FAMILY.problem(
    "Replay the editor commands in `commands` and return the final text, starting from \"\"."
    " \"type X\" appends the text X (everything after the first space); \"undo\" reverts the most"
    " recent type that has not been undone; \"redo\" re-applies the most recently undone type. A"
    " new type clears everything that could be redone. undo or redo with nothing to act on does"
    " nothing.",
    "Given a list of commands for a minimal text editor, return what the document contains at"
    " the end. Commands are \"type <text>\" (append text, which may contain spaces), \"undo\" and"
    " \"redo\". Undo and redo work like in any editor: undo steps back one typing action, redo"
    " steps forward again, typing after an undo discards the redo history, and an undo or redo"
    " that has nothing to act on is ignored.",
    examples=[(["type ab", "type cd", "undo", "type e"],), (["type x", "undo", "redo", "redo"],)],
    tests=[([],), (["undo", "redo"],), (["type hello world"],), (["type a", "type b", "undo", "undo", "redo"],),
           (["type a", "undo", "type b", "redo"],), (["type 1", "type 2", "type 3", "undo", "undo", "undo", "undo",
                                                      "redo", "redo"],)],
)
def replay_editor(commands: list[str]) -> str:
    done = []
    undone = []
    for command in commands:
        if command.startswith("type "):
            done.append(command[5:])
            undone.clear()
        elif command == "undo" and done:
            undone.append(done.pop())
        elif command == "redo" and undone:
            done.append(undone.pop())
    return "".join(done)


@FAMILY.class_problem(
    "Implement `BrowserHistory`, created with a `homepage`. `visit(url)` opens url after the"
    " current page and discards all forward history; `back(steps)` moves back at most steps pages"
    " and `forward(steps)` moves forward at most steps pages, each returning the page it ends on;"
    " `current()` returns the current page.",
    "A browser tab starts on homepage. Write the class BrowserHistory with: visit(url), which"
    " goes to url and forgets any pages you could have gone forward to; back(steps) and"
    " forward(steps), which move through the history by up to steps pages (stopping at the first"
    " or last page) and return the page reached; and current(), which returns the page shown.",
    examples=[Scenario(("home",), (("visit", "a"), ("visit", "b"), ("back", 1), ("current",),
                                   ("forward", 5)))],
    tests=[
        Scenario(("start",), (("current",), ("back", 3), ("forward", 1))),
        Scenario(("h",), (("visit", "x"), ("visit", "y"), ("visit", "z"), ("back", 2), ("visit", "w"),
                          ("forward", 1), ("back", 1), ("current",))),
        Scenario(("h",), (("visit", "p"), ("back", 10), ("forward", 10), ("current",))),
        Scenario(("h",), (("visit", "a"), ("visit", "b"), ("visit", "c"), ("back", 1), ("back", 1),
                          ("forward", 1), ("current",))),
        Scenario(("q",), (("visit", "r"), ("back", 0), ("back", 1), ("current",))),
    ],
    queries=("back", "forward", "current"),
)
class BrowserHistory:
    def __init__(self, homepage: str):
        self.pages = [homepage]
        self.pos = 0

    def visit(self, url: str) -> None:
        self.pages = self.pages[: self.pos + 1] + [url]
        self.pos += 1

    def back(self, steps: int) -> str:
        self.pos = max(0, self.pos - steps)
        return self.pages[self.pos]

    def forward(self, steps: int) -> str:
        self.pos = min(len(self.pages) - 1, self.pos + steps)
        return self.pages[self.pos]

    def current(self) -> str:
        return self.pages[self.pos]


@FAMILY.problem(
    "Reduce the polymer `units`: whenever two adjacent characters are the same letter in"
    " opposite cases (like \"aA\" or \"Bb\"), both are removed, and this repeats until no such"
    " pair remains. Return the final string. Two equal characters (\"aa\") do not react.",
    "In a chemistry simulation each letter is a unit and its case is its polarity. Given units,"
    " repeatedly delete any neighbouring pair formed by a lower-case and an upper-case copy of"
    " the same letter, until none is left, and return what remains. Same-case pairs and pairs of"
    " different letters stay.",
    examples=[("kaBbAcDdCq",), ("abBA",)],
    tests=[("",), ("aA",), ("aa",), ("aB",), ("abcCBx",), ("XxYyZz",), ("AbBaCDdcEe",), ("Bcc",)],
)
def react_polymer(units: str) -> str:
    stack = []
    for ch in units:
        if stack and stack[-1] != ch and stack[-1].lower() == ch.lower():
            stack.pop()
        else:
            stack.append(ch)
    return "".join(stack)


@FAMILY.problem(
    "Return the pairs of matching parentheses in `text` as (open_index, close_index) tuples,"
    " sorted by open_index. A `)` with no unmatched `(` before it is ignored, and a `(` that is"
    " never closed does not appear.",
    "Given text, pair each `)` with the nearest unmatched `(` to its left and report every pair"
    " as a tuple of their positions, listed in increasing order of the opening position. Stray"
    " closing parentheses and parentheses left open are left out of the result.",
    examples=[("(a(b)c)",), ("())(",)],
    tests=[("",), ("no parens",), ("()()",), ("((()))",), (")(",), ("(x(y)(z)",),
           ("a)(b)c(",)],
)
def paren_pairs(text: str) -> list[tuple[int, int]]:
    stack = []
    pairs = []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            pairs.append((stack.pop(), i))
    return sorted(pairs)


@FAMILY.problem(
    "Expand the repetition syntax in `pattern`: a group in parentheses followed by a decimal"
    " count repeats its contents that many times, so \"a(bc)3\" is \"abcbcbc\". Groups can nest"
    " and counts can have several digits; a group with no count after it appears once, and"
    " letters outside groups are copied as they are.",
    "Given pattern, built from letters and groups like \"(ab)2\" (the group's content written"
    " count times), return the fully expanded string. Nested groups are expanded from the inside"
    " out, e.g. \"(a(b)2)2\" is \"abbabb\"; a count may be 0 or have several digits, and a group"
    " without a count is used once.",
    examples=[("a(bc)3",), ("(a(b)2)2",)],
    tests=[("",), ("xyz",), ("(q)10",), ("(ab)0c",), ("(x)",), ("z(y(x)3w)2v",), ("((a)2(b)3)2",)],
)
def expand_groups(pattern: str) -> str:
    stack = [""]
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        i += 1
        if ch == "(":
            stack.append("")
        elif ch == ")":
            j = i
            while j < len(pattern) and pattern[j].isdigit():
                j += 1
            count = int(pattern[i:j]) if j > i else 1
            group = stack.pop()
            stack[-1] += group * count
            i = j
        else:
            stack[-1] += ch
    return stack[0]


@FAMILY.problem(
    "Evaluate `expr`, made of non-negative integers, the operators + and -, and parentheses"
    " (spaces may appear anywhere and are ignored). There is no unary minus and no other"
    " operator. Return the integer result.",
    "Given expr such as \"10 - (4 - (1 + 2))\" that uses only whole numbers, binary plus and"
    " minus and round brackets, compute its value. Operators of equal precedence go from left to"
    " right, brackets are evaluated first, and whitespace has no meaning.",
    examples=[("10 - (4 - (1 + 2))",), ("1-2-3",)],
    tests=[("42",), ("(7)",), ("5-(3-1)",), ("(1+2)-(3+4)",), ("100 - (20 + (5 - 1)) - 6",),
           ("2-((3))+10",)],
)
def eval_plus_minus(expr: str) -> int:
    stack = []
    result, sign, number = 0, 1, 0
    for ch in expr:
        if ch.isdigit():
            number = number * 10 + int(ch)
        elif ch in "+-":
            result += sign * number
            number = 0
            sign = 1 if ch == "+" else -1
        elif ch == "(":
            stack.append((result, sign))
            result, sign = 0, 1
        elif ch == ")":
            result += sign * number
            number = 0
            outer, outer_sign = stack.pop()
            result = outer + outer_sign * result
    return result + sign * number


@FAMILY.problem(
    "For each position in `prices`, return the index of the next position to its right with a"
    " strictly higher price, or -1 if there is none. The result has the same length as prices.",
    "A trader wants to know, for every day of the list prices, on which later day the price is"
    " first strictly greater than that day's price. Return a list holding that day's index for"
    " each day, or -1 where the price never rises above it. Equal prices do not count as higher.",
    examples=[([3, 1, 4, 1, 5],)],
    tests=[([],), ([7],), ([5, 5, 5],), ([1, 2, 3],), ([3, 2, 1],), ([2, 7, 3, 3, 8, 1, 9],),
           ([-1, -3, -2, 0],)],
)
def next_higher_index(prices: list[int]) -> list[int]:
    result = [-1] * len(prices)
    stack = []
    for i, price in enumerate(prices):
        while stack and prices[stack[-1]] < price:
            result[stack.pop()] = i
        stack.append(i)
    return result


@FAMILY.problem(
    "Return True if the tags in the markup `html` are properly nested. A tag is text between `<`"
    " and the next `>`: `<name>` opens, `</name>` closes the most recently opened tag (names must"
    " match, case-sensitively), and a tag ending in `/>` (like `<br/>`) is self-closing and"
    " ignored. All tags must be closed at the end; text outside tags does not matter. Every `<`"
    " has a later `>`.",
    "Given html, check its tag structure with a stack: an opening tag <b> pushes its name, a"
    " closing tag </b> must match and pop the innermost open tag, and a self-closing tag such as"
    " <img/> has no effect. Tag names are compared exactly. Return False on a mismatch, a closing"
    " tag with nothing open, or tags left open; otherwise True. You may assume each `<` is"
    " eventually followed by a `>`.",
    examples=[("<p>Hi <b>there</b><br/></p>",), ("<i><b>x</i></b>",)],
    tests=[("",), ("just text",), ("<a>",), ("</a>",), ("<a></A>",), ("<ul><li>1</li><li>2</li></ul>",),
           ("<hr/><p></p>",), ("<a><b></b></a></a>",), ("<i>a</i>",)],
)
def tags_well_nested(html: str) -> bool:
    stack = []
    i = html.find("<")
    while i != -1:
        j = html.find(">", i)
        tag = html[i + 1:j]
        if not tag.endswith("/"):
            if tag.startswith("/"):
                if not stack or stack.pop() != tag[1:]:
                    return False
            else:
                stack.append(tag)
        i = html.find("<", j)
    return not stack


@FAMILY.problem(
    "Replay the inventory log `entries` and return the final items, sorted alphabetically."
    " \"add X\" puts item X in (if already present nothing changes), \"remove X\" takes it out (if"
    " absent nothing changes), and \"undo\" cancels the most recent add or remove that has not"
    " been undone yet, restoring the inventory to what it was before it. An undo with nothing"
    " left to cancel does nothing.",
    "A warehouse log records lines like \"add bolts\", \"remove nuts\" and \"undo\". Each undo"
    " reverses the latest not-yet-undone add/remove, putting the inventory back exactly as it"
    " was before that entry (even if the entry changed nothing). Given entries, return the set of"
    " items in the inventory at the end as a sorted list.",
    examples=[(["add nuts", "add bolts", "remove nuts", "undo"],)],
    tests=[([],), (["undo", "add a"],), (["add a", "add a", "undo"],), (["add x", "undo", "undo"],),
           (["add b", "add a", "remove b", "remove c", "undo", "undo"],), (["add hex bolts", "add nut"],),
           (["remove q", "add q", "add r", "undo", "undo", "undo", "add s"],)],
)
def replay_inventory(entries: list[str]) -> list[str]:
    items = set()
    history = []
    for entry in entries:
        if entry == "undo":
            if history:
                items = history.pop()
            continue
        action, name = entry.split(" ", 1)
        history.append(set(items))
        if action == "add":
            items.add(name)
        else:
            items.discard(name)
    return sorted(items)


@FAMILY.class_problem(
    "Implement `TextBuffer`, a text editor buffer that starts empty. `write(s)` appends s;"
    " `delete(n)` removes the last n characters (all of them if fewer than n remain); `undo()`"
    " reverts the most recent write or delete not yet undone (doing nothing if there is none);"
    " `text()` returns the current contents.",
    "Write a class TextBuffer for an editor with undo. It starts with no text. write(s) adds s at"
    " the end, delete(n) erases up to n characters from the end, undo() restores the text to what"
    " it was before the latest write or delete that has not already been undone (and is ignored"
    " when there is nothing to undo), and text() returns the text.",
    examples=[Scenario((), (("write", "hello"), ("delete", 2), ("text",), ("undo",), ("text",)))],
    tests=[
        Scenario((), (("text",), ("undo",), ("text",))),
        Scenario((), (("write", "ab"), ("write", "cd"), ("undo",), ("text",), ("undo",), ("text",))),
        Scenario((), (("write", "abc"), ("delete", 10), ("text",), ("undo",), ("text",))),
        Scenario((), (("write", "x"), ("delete", 0), ("undo",), ("text",), ("write", "yz"), ("delete", 1),
                      ("text",))),
        Scenario((), (("write", "one"), ("write", " two"), ("delete", 3), ("undo",), ("undo",), ("undo",),
                      ("undo",), ("text",))),
    ],
    queries=("text",),
)
class TextBuffer:
    def __init__(self):
        self.content = ""
        self.history = []

    def write(self, s: str) -> None:
        self.history.append(self.content)
        self.content += s

    def delete(self, n: int) -> None:
        self.history.append(self.content)
        self.content = self.content[: max(0, len(self.content) - n)]

    def undo(self) -> None:
        if self.history:
            self.content = self.history.pop()

    def text(self) -> str:
        return self.content


@FAMILY.problem(
    "Return `text` with every bracket character ( ) [ ] { } removed; all other characters stay in"
    " their original order.",
    "Given text, delete each round, square and curly bracket from it and return what is left; a"
    " string with no brackets comes back unchanged.",
    examples=[("f(a[1]) {x}",), ("plain",)],
    tests=[("",), ("()[]{}",), ("<a>",), ("((x))",), ("a{b}c[d]e(f)",)],
    level=1,
)
def strip_brackets(text: str) -> str:
    out = ""
    for c in text:
        if c not in "()[]{}":
            out += c
    return out


@FAMILY.problem(
    "Return True if `text` is at least two characters long, starts with '(' and ends with ')'."
    " Otherwise return False.",
    "Given text, check whether its first character is an opening parenthesis and its last"
    " character a closing one; strings shorter than 2 characters never qualify.",
    examples=[("(a + b)",), ("a + b)",)],
    tests=[("",), ("(",), ("()",), (")(",), ("(x",), ("[x]",), ("(a)(b)",)],
    level=1,
)
def is_parenthesised(text: str) -> bool:
    return len(text) >= 2 and text[0] == "(" and text[-1] == ")"


@FAMILY.problem(
    "Return the number of '(' characters in `text` minus the number of ')' characters; the result"
    " is negative when closing parentheses outnumber opening ones.",
    "Given text, count how many more opening parentheses than closing parentheses it has (other"
    " characters, including [ ] and { }, are ignored).",
    examples=[("((a)",), ("x))",)],
    tests=[("",), ("()",), ("(((",), (")",), ("[(])",), ("(a(b)c)d)",)],
    level=1,
)
def paren_surplus(text: str) -> int:
    return text.count("(") - text.count(")")


@FAMILY.problem(
    "`opens` is a string made only of the opening brackets '(', '[' and '{'. Return the string of"
    " closing brackets that closes all of them in the right order (the last opened is closed"
    " first). For \"\" return \"\".",
    "Given a run of unclosed brackets opens such as \"([{\", produce the characters needed to close"
    " them properly, innermost first: for \"([{\" that is \"}])\".",
    examples=[("([{",), ("(",)],
    tests=[("",), ("[[",), ("{(",), ("([([",), ("{{[",)],
    level=1,
)
def closing_sequence(opens: str) -> str:
    pairs = {"(": ")", "[": "]", "{": "}"}
    return "".join(pairs[c] for c in reversed(opens))


@FAMILY.problem(
    "Return True if `text` contains an empty bracket pair, that is \"()\", \"[]\" or \"{}\" as two"
    " adjacent characters; otherwise return False.",
    "Given text, report whether somewhere in it an opening bracket is immediately followed by its"
    " own closing bracket (round, square or curly).",
    examples=[("f() + 1",), ("(a)[b]",)],
    tests=[("",), ("[]",), ("{ }",), ("x{}",), ("(]",), (")(",), ("[[a]]",)],
    level=1,
)
def has_empty_pair(text: str) -> bool:
    return any(pair in text for pair in ("()", "[]", "{}"))


@FAMILY.problem(
    "Process `ops` on an initially empty stack: a non-zero number is pushed, and 0 pops the top"
    " element (a 0 on an empty stack does nothing). Return the final stack as a list, bottom first.",
    "Given a list of integers ops, push every non-zero value onto a stack and treat each 0 as a pop"
    " that is ignored when the stack is empty. Return what remains, from bottom to top.",
    examples=[([5, 7, 0, 3],), ([0, 0],)],
    tests=[([],), ([4],), ([1, 2, 0, 0, 0, 3],), ([-1, 0, -2],), ([9, 8, 7, 0],), ([0, 6, 0, 5, 4],)],
    level=1,
)
def final_stack(ops: list[int]) -> list[int]:
    stack = []
    for op in ops:
        stack = stack + [op] if op != 0 else stack[:-1]
    return stack
