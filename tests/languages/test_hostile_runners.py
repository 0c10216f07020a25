"""Hostile programs for the runners of other languages (Verilog, Node.js, Lua through a user runner file).

Each must never pass and never be a `sandbox_error`, and the sandbox must keep working afterwards (the
last test).  What only `full` isolation closes (hidden package files, no network, a read-only view of the
file system) is asserted where the result says it ran at `full` (`result.isolation`); elsewhere the
program still never passes.  Limits are small (1 s of CPU, 1 MiB of output) so the file stays quick."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import subprocess

import pytest

import coderl
from coderl.languages import verilog as V
from coderl.sandbox.types import VALUE_MARKER, Limits, Status
from coderl.tasks.hdl import bundled_path, simulate
from coderl.tasks.spec import load_tasks
from tests.conftest import require_binaries
from tests.languages.test_runners_sandbox import JS_FUNCTIONS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LUA_RUNNER = os.path.join(REPO, "examples", "lua", "lua.yaml")
LUA_TASKS = os.path.join(REPO, "examples", "lua", "tasks.jsonl")
HIDDEN_FILE = bundled_path()  # in coderl's package directory: hidden from programs at `full`
PACKAGE_DIR = os.path.dirname(os.path.abspath(coderl.__file__))
QUICK = Limits(cpu_seconds=1.0, output_kill_bytes=2**20)


def _never_passes(result) -> None:
    assert not result.passed, (result.status, result.message)
    assert result.status is not Status.SANDBOX_ERROR, result.message
    assert result.fraction_passed < 1.0


def _full(result) -> bool:
    return result.isolation == "full"


# ---- Verilog ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mux2():
    require_binaries("iverilog", "vvp", "yosys", "verilator")
    return next(t for t in load_tasks("verilog") if t.task_id == "verilog/mux2")


def _design(task, body: str, before: str = "") -> str:
    """The task's module header with `body` inside (and `before` ahead of the module: macros)."""
    return before + task.metadata["header"].rstrip() + "\n" + body.rstrip() + "\nendmodule\n"


CORRECT_MUX = "    assign y = sel ? b : a;"


def test_a_zero_delay_forever_loop_is_a_timeout(sandbox, mux2):
    design = _design(mux2, CORRECT_MUX + "\n    reg spin;\n    initial begin spin = 1'b0; forever spin = ~spin; end")
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    _never_passes(result)
    assert result.status is Status.TIMEOUT, (result.status, result.message)
    assert all(t.status is Status.TIMEOUT for t in result.tests)


def test_a_display_flood_is_output_exceeded_or_failed(sandbox, mux2):
    line = "x" * 100
    design = _design(mux2, CORRECT_MUX + f'\n    integer k;\n    initial for (k = 0; k < 100000000; k = k + 1) '
                                         f'$display("{line}");')
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    _never_passes(result)
    assert result.status in (Status.OUTPUT_EXCEEDED, Status.FAILED), (result.status, result.message)


def test_fake_check_lines_without_the_nonce_do_not_count(sandbox, mux2):
    # The design is wrong (y stuck at 0) and prints the reference's values for every check, tagged with
    # what the testbench's lines look like without the nonce ("none") and with guessed nonces.
    expected = [value for _, value in mux2.tests[0].expected["checks"]]
    fakes = "".join(f'        $display("{tag} y {v}");\n' for v in expected
                    for tag in ("none", "0123456789abcdef", "0000000000000000", "coderl_nonce"))
    design = _design(mux2, "    assign y = 1'b0;\n    initial begin\n" + fakes + "    end")
    assert V.rejected(design) is None  # strings may say anything
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    _never_passes(result)
    assert result.status is Status.FAILED
    assert len(result.tests) == len(expected)  # the fake lines added no outcome, not even a failed one
    assert sum(t.passed for t in result.tests) == expected.count("0")


def test_a_design_that_finishes_early_leaves_its_checks_missing(sandbox, mux2):
    result = sandbox.run(mux2.build_request(_design(mux2, CORRECT_MUX + "\n    initial $finish;"), limits=QUICK))
    _never_passes(result)
    assert result.status is Status.FAILED
    assert all(not t.passed and "missing" in t.message for t in result.tests)


def test_a_design_cannot_use_the_testbench_check_macro(sandbox, mux2):
    # The prelude's CHECK macro holds the nonce: it is `undef`-ed at the testbench's end, and a macro
    # use is rejected before anything runs.
    design = _design(mux2, CORRECT_MUX + "\n    initial begin `CHECK(\"y\", 1'b1) end")
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    _never_passes(result)


REJECTED = {
    "system": '    initial $system("cat /etc/passwd");',
    "fopen": '    integer fd;\n    initial fd = $fopen("coderl_tb.v", "r");',
    "readmemh": '    reg [7:0] mem [0:3];\n    initial $readmemh("/etc/passwd", mem);',
    "include": '`include "/etc/passwd"',
    "plusargs": '    reg [255:0] n;\n    initial if ($value$plusargs("coderl_nonce=%s", n)) $display("%0s", n);',
    "test_plusargs": '    initial if ($test$plusargs("x")) $display("x");',
    "root": "    wire peek = $root.tb.sel;",
    "testbench_name": "    wire peek = coderl_tb.sel;",
    "hierarchical": "    wire peek = dut.sel;",
    "force": "    initial force y = 1'b1;",
    "release": "    initial release y;",
    "defparam": "    defparam dut.W = 2;",
    "bind": "    bind mux2 mux2 spy (.a(a), .b(b), .sel(sel), .y());",
    "dpi": '    import "DPI-C" function int system(input string cmd);',
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_constructs_reaching_outside_the_design_are_rejected(sandbox, mux2, name):
    design = _design(mux2, CORRECT_MUX + "\n" + REJECTED[name])
    request = mux2.build_request(design, limits=QUICK)
    assert request.rejected
    result = sandbox.run(request)
    assert result.status is Status.BUILD_ERROR
    assert "rejected" in result.message and "\n" not in result.message, result.message
    assert result.tests and all(t.status is Status.NOT_RUN for t in result.tests)


def test_forbidden_names_in_comments_and_strings_are_not_rejected(sandbox, mux2):
    design = _design(mux2, "    // never $system(\"rm -rf /\"), $fopen, $readmemh, coderl_tb.x, force or bind\n"
                           "    /* `include \"/etc/passwd\" $value$plusargs dut.sel defparam */\n"
                           + CORRECT_MUX + "\n"
                           "    initial $display(\"$system and $root.x are only words here\");")
    assert V.rejected(design) is None
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    assert result.passed, (result.status, result.message, result.stderr[-300:])


# Token pasting (SystemVerilog's ``) builds a forbidden name from pieces that pass the text rules.
PASTE_NONCE = ("`define V(p, q) $``p``$``q\n",
               # A wrong design (y stuck at 0) reads the nonce, prints the reference's checks, ends the run.
               "    assign y = 1'b0;\n    reg [255:0] n;\n    integer k;\n"
               "    initial if (`V(value, plusargs)(\"coderl_nonce=%s\", n)) begin\n"
               "        for (k = 0; k < 8; k = k + 1) $display(\"%0s y %b\", n, k[0] ? k[1] : k[2]);\n"
               "        $finish;\n    end")
PASTED = {
    "plusargs": PASTE_NONCE,
    "fopen": ("`define D(n) $``n\n",
              CORRECT_MUX + "\n    integer fd;\n    initial begin fd = `D(fopen)(\"coderl_tb.v\", \"r\"); "
                            "$display(\"fd %0d\", fd); end"),
    "hierarchical": ("`define H(p, q) p``.``q\n", "    assign y = `H(dut, sel) ? b : a;"),
}


def test_a_wrong_design_reading_the_nonce_by_token_pasting_never_passes(sandbox, mux2):
    result = sandbox.run(mux2.build_request(_design(mux2, PASTE_NONCE[1], PASTE_NONCE[0]), limits=QUICK))
    _never_passes(result)


@pytest.mark.parametrize("name", sorted(PASTED))
def test_names_built_by_token_pasting_are_rejected(sandbox, mux2, name):
    before, body = PASTED[name]
    result = sandbox.run(mux2.build_request(_design(mux2, body, before), limits=QUICK))
    assert result.status is Status.BUILD_ERROR and "rejected" in result.message, (result.status, result.message)


# ---- Verilog: what the rules see is what the compiler compiles ----------------------------------------------

# An escaped identifier (IEEE 1364-2005 §3.7.1) is a backslash, then printable ASCII up to white space, so
# `\/*`, `\//` and `\"` are identifiers to iverilog; the old text rules read them as a comment or string
# opener and blanked what followed, which iverilog then compiled.  These all passed the old rules.
HIDING = {
    "escaped_block_comment": '    wire \\/* ;\n    initial $system("echo hidden"); // */',
    "escaped_line_comment": '    wire \\// ; initial $system("echo hidden");',
    "escaped_quote": '    wire \\" ; initial $system("echo hidden");',
    "escaped_hierarchical": "    wire peek = dut.\\sel ;",  # the second name escaped
    "dpi_behind_a_comment": '    import /* x */ "DPI-C" function int system(input string cmd);',
}
# A wrong design (y stuck at 0) reading the nonce the way the old rules could not see, printing the
# reference's checks with it: with the nonce on vvp's command line it passed.
HIDDEN_NONCE = ("    assign y = 1'b0;\n    reg [255:0] n;\n    integer k;\n    wire \\/* ;\n"
                "    initial if ($value$plusargs(\"coderl_nonce=%s\", n)) begin\n"
                "        for (k = 0; k < 8; k = k + 1) $display(\"%0s y %b\", n, k[0] ? k[1] : k[2]);\n"
                "        $finish;\n    end // */")


def test_iverilog_compiles_what_follows_an_escaped_comment_opener(tmp_path):
    require_binaries("iverilog", "vvp")
    (tmp_path / "t.sv").write_text('module t;\n  wire \\/* ;\n  initial $display("compiled"); // */\nendmodule\n')
    subprocess.run(["iverilog", "-g2012", "-o", "t", "t.sv"], cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run(["vvp", "-n", "t"], cwd=tmp_path, capture_output=True, text=True, timeout=30).stdout
    assert "compiled" in out


@pytest.mark.parametrize("name", sorted(HIDING))
def test_code_hidden_from_text_rules_is_rejected(sandbox, mux2, name):
    design = _design(mux2, CORRECT_MUX + "\n" + HIDING[name])
    request = mux2.build_request(design, limits=QUICK)
    assert request.rejected.startswith("line "), request.rejected
    result = sandbox.run(request)
    assert result.status is Status.BUILD_ERROR and "rejected" in result.message and "\n" not in result.message


def test_a_hidden_nonce_read_is_rejected_and_finds_nothing_past_the_rules(sandbox, mux2):
    request = mux2.build_request(_design(mux2, HIDDEN_NONCE), limits=QUICK)
    assert "/*" in request.rejected
    result = sandbox.run(dataclasses.replace(request, rejected=""))  # the rules bypassed
    _never_passes(result)
    assert result.status is Status.FAILED


# Ordinary designs of the same shapes: they pass, compiled from the re-emitted text.
HONEST = {
    "escaped_identifiers": "    wire \\sel_n ;\n    wire \\a+b ;\n    wire \\begin ;\n    assign \\sel_n  = ~sel;\n"
                           "    assign \\a+b  = a;\n    assign \\begin  = b;\n    assign y = \\sel_n  ? \\a+b  : \\begin ;",
    "event_controls": "    reg r1, r2, r3;\n    always @(*) r1 = sel ? b : a;\n    always @( * ) r2 = r1;\n"
                      "    always @* r3 = r2;\n    assign y = r3;",
    "based_numbers_with_spaces": "    wire [7:0] m = 8 'h f_F;\n    wire one = 1 'b 1;\n    wire [3:0] z = '0;\n"
                                 "    assign y = (sel == one) ? b & m[0] : a | z[0];",
    "strings_with_escapes": CORRECT_MUX + '\n    initial $display("tab\\there \\"q\\" back\\\\slash \\101 * /* // `x");',
    "comments_everywhere": "    // $system(\"x\") coderl_tb.sel `include force\n    assign /* dut.sel $fopen */ y = sel ? b : a; /*\n"
                           "    `define X 1 */ // \\/* \" ",
    "crlf_lines": CORRECT_MUX.replace(";", ";\r") + "\r\n    // note\r",
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_designs_of_the_same_shapes_pass(sandbox, mux2, name):
    design = "`timescale 1ns / 1ps\n" + _design(mux2, HONEST[name])
    assert V.rejected(design) is None
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    assert result.passed, (result.status, result.message, result.stderr[-300:])


# One text for all three tools.  mux_onehot4's `synthesis` variant simulates right on the testbench's
# one-hot selects but holds a latch (yosys: no latch allowed) and warns under verilator: a design may show
# it to the simulation and the clean reference to one tool.
@pytest.fixture(scope="module")
def onehot():
    require_binaries("iverilog", "vvp", "yosys", "verilator")
    task = next(t for t in load_tasks("verilog") if t.task_id == "verilog/mux_onehot4")
    latch = next(w["code"] for w in task.metadata["wrong"] if w["loses"] == "synthesis")
    return task, latch


def _per_tool(view: str, reference: str, latch: str) -> str:
    """A design that shows the latch to the simulation and the reference to the tool of `view`."""
    return {"yosys": f"`ifdef SYNTHESIS\n{reference}`else\n{latch}`endif\n",
            "yosys by name": f"`ifndef YOSYS\n{latch}`else\n{reference}`endif\n",
            "verilator": f"`ifdef VERILATOR\n{reference}`else\n{latch}`endif\n",
            "iverilog": f"`ifdef __ICARUS__\n{latch}`else\n{reference}`endif\n",
            "attributes": latch.replace("case (sel)", "(* full_case, parallel_case *) case (sel)"),
            "unique": latch.replace("case (sel)", "unique case (sel)"),
            "priority": latch.replace("case (sel)", "priority case (sel)"),
            "unique0": latch.replace("case (sel)", "unique0 case (sel)"),
            "comments": "/* verilator lint_off */\n" + latch.replace("case (sel)", "case (sel) // synopsys full_case"
                                                                     " parallel_case"),
            }[view]


@pytest.mark.parametrize("view", ["yosys", "yosys by name", "verilator", "iverilog", "attributes", "unique",
                                  "priority", "unique0"])
def test_a_design_that_differs_per_tool_is_refused(sandbox, onehot, view):
    """`unique`/`priority`/`unique0`: before (issue 73), yosys took the case as full and synthesised no latch while
    iverilog simulated one, so `synthesis` paid for a design that was never simulated."""
    task, latch = onehot
    design = _per_tool(view, task.reference_solution, latch)
    assert "case (sel)" in latch
    request = task.build_request(design, limits=QUICK)
    assert "different designs" in request.rejected, request.rejected
    result = sandbox.run(request)
    assert result.status is Status.BUILD_ERROR and not result.reports  # nothing for synthesis or quality


def test_tool_comments_are_read_by_no_tool_so_the_simulated_latch_reaches_every_report(sandbox, onehot):
    task, latch = onehot
    design = _per_tool("comments", task.reference_solution, latch)
    assert V.rejected(design) is None
    result = sandbox.run(task.build_request(design, limits=QUICK))
    assert result.passed  # the simulation: right on one-hot selects
    assert result.reports["synthesis"]["status"] != "passed"  # yosys finds the latch
    assert "%Warning" in result.reports["lint"]["stderr"]  # verilator warns


def test_compile_errors_keep_the_designs_line_numbers(sandbox, mux2):
    design = _design(mux2, "    /* two\n       lines */ // and one\n    assign y = sel ? b : ;")
    assert design.splitlines()[8].strip() == "assign y = sel ? b : ;"
    result = sandbox.run(mux2.build_request(design, limits=QUICK))
    assert result.status is Status.BUILD_ERROR and "design.sv:9:" in result.message, result.message


def test_the_request_compiles_the_re_emitted_design_and_carries_no_nonce_outside_the_testbench(mux2):
    design = _design(mux2, "    assign y = sel ? b : a; // \\/* a comment\n    wire \\plain ;")
    request = mux2.build_request(design)
    nonce = request.tests[0].expected["nonce"]
    assert request.files[V.DESIGN_FILE] == V.checked(design)[0] != design
    assert "//" not in request.files[V.DESIGN_FILE] and "wire plain ;" in request.files[V.DESIGN_FILE]
    testbench = request.files[V.TESTBENCH_FILE]
    assert testbench.count(nonce) == 1 and testbench.rstrip().endswith("`undef CHECK")
    assert not any(nonce in part for part in (*request.argv, *request.build_argv,
                                               *(a for t in request.tests for a in t.argv)))


def test_the_reference_run_takes_the_same_path(mux2):
    checks = simulate(mux2.metadata["testbench"], mux2.reference_solution)
    assert [list(c) for c in checks] == mux2.tests[0].expected["checks"]


def _dump(path: str) -> str:
    return (f'        fd = $fopen("{path}", "r");\n        $display("OPEN {path} %0d", fd != 0);\n'
            "        if (fd != 0) begin\n            c = $fgetc(fd);\n"
            "            for (k = 0; k < 100000 && c != -1; k = k + 1) begin\n"
            '                $write("%c", c == 0 ? 32 : c);\n                c = $fgetc(fd);\n            end\n'
            '            $display("");\n            $fclose(fd);\n        end\n')


NONCE_PLACES = ["coderl_tb.v", "sim", "sim.fifo", "design.sv", "/proc/self/cmdline", "/proc/self/environ",
                "/dev/stdin", "/proc/self/fd/0", "/proc/1/cmdline", "/proc/2/cmdline", "/proc/2/environ"]


def test_a_design_past_the_rules_cannot_read_the_nonce(sandbox, mux2):
    # Every rule bypassed: the design asks for the nonce as a plusarg and reads every file where it was
    # or could be (the testbench, the compiled program, the FIFO vvp read it from, argv, environment,
    # stdin, its parent shell's) and prints what it read.  Reading its own memory (/proc/self/mem) is
    # the one channel left open (docs/languages.md).
    body = ("    assign y = 1'b0;\n    reg [8*64-1:0] n;\n    integer fd, c, k;\n    initial begin\n"
            '        if ($value$plusargs("coderl_nonce=%s", n)) $display("PLUSARG %0s", n);\n'
            '        if ($test$plusargs("coderl_nonce")) $display("TEST_PLUSARG");\n'
            + "".join(_dump(p) for p in NONCE_PLACES) + "    end")
    request = mux2.build_request(_design(mux2, body), limits=QUICK)
    assert request.rejected
    request = dataclasses.replace(request, rejected="")
    nonce = request.tests[0].expected["nonce"]
    result = sandbox.run(request)
    _never_passes(result)
    assert result.status is Status.FAILED, (result.status, result.message)
    out = result.stdout
    assert "OPEN /proc/self/cmdline 1" in out and "vvp -n sim.fifo" in out, out[:2000]  # the reads work
    for gone in ("coderl_tb.v", "sim", "sim.fifo", "design.sv"):
        assert f"OPEN {gone} 0" in out, out[:2000]
    assert "PLUSARG" not in out and nonce not in result.stderr
    # The nonce is on the testbench's check lines only, and the design added none.
    tagged = [ln for ln in out.splitlines() if nonce in ln]
    assert all(ln.startswith(nonce + " y ") for ln in tagged), tagged
    assert len(tagged) == len(mux2.tests[0].expected["checks"])


# ---- Node.js --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def js_stdio():
    """A stdin/stdout JavaScript task: the program's stdout is its answer (sum of n integers)."""
    require_binaries("node")
    return next(iter(load_tasks("stdio-basics:language=javascript")))


@pytest.fixture(scope="module")
def strlen():
    """A function task judged by the values harness: strlen(string)."""
    require_binaries("node")
    return next(t for t in load_tasks(JS_FUNCTIONS) if t.task_id == "HumanEval-js/23")


def _first_line(result) -> str:
    return (result.stdout.strip().splitlines() or [""])[0]


def test_node_cannot_read_the_hidden_package_files(sandbox, js_stdio):
    program = (f"const fs = require('fs');\n"
               f"try {{ console.log('READ ' + fs.readFileSync({json.dumps(HIDDEN_FILE)}, 'utf8').length); }}\n"
               f"catch (e) {{ console.log('ERR ' + e.code); }}\n"
               f"try {{ console.log('LIST ' + JSON.stringify(fs.readdirSync({json.dumps(PACKAGE_DIR)}))); }}\n"
               f"catch (e) {{ console.log('ERR ' + e.code); }}\n")
    result = sandbox.run(js_stdio.build_request(program, limits=QUICK))
    _never_passes(result)
    if _full(result):
        lines = result.stdout.strip().splitlines()
        assert lines[0].startswith("ERR "), result.stdout
        assert lines[1].startswith("ERR ") or lines[1] == "LIST []", result.stdout


@pytest.mark.parametrize("host, port", [("127.0.0.1", 9), ("8.8.8.8", 53)])
def test_node_has_no_network(sandbox, js_stdio, host, port):
    program = (f"const s = require('net').connect({port}, '{host}');\n"
               "s.setTimeout(1500, () => { console.log('ERR TIMEOUT'); s.destroy(); });\n"
               "s.on('connect', () => { console.log('CONNECTED'); s.destroy(); });\n"
               "s.on('error', (e) => console.log('ERR ' + e.code));\n")
    result = sandbox.run(js_stdio.build_request(program, limits=QUICK, max_tests=2))
    _never_passes(result)
    if _full(result):  # no network at all, not even loopback
        assert _first_line(result).startswith("ERR ") and "CONNECTED" not in result.stdout, result.stdout


def test_node_child_process_reading_shadow_is_harmless(sandbox, js_stdio):
    program = ("try { const out = require('child_process').execSync('cat /etc/shadow', {stdio: ['ignore', 'pipe', "
               "'ignore']}); console.log('READ ' + out.length); }\n"
               "catch (e) { console.log('ERR ' + (e.status ?? e.code)); }\n")
    result = sandbox.run(js_stdio.build_request(program, limits=QUICK))
    _never_passes(result)
    if _full(result):  # the view has no /etc/shadow
        assert _first_line(result).startswith("ERR "), result.stdout


def test_node_cannot_write_outside_its_work_dir_and_tmp(sandbox, js_stdio):
    if sandbox.isolation == "rlimits":
        pytest.skip("at rlimits programs run as the caller (here maybe root): the write would land")
    token = secrets.token_hex(6)
    targets = [f"/etc/coderl-hostile-{token}", f"/usr/coderl-hostile-{token}", os.path.join(REPO, f"coderl-hostile-{token}")]
    program = ("const fs = require('fs');\n"
               f"for (const p of {json.dumps(targets)}) {{\n"
               "  try { fs.writeFileSync(p, 'x'); console.log('WROTE ' + p); } catch (e) { console.log('ERR ' + e.code); }\n"
               "}\n"
               "fs.writeFileSync('/tmp/ok', 'x'); fs.writeFileSync('/sandbox/ok', 'x'); console.log('TMP OK');\n")
    try:
        result = sandbox.run(js_stdio.build_request(program, limits=QUICK))
        _never_passes(result)
        lines = result.stdout.strip().splitlines()
        assert [ln.split()[0] for ln in lines[:3]] == ["ERR"] * 3, result.stdout
        if _full(result):
            assert lines[3] == "TMP OK", result.stdout
        assert [p for p in targets if os.path.exists(p)] == []
    finally:
        for p in targets:
            if os.path.exists(p):
                os.remove(p)


def test_node_exiting_before_the_harness_prints_has_no_value(sandbox, strlen):
    result = sandbox.run(strlen.build_request("  process.exit(0);\n}\n", limits=QUICK))
    _never_passes(result)
    assert result.status is Status.FAILED
    assert all("no value" in t.message for t in result.tests), [t.message for t in result.tests]


MARK = json.dumps(VALUE_MARKER)


def test_a_forged_value_line_is_only_the_programs_own_wrong_answer(sandbox, strlen):
    # The program never sees the expected values: a constant it prints with the marker, then exiting
    # before the harness, is right only where the constant happens to be (strlen('') == 0).
    body = f"  process.stdout.write('\\n' + {MARK} + '0\\n');\n  process.exit(0);\n}}\n"
    result = sandbox.run(strlen.build_request(body, limits=QUICK))
    _never_passes(result)
    expected = [t.expected for t in strlen.tests]
    assert [t.passed for t in result.tests] == [e == 0 for e in expected]
    assert any("got 0" in t.message for t in result.tests)


def test_a_forged_value_printed_after_the_harness_counts_against_the_program(sandbox, strlen):
    # The last marker line counts: printing one after the harness (at exit) replaces the program's
    # correct return value with a guess, which only loses.
    body = f"  process.on('exit', () => process.stdout.write('\\n' + {MARK} + '12345\\n'));\n  return string.length;\n}}\n"
    result = sandbox.run(strlen.build_request(body, limits=QUICK))
    _never_passes(result)
    assert all(not t.passed and "got 12345" in t.message for t in result.tests)


def test_a_value_line_the_program_prints_itself_is_its_own_answer(sandbox, strlen):
    # Allowed, and no forgery: printing the marker line with the value it computed is the same answer as
    # returning that value; the parent still compares it with the expected value it alone holds.
    body = (f"  process.stdout.write('\\n' + {MARK} + JSON.stringify(string.length) + '\\n');\n"
            "  process.exit(0);\n}\n")
    result = sandbox.run(strlen.build_request(body, limits=QUICK))
    assert result.passed, (result.status, result.message)


# ---- Lua through the example runner file -------------------------------------------------------------------


@pytest.fixture(scope="module")
def lua_task():
    require_binaries("lua5.4")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODERL_RUNNERS", LUA_RUNNER)  # the runner registry is process-global: a no-op if loaded
        yield next(iter(load_tasks(LUA_TASKS)))


def test_lua_cannot_read_the_hidden_package_files(sandbox, lua_task):
    program = (f"local f, err = io.open({json.dumps(HIDDEN_FILE)}, 'r')\n"
               "if f then print('READ ' .. #f:read('a')) else print('ERR ' .. tostring(err)) end\n")
    result = sandbox.run(lua_task.build_request(program, limits=QUICK))
    _never_passes(result)
    if _full(result):
        assert _first_line(result).startswith("ERR "), result.stdout


def test_lua_os_execute_is_harmless(sandbox, lua_task):
    result = sandbox.run(lua_task.build_request('os.execute("ls /")\n', limits=QUICK))
    _never_passes(result)
    assert result.status is Status.FAILED, (result.status, result.message)
    if _full(result):  # it lists the program's view, not the machine's root
        assert "sandbox" in result.stdout.split(), result.stdout


def test_lua_infinite_loop_is_a_timeout(sandbox, lua_task):
    result = sandbox.run(lua_task.build_request("while true do end\n", limits=QUICK, max_tests=2))
    _never_passes(result)
    assert result.status is Status.TIMEOUT


def test_lua_output_flood_is_output_exceeded_or_failed(sandbox, lua_task):
    program = 'local s = string.rep("x", 1000)\nwhile true do io.write(s, "\\n") end\n'
    result = sandbox.run(lua_task.build_request(program, limits=QUICK, max_tests=2))
    _never_passes(result)
    assert result.status in (Status.OUTPUT_EXCEEDED, Status.FAILED), (result.status, result.message)


# ---- afterwards ------------------------------------------------------------------------------------------------


def test_the_sandbox_still_works_after_the_hostile_programs(sandbox, mux2, js_stdio, strlen, lua_task):
    from tests.languages.test_runners_sandbox import GOOD

    requests = [mux2.build_request(mux2.reference_solution), js_stdio.build_request(js_stdio.reference_solution),
                strlen.build_request(GOOD[23]), lua_task.build_request(lua_task.reference_solution)]
    results = sandbox.run_many(requests)
    assert [(r.status, r.message) for r in results if not r.passed] == []
