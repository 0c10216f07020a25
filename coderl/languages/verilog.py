"""Verilog (and the SystemVerilog subset Icarus Verilog reads): the language, its toolchain commands and
the build-time rejection of constructs that could reach outside the design under test.

Toolchain (Debian packages iverilog, yosys, verilator; `make setup` installs them):

    build      iverilog -g2012 -o sim -s coderl_tb coderl_tb.v design.sv   (the testbench, then the design)
    simulate   sh -c SIMULATE_SCRIPT: `sim` is opened, then it and both sources are deleted, and vvp
               reads the compiled program through a FIFO (`vvp -n sim.fifo`, the FIFO deleted too);
               the testbench prints "<nonce> <label> <bits>" per check
    synthesis  yosys: read, `synth -top <top>`, and (unless the task allows latches) no latch cell
    lint       verilator --lint-only -Wall: the quality reward counts its warnings

The design is lexed (`coderl.languages.verilog_lexer`, IEEE 1364-2005 §3) and the rules of `rejected`
run on its tokens; what the toolchain compiles is the text re-emitted from those tokens
(`checked(design)`), so no construct can read one way to the rules and another to the compiler.  A
design the lexer refuses, or one that breaks a rule, is a build error before anything runs.  The
rules: no system task or function outside `SYSTEM_TASKS` (so no `$value$plusargs`, `$fopen`,
`$readmemh`, `$system`, `$random`, ...), no `$root`/`$unit`, no name containing "coderl" (the testbench's), no
hierarchical name (a name, or `]`, then `.` then a name), no `force`, `release`, `defparam`, `bind`,
no DPI import or export, no compiler directive but those in `DIRECTIVES` (no `` `include ``, no
macro, no `` `define ``), no attribute `(* ... *)`, no case or if quality (`unique`, `unique0`,
`priority`), no 2-state type (`bit`, `byte`, `shortint`, `int`, `longint`) and no delay (`#` anywhere
but after a name, where it gives parameters).

One text for all three tools: iverilog (simulation), yosys (synthesis) and verilator (lint) must read
the same design, or the synthesis and quality rewards pay for code that was never simulated.  So
comments are gone from the re-emitted text (`// synopsys translate_off`, `/* verilator lint_off */`
mean nothing), conditional compilation is refused (a design defines no macro, so `` `ifdef `` could
only test one a tool or the testbench defines: `SYNTHESIS` and `YOSYS` for yosys, `VERILATOR` for
verilator, `__ICARUS__` for iverilog), and so are attributes (yosys obeys `full_case`,
`parallel_case`, `keep`, `blackbox`, ..., which the simulation ignores).

The nonce never reaches the design's process: it is compiled into the testbench (`testbench_source`:
the CHECK macro's text, `` `undef``-ed at the testbench's end), the simulation's command line and
environment do not hold it, and the wrapper deletes every file that holds it before vvp runs the
design; what stays is vvp's own memory (`/proc/self/mem`), which no file rule closes (docs/languages.md).
"""

from __future__ import annotations

import re

from coderl.languages import verilog_lexer as L
from coderl.languages.language import Language, register_language
from coderl.languages.runner import Runner, register_runner

TESTBENCH_FILE = "coderl_tb.v"
DESIGN_FILE = "design.sv"
SIM_FILE = "sim"
TESTBENCH_MODULE = "coderl_tb"
# `CHECK("label", expr)`: one line "<nonce> <label> <bits>", NONCE replaced per request
# (`testbench_source`).  The bundled testbenches still declare `reg [8*32-1:0] coderl_nonce;`, where the
# old CHECK read the nonce from vvp's command line; nothing needs it any more.
PRELUDE = (
    "`timescale 1ns/1ps\n"
    "`define CHECK(label, value) begin $display(\"%0s %0s %b\", \"NONCE\", label, value); end\n"
)
POSTLUDE = "\n`undef CHECK\n"  # the macro holds the nonce: gone before the design's text
BUILD = ("iverilog", "-g2012", "-o", SIM_FILE, "-s", TESTBENCH_MODULE, TESTBENCH_FILE, DESIGN_FILE)
# The simulation, through a FIFO so that vvp is the test's own process (its exit status and signals are
# the run's): a background shell opens the FIFO, then `sim`, deletes the FIFO, `sim` and both sources
# (fail-closed: `&&`) and becomes cat; vvp reads the program from the FIFO.  vvp parses the whole program
# before it runs any of it, so by the time the design runs cat has exited: no file, path, /proc/*/fd
# link, argv or environment holds the nonce.
FIFO = "sim.fifo"
SIMULATE_SCRIPT = (f"mkfifo {FIFO} || exit 1; "
                   f"{{ exec >{FIFO} && exec <{SIM_FILE} && rm -f {FIFO} {SIM_FILE} {TESTBENCH_FILE} {DESIGN_FILE} "
                   f"&& exec cat; }} & exec vvp -n {FIFO}")
SIMULATE = ("sh", "-c", SIMULATE_SCRIPT)
LATCH_CELLS = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*"
LINT_FLAGS = ("--lint-only", "-Wall", "-Wno-DECLFILENAME", "-Wno-EOFNEWLINE")
SYSTEM_TASKS = frozenset("""
$display $write $strobe $monitor $displayb $displayh $displayo $writeb $writeh $writeo $finish $time $stime
$realtime $signed $unsigned $clog2 $bits $countones $onehot $onehot0
$isunknown $error $warning $info $fatal $sformatf $high $low $left $right $size $rtoi $itor $realtobits
$bitstoreal
""".split())  # no $random, $urandom, $urandom_range: simulated as random numbers, synthesised as no value at all
# Words that make the tools read different designs (docs/languages.md, "One design for all three tools"): case
# and if qualities (yosys takes `unique`/`priority`/`unique0` as full_case/parallel_case, which the simulation
# does not keep), and the 2-state types, whose variables start at 0 in the simulation and with no value in the
# synthesised design.
QUALITIES = frozenset({"unique", "unique0", "priority"})
TWO_STATE = frozenset({"bit", "byte", "shortint", "int", "longint"})
BANNED_WORDS = ("force", "release", "defparam", "bind")
# Directives a design may use: none can build a name, read a file (no `define, `include, macro uses) or
# show one tool another design than the others (no `ifdef: see the module docstring).
DIRECTIVES = frozenset({"timescale", "default_nettype", "resetall", "celldefine", "endcelldefine"})
CONDITIONALS = frozenset({"ifdef", "ifndef", "elsif", "else", "endif"})


def testbench_source(testbench: str, nonce: str) -> str:
    """The testbench file of one run: the prelude with `nonce` in CHECK, the testbench, `undef CHECK."""
    if not re.fullmatch(r"[0-9a-f]{1,64}", nonce):
        raise ValueError(f"nonce {nonce!r}: expected hex digits")
    return PRELUDE.replace("NONCE", nonce) + testbench + POSTLUDE


def synthesis_argv(top: str, latches: bool) -> tuple[str, ...]:
    script = f"read_verilog -sv {DESIGN_FILE}; synth -top {top}"
    if not latches:
        script += f"; select -assert-none {LATCH_CELLS}"
    return ("yosys", "-q", "-p", script)


def lint_argv(top: str) -> tuple[str, ...]:
    return ("verilator", *LINT_FLAGS, "--top-module", top, DESIGN_FILE)


_COMMENTS_STRINGS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)


def _shown(tok: L.Token) -> str:
    return (tok.text.strip() if tok.kind != L.KIND_ESCAPED else "\\" + tok.name)[:60]


def broken_rule(tokens: list[L.Token]) -> str | None:
    """The first build-time rule the tokens break (one line naming the source line), or None."""
    for k, tok in enumerate(tokens):
        kind, name = tok.kind, tok.name
        where = f"line {tok.line}: "
        if kind == L.KIND_DIRECTIVE and name in CONDITIONALS:
            return where + (f"conditional compilation `{name} is not allowed: it could only test a macro a "
                            "tool defines (SYNTHESIS, VERILATOR, __ICARUS__, ...), so the tools would read "
                            "different designs")
        if kind == L.KIND_DIRECTIVE and name not in DIRECTIVES:
            return where + f"compiler directive or macro `{name} is not allowed (no macros in a design)"
        if tok.text == "(*":
            return where + ("attribute (* ... *) is not allowed: yosys obeys some (full_case, keep, ...) that the "
                            "simulation ignores, so the tools would read different designs")
        if kind in L.NAME_KINDS and "coderl" in name.lower():
            return where + "identifiers containing 'coderl' belong to the testbench"
        if kind in (L.KIND_KEYWORD, L.KIND_ESCAPED) and name in BANNED_WORDS:
            return where + f"'{name}' is not allowed"
        if kind == L.KIND_KEYWORD and name in QUALITIES:
            return where + (f"'{name}' is not allowed: yosys reads a {name} case or if as full or parallel, which the "
                            "simulation does not keep, so the tools would read different designs (cover every case "
                            "with a default instead)")
        if kind == L.KIND_KEYWORD and name in TWO_STATE:
            return where + (f"2-state type '{name}' is not allowed: its variables start at 0 in the simulation and "
                            "with no value in synthesis, so the tools would read different designs (use logic, reg "
                            "or integer)")
        if tok.text in ("#", "##") and (k == 0 or tokens[k - 1].kind not in (L.KIND_IDENTIFIER, L.KIND_ESCAPED)):
            return where + ("a delay (#) is not allowed in a design: the simulation waits, synthesis ignores it, so "
                            "the tools would read different designs (# after a module name, for parameters, is fine)")
        if kind == L.KIND_ESCAPED and name.startswith("$"):
            return where + f"escaped identifier {_shown(tok)} names a system task: not allowed"
        if kind == L.KIND_SYSTEM:
            if name in ("$root", "$unit"):
                return where + f"{name} is not allowed"
            if name not in SYSTEM_TASKS:
                return where + f"system task {name[:60]} is not allowed"
        if kind == L.KIND_KEYWORD and name in ("import", "export") and k + 1 < len(tokens) \
                and tokens[k + 1].kind == L.KIND_STRING:
            return where + "DPI imports are not allowed"
        if tok.text == "." and 0 < k < len(tokens) - 1:
            left, right = tokens[k - 1], tokens[k + 1]
            if (left.kind in L.NAME_KINDS or left.text == "]") and right.kind in L.NAME_KINDS:
                shown = "[...]" if left.text == "]" else _shown(left)
                return where + f"hierarchical reference {shown}.{_shown(right)} is not allowed"
    return None


def checked(design: str) -> tuple[str, str | None]:
    """(the text to compile, why the design is rejected or None).  The text is the design re-emitted
    from its tokens (`verilog_lexer.emit`); a design the lexer refuses keeps its own text, which never
    runs."""
    try:
        tokens = L.tokenize(design)
    except L.LexError as exc:
        return design, str(exc)
    return emit(design, tokens), broken_rule(tokens)


def rejected(design: str) -> str | None:
    """Which build-time rule the design breaks, or what its lexer refuses (one line), or None."""
    return checked(design)[1]


def parses(source: str) -> bool:
    # the source with comments and string literals blanked (each kept as one space): a cheap prose check, never a
    # rule; the rules read `verilog_lexer` tokens
    code = _COMMENTS_STRINGS.sub(" ", source)
    return re.search(r"\bmodule\b", code) is not None and re.search(r"\bendmodule\b", code) is not None


def compiles(source: str) -> bool:
    """The lexer reads it, every `module` has its `endmodule` and begin/end balance (a cheap check that
    runs nothing; the `compile` reward reads the real build)."""
    try:
        words = [t.name for t in L.tokenize(source) if t.kind == L.KIND_KEYWORD]
    except L.LexError:
        return False
    count = words.count
    return count("module") >= 1 and count("module") == count("endmodule") and count("begin") == count("end")


# Icarus Verilog's first error line ("design.sv:3: syntax error", "...: error: ...")
COMPILE_ERROR = r":\d+: (?:syntax error|error:)|^[ \t]*error:"


def prose_header(text: str) -> str:
    return "".join(f"// {line}".rstrip() + "\n" for line in text.rstrip().splitlines())


VERILOG = register_language(Language(
    name="verilog", display="Verilog", fence_tag="verilog",
    fence_tags=frozenset({"", "verilog", "systemverilog", "sv", "v"}),
    parses=parses, compiles=compiles, compile_error=COMPILE_ERROR, prose_header=prose_header,
    definition=r"module\s+NAME\b",
    completion_stops=("\n```",),
))

# The simulation's runner; synthesis and lint are further tests of the same request (`coderl.tasks.hdl`).
ICARUS = register_runner(Runner(
    language="verilog", source_file=DESIGN_FILE, run=SIMULATE, build=BUILD, judge="hardware",
    binaries=("iverilog", "vvp", "yosys", "verilator"),
    install="apt-get install --no-install-recommends iverilog yosys verilator",
))


# ---- the text the toolchain compiles ----------------------------------------------------------------
# Each token's canonical text (`verilog_lexer.Token.text`: escaped identifiers whose names are plain written
# plain, the others `\name ` with the terminating space; strings in printable ASCII with octal escapes, a
# backtick and `*` included; based literals without inner blanks), and white space between every two
# tokens unless the source wrote them adjacent and nothing can merge them (`_may_touch`), so that no lexer
# can join or split them differently.  Comments become blanks and their newlines are kept, so line numbers
# in the toolchain's messages stay right.
def emit(source: str, tokens: list[L.Token]) -> str:
    """The text to compile: each token's canonical text, separated by white space.  Between two tokens
    the source's newlines are kept (comments turn into blanks), with the indentation of the next line;
    a gap without a newline becomes one space, or the same blanks where it held only spaces and tabs."""
    out = []
    pos = 0
    prev = None
    for tok in tokens:
        gap = source[pos:tok.start]
        if prev is None:
            out.append(_gap(gap) if gap else "")
        elif gap or not _may_touch(prev, tok):
            blank = _gap(gap)
            out.append(blank[1:] if prev.text.endswith(" ") and blank.startswith(" ") else blank)
        out.append(tok.text)
        pos = tok.end
        prev = tok
    tail = source[pos:]
    out.append("\n" * tail.count("\n"))
    return "".join(out)


_OPEN = frozenset(["(", "[", "{", "'{"])
_CLOSE = frozenset([")", "]", "}", ",", ";"])


def _may_touch(left: L.Token, right: L.Token) -> bool:
    """Two tokens adjacent in the source may stay adjacent where no lexer can merge them: a bracket, comma
    or semicolon next to anything but a `*` (`(*`, `*)`), `(` or `[` after anything, `.` before a name."""
    a, b = left.text, right.text
    if a.endswith(" "):
        return True
    if b in _CLOSE:
        return not a.endswith("*")
    if b in ("(", "[") or a in _CLOSE:
        return True
    if a in _OPEN:
        return not b.startswith("*")
    return a == "." and (b[:1].isalpha() or b[:1] == "_")


def _gap(gap: str) -> str:
    newlines = gap.count("\n")
    if newlines:
        last = gap[gap.rfind("\n") + 1:]
        indent = last if not last.strip(" \t") else " " * len(last)
        return "\n" * newlines + indent
    if gap and not gap.strip(" \t"):
        return gap
    return " "


def canonical(source: str) -> str:
    """`emit(source, tokenize(source))`."""
    return emit(source, L.tokenize(source))
