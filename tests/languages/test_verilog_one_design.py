"""One design for every tool (issue 73): a construct that iverilog simulates one way and yosys synthesises
another is refused at build time, so the `synthesis` and `quality` rewards never pay for a design the
simulation did not run.  The constructs are generated (`verilog_constructs`): every case and if quality
over every case shape, every place a delay can stand, every 2-state type, every random system function;
and a catalogue of the design-level keywords the lexer reads, which must read the same to every tool."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coderl.languages import verilog as V
from tests.conftest import require_binaries
from tests.languages.verilog_constructs import ADMITTED, DIFFERING, HEADER, TESTBENCH

SAMPLE = re.compile(r"^(\d+) ([01xz]+)$", re.MULTILINE)


@pytest.mark.parametrize("name", sorted(DIFFERING))
def test_a_construct_the_tools_read_differently_is_refused(name):
    """Before: each of these built, so yosys's reading of it was rewarded (`unique case` synthesised with no latch
    where the simulation had one; a delay the simulation waited for and synthesis dropped; a 2-state variable at 0
    in the simulation and with no value in the netlist; `$random`)."""
    reason = V.rejected(HEADER + DIFFERING[name] + "\nendmodule\n")
    assert reason is not None and "not allowed" in reason, (name, reason)


@pytest.mark.parametrize("name", sorted(ADMITTED))
def test_the_catalogue_is_admitted_by_the_rules(name):
    assert V.rejected(HEADER + ADMITTED[name] + "\nendmodule\n") is None, name


def test_a_parameter_list_is_no_delay():
    design = ("module dut #(parameter W = 2)(input [W-1:0] a, output [W-1:0] y);\n"
              "  sub #(.W(W)) u(.a(a), .y(y));\n  sub #(2) v(.a(a), .y());\n  sub #2 w(.a(a), .y());\nendmodule\n")
    assert V.rejected(design) is None


def _run(argv, cwd):
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)


def _samples(text: str) -> dict[int, str]:
    return {i: m.group(2) for i, m in enumerate(SAMPLE.finditer(text))}


def readings(body: str, tmp_path) -> tuple[str, dict, dict]:
    """(verdict, the simulation's samples, the synthesised netlist's samples); the verdict names a tool that
    refuses the design, else "read"."""
    (tmp_path / "dut.sv").write_text(HEADER + body + "\nendmodule\n")
    (tmp_path / "tb.v").write_text(TESTBENCH)
    if _run(["iverilog", "-g2012", "-o", "sim", "tb.v", "dut.sv"], tmp_path).returncode:
        return "iverilog refuses", {}, {}
    sim = _samples(_run(["vvp", "-n", "sim"], tmp_path).stdout)
    if _run(["yosys", "-q", "-p", "read_verilog -sv dut.sv; synth -top dut; write_verilog -noattr net.v"],
            tmp_path).returncode:
        return "yosys refuses", sim, {}
    if _run(["yosys", "-q", "-p", f"read_verilog -sv dut.sv; synth -top dut; select -assert-none {V.LATCH_CELLS}"],
            tmp_path).returncode:
        # the synthesis check fails a latch unless the task allows one; a latch's netlist races in a zero-delay
        # simulation (enable and data change in one step), so its samples are no reading of the design
        return "latch", sim, {}
    share = Path(shutil.which("yosys")).resolve().parent.parent / "share" / "yosys"  # yosys's simulation models
    if _run(["iverilog", "-g2012", "-o", "net", "tb.v", "net.v", f"{share}/simcells.v", f"{share}/simlib.v"],
            tmp_path).returncode:
        return "netlist does not simulate", sim, {}
    return "read", sim, _samples(_run(["vvp", "-n", "net"], tmp_path).stdout)


def _same_where_simulated(sim: dict, net: dict) -> bool:
    """The netlist shows what the simulation shows at every sample whose value the simulation knows (an x or z
    there fails any check of it, so it is no value a test can pass on)."""
    return len(sim) == len(net) and all(
        all(s == n for s, n in zip(sim[i], net[i]) if s in "01") for i in sim)


@pytest.mark.slow
@pytest.mark.parametrize("word", ["unique", "priority", "unique0", "delay", "2-state", "random"])
def test_each_refused_class_has_designs_the_tools_read_differently(word, tmp_path):
    """Why each refusal: for each class, designs whose simulation and synthesised netlist differ on clean inputs
    (the rest of the class is refused with them: a rule reads words, not outcomes)."""
    require_binaries("iverilog", "vvp", "yosys")
    differ = []
    for name in sorted(n for n in DIFFERING if n.split()[0] == word):
        (tmp_path / name.replace(" ", "_")).mkdir()
        verdict, sim, net = readings(DIFFERING[name], tmp_path / name.replace(" ", "_"))
        if verdict == "read" and sim != net:
            differ.append(name)
    assert differ, word


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ADMITTED))
def test_every_admitted_construct_reads_the_same_to_every_tool_that_reads_it(name, tmp_path):
    require_binaries("iverilog", "vvp", "yosys")
    verdict, sim, net = readings(ADMITTED[name], tmp_path)
    assert verdict != "read" or _same_where_simulated(sim, net), (name, sim, net)
