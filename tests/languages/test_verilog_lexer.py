"""The Verilog lexer (`coderl.languages.verilog_lexer`, IEEE 1364-2005 §3), the build-time rules on its
tokens and the re-emitted text the toolchain compiles.  Pure Python: nothing runs (the sandbox tests of
the same constructs are in test_hostile_runners.py)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coderl.languages import verilog as V
from coderl.languages.verilog import canonical, emit
from coderl.languages.verilog_lexer import LexError, tokenize


def toks(source: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(source)]


I, E, K, S, D, N, Q, O = "identifier", "escaped", "keyword", "system", "directive", "number", "string", "operator"


# ---- tokens --------------------------------------------------------------------------------------------


def test_a_module_header():
    assert toks("module m(input a, output reg [3:0] y);") == [
        (K, "module"), (I, "m"), (O, "("), (K, "input"), (I, "a"), (O, ","), (K, "output"), (K, "reg"), (O, "["),
        (N, "3"), (O, ":"), (N, "0"), (O, "]"), (I, "y"), (O, ")"), (O, ";")]


def test_comments_and_white_space_are_dropped_and_lines_counted():
    source = "a /* // not a line comment\n */ b // /* not a block comment\r\n\f c /*/ still open */ d\t"
    tokens = tokenize(source)
    assert [(t.text, t.line) for t in tokens] == [("a", 1), ("b", 2), ("c", 3), ("d", 3)]


def test_escaped_identifiers():  # §3.7.1
    assert toks("\\a+b  \\plain \\begin \\force \\bus[0]\n\\cpu3") == [
        (E, "\\a+b "), (E, "plain"), (E, "\\begin "), (E, "\\force "), (E, "\\bus[0] "), (E, "cpu3")]
    names = [t.name for t in tokenize("\\a+b  \\plain \\begin ")]
    assert names == ["a+b", "plain", "begin"]


def test_system_names_and_directives():
    assert toks("$display $value$plusargs $root $ `timescale `ifdef X") == [
        (S, "$display"), (S, "$value$plusargs"), (S, "$root"), (O, "$"), (D, "`timescale"), (D, "`ifdef"), (I, "X")]


@pytest.mark.parametrize("source, expected", [
    ("8 'h dead_beef", [(N, "8"), (N, "'hdead_beef")]),  # §3.5.1: blanks between base and value
    ("'h dead_cafe_xyz", [(N, "'hdead_cafe_x"), (I, "yz")]),  # the value's digits, then an identifier
    ("4'b1x?z 'sd 5 'o7_7 'dx 'D 12", [(N, "4"), (N, "'b1x?z"), (N, "'sd5"), (N, "'o7_7"), (N, "'dx"), (N, "'D12")]),
    ("'0 '1 'x 'Z", [(N, "'0"), (N, "'1"), (N, "'x"), (N, "'Z")]),  # SystemVerilog unbased literals
    ("1.5e3 1e3 2.5E-3 3_0.0_1 1e x", [(N, "1.5e3"), (N, "1e3"), (N, "2.5E-3"), (N, "3_0.0_1"), (N, "1"), (I, "e"),
                                       (I, "x")]),
    ("10ns 1.5us 5s 1nsx", [(N, "10ns"), (N, "1.5us"), (N, "5s"), (N, "1ns"), (I, "x")]),  # SV time literals
    ("8bit 1.x", [(N, "8"), (K, "bit"), (N, "1"), (O, "."), (I, "x")]),
    ("'hg int'(x)", [(O, "'"), (I, "hg"), (K, "int"), (O, "'"), (O, "("), (I, "x"), (O, ")")]),
])
def test_numbers(source, expected):  # §3.5
    assert toks(source) == expected


@pytest.mark.parametrize("source, expected", [
    ("a+=>b", ["a", "+", "=>", "b"]),  # iverilog: `+` then `=>`
    ("q<<<=2;k++;x==?y", ["q", "<<<=", "2", ";", "k", "++", ";", "x", "==?", "y"]),
    ("'{1,2} p::x .* a->b", ["'{", "1", ",", "2", "}", "p", "::", "x", ".*", "a", "->", "b"]),
    ("@(*) @( * ) @*", ["@", "(*)", "@", "(*)", "@", "*"]),  # the event control, not an attribute
    ("(* keep = 1 *) wire w;", ["(*", "keep", "=", "1", "*)", "wire", "w", ";"]),  # §3.8 attributes
    ("a<=b>=c!==d", ["a", "<=", "b", ">=", "c", "!==", "d"]),
])
def test_operators(source, expected):  # §3.4 and iverilog's SystemVerilog operators
    assert [t.text for t in tokenize(source)] == expected


def test_strings_decode_escapes_and_re_emit_in_canonical_form():  # §3.6
    (tok,) = tokenize(r'"a\tb\"c\\d\101 `x * \v caf' + "\u00e9" + '"')
    assert tok.kind == Q
    assert tok.name.encode("latin-1") == b'a\tb"c\\dA `x * v caf\xc3\xa9'  # \v is v, as iverilog 11 reads it
    assert tok.text == r'"a\tb\"c\\dA \140x \052 v caf\303\251"'
    assert toks('"// not a comment /* nor this"') == [(Q, '"// not a comment /\\052 nor this"')]


def test_edge_descriptors_and_udp_tables_keep_iverilogs_tokens():
    assert [t.text for t in tokenize("edge [01, 0x, x1] 10")] == ["edge", "[", "01", ",", "0x", ",", "x1", "]", "10"]
    assert [t.text for t in tokenize("table (01) 10 : ? : -; endtable 10")] == [
        "table", "(01)", "1", "0", ":", "?", ":", "-", ";", "endtable", "10"]


# ---- what the lexer refuses -----------------------------------------------------------------------------


@pytest.mark.parametrize("source, words", [
    ("a\n/* never closed", ["line 2", "unterminated /*"]),
    ('a\n$display("no end\n");', ["line 2", "unterminated string"]),
    ('$display("no end', ["line 1", "unterminated string"]),
    ('"a\\\nb"', ["line 1", "backslash before the end of the line"]),
    ('"a\rb"', ["line 1", "unterminated string"]),
    ('"a\x01b"', ["line 1", "control"]),
    ("wire a\\ ;", ["line 1", "lone backslash"]),
    ("wire a;\n\\", ["line 2", "lone backslash"]),
    ("wire \\ab\x00 ;", ["line 1", "must end with white space"]),
    ("wire caf\u00e9;", ["line 1", "U+00E9", "ASCII"]),
    ("wire a;\x00", ["line 1", "U+0000"]),
    ("wire\x0ba;", ["line 1", "U+000B"]),
    ("wire\x08a;", ["line 1", "U+0008"]),
    ("wire a;\x7f", ["line 1", "U+007F"]),
    ("` define X", ["line 1", "backtick"]),
    ("`` x", ["line 1", "backtick"]),
    ('`"x', ["line 1", "backtick"]),
    ("wire \\/* ;", ["line 1", "'/*'"]),
    ("wire \\// ;", ["line 1", "'//'"]),
    ("wire \\*/ ;", ["line 1", "'*/'"]),
    ('wire \\" ;', ["line 1", "'\"'"]),
    ("wire \\a`x ;", ["line 1", "'`'"]),
    ("wire \\(* ;", ["line 1", "'(*'"]),
])
def test_what_the_lexer_refuses_is_one_line_naming_the_line(source, words):
    with pytest.raises(LexError) as err:
        tokenize(source)
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message
    assert V.rejected(source) == message


def test_non_ascii_and_anything_else_inside_comments_is_fine():
    assert toks("a // caf\u00e9 \x00 \x0b \\ ` \"\nb /* \u2603 */ c") == [(I, "a"), (I, "b"), (I, "c")]


SHAPES = [lambda n: "a" * n, lambda n: "'h" + " " * n + "1", lambda n: "/*" * (n // 2) + "*/", lambda n: "(" * n,
          lambda n: '"' + "\\n" * (n // 2) + '"', lambda n: "1" * n + ".", lambda n: "// " + "x" * n, lambda n: "$" * n,
          lambda n: "\\" + "a" * n + " ", lambda n: "'{" * (n // 2), lambda n: "1." * (n // 2)]


def _lexing_seconds(source):
    start = time.thread_time()  # this thread's CPU: what a quadratic lexer would burn, whatever else runs
    try:
        tokenize(source)
    except LexError:
        pass
    return time.thread_time() - start


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_the_lexer_is_linear(shape):
    """Four times the input costs about four times the CPU (a quadratic lexer: sixteen), on any machine's speed:
    25,000 and 100,000 characters of each shape that could make a lexer rescan."""
    small, large = (min(_lexing_seconds(SHAPES[shape](n)) for _ in range(2)) for n in (25_000, 100_000))
    assert large < 8 * small + 0.05, (SHAPES[shape](20), small, large)


# ---- re-emission ---------------------------------------------------------------------------------------


def test_re_emission_keeps_lines_drops_comments_and_canonicalises():
    source = ("`timescale 1ns / 1ps\n// $system\nmodule m(input a, output reg y); /* two\nlines */ wire \\a+b ,"
              " \\plain , \\begin ;\nalways @( * ) y = 8 'h dead_beef + 'sd 5;\ninitial $display(\"%0d\\n\");\n"
              "endmodule\r\n")
    assert canonical(source) == ("`timescale 1ns / 1ps\n\nmodule m(input a, output reg y);\n         wire \\a+b ,"
                                 " plain , \\begin ;\nalways @ (*) y = 8 'hdead_beef + 'sd5;\n"
                                 "initial $display(\"%0d\\n\");\nendmodule\n")


@pytest.mark.parametrize("source, expected", [
    ("a/**/b", "a b"), ("(/**/*)", "( *)"), ("(a)*(b)", "(a)*(b)"), ("a[0].b", "a[0].b"), (".a(x),.*)", ".a(x),.* )"),
    ("x=y;z=-w", "x = y;z = - w"),
])
def test_re_emission_separates_tokens_that_could_merge(source, expected):
    assert canonical(source) == expected


FRAGMENTS = ["a", "b1", "\\x+y ", "\\q ", "module", "$display", "`timescale", "8", "'h ff", "'0", "1.5", "10ns",
             '"s\\n"', '"*)"', "(", ")", "(*", "*)", "*", "/", "=", "<", "<<", ".", "'", "{", "'{", "+", "=>", ":",
             "?", ";", "[", "]", "#", "@", "-", "!", "&", "|", "^", "~", "%", "$", " ", "\n", "\t", "/* c */",
             "// c\n", "\r\n", "edge", "table", "endtable", "01", "x0", "\\x0 ", "0", "1", "e", "s", "n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_re_emitted_text_lexes_to_the_same_tokens_on_the_same_lines(parts):
    source = "".join(parts)
    try:
        tokens = tokenize(source)
    except LexError:
        return
    text = emit(source, tokens)
    again = tokenize(text)

    def plain(t):  # an escaped identifier written plain lexes as the identifier it is
        return "identifier" if t.kind == "escaped" and not t.text.startswith("\\") else t.kind

    assert [(plain(t), t.text, t.line) for t in again] == [(plain(t), t.text, t.line) for t in tokens]
    assert emit(text, again) == text
    assert text.isascii() and text.count("\n") == source.count("\n")


# ---- the rules on tokens --------------------------------------------------------------------------------


HEADER = "module mux2 (input wire a, input wire b, input wire sel, output wire y);\n"


@pytest.mark.parametrize("body, words", [
    ("assign y = dut /* c */ . // d\n sel;", "hierarchical reference dut.sel"),
    ("assign y = \\dut .sel;", "hierarchical reference \\dut.sel"),
    ("assign y = dut.\\sel ;", "hierarchical reference dut.\\sel"),
    ("assign y = g[0].x;", "hierarchical reference [...].x"),
    ("assign y = this.x;", "hierarchical reference this.x"),
    ("wire \\CoDeRl_x ;", "'coderl'"),
    ("wire coderl_nonce;", "'coderl'"),
    ("initial $Coderl;", "'coderl'"),
    ("wire \\force ;", "'force'"),
    ("initial force y = 1;", "'force'"),
    ("wire \\$display ;", "names a system task"),
    ("initial $fopen(\"f\");", "system task $fopen"),
    ("initial $value$plusargs(\"x\");", "system task $value$plusargs"),
    ("initial $test$plusargs(\"x\");", "system task $test$plusargs"),
    ("wire w = $unit::x;", "$unit is not allowed"),
    ("import \"DPI-C\" function int f();", "DPI imports"),
    ("export \"DPI-C\" function f;", "DPI imports"),
    ("`define X 1", "`define"),
    ("`include \"x\"", "`include"),
    ("`line 1 \"x\" 0", "`line"),
    ("`__FILE__", "`__FILE__"),
    ("`begin_keywords \"1364-2005\"", "`begin_keywords"),
    ("`CHECK(\"y\", 1)", "`CHECK"),
    # one design for all three tools: no conditional compilation (only a tool could define what it tests),
    # no attribute (yosys obeys some that the simulation ignores)
    ("`ifdef SYNTHESIS\nwire w;\n`endif", "conditional compilation `ifdef"),
    ("`ifndef VERILATOR\nwire w;\n`endif", "conditional compilation `ifndef"),
    ("`elsif __ICARUS__", "conditional compilation `elsif"),
    ("`else", "conditional compilation `else"),
    ("`endif", "conditional compilation `endif"),
    ("(* full_case, parallel_case *) wire w;", "attribute (* ... *)"),
    ("wire (* keep *) w;", "attribute (* ... *)"),
])
def test_rules_read_tokens(body, words):
    reason = V.rejected(HEADER + body + "\nendmodule\n")
    assert reason is not None and words in reason and reason.startswith("line 2: "), reason


@pytest.mark.parametrize("body", [
    "mux2 u(.a(a), .b(b), .sel(sel), .y());",
    "mux2 u(.*);",
    "real r = 1.5; wire [3:0] w = '{default: 0};",
    "wire \\a+b ; assign \\a+b  = 1'b0;",
    "always @(*) begin end",
    "initial $display(\"$system coderl_tb.x `include force %m\");",
    "// $system coderl `define\n/* dut.sel $fopen */",
    "typedef enum {A, B} e_t; e_t s = A; wire w = s == A ? 1'b1 : 1'b0;",
])
def test_honest_constructs_pass_the_rules(body):
    design = "`timescale 1ns/1ps\n`default_nettype wire\n" + HEADER + body + "\nendmodule\n"
    assert V.rejected(design) is None


def test_a_refused_design_keeps_its_own_text_and_a_reason():
    text, reason = V.checked("wire \\/* ; $system(\"x\"); // */")
    assert text == "wire \\/* ; $system(\"x\"); // */" and reason is not None
