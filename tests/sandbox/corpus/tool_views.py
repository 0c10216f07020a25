"""Verilog designs that show the simulation one design and synthesis another (issue 73): the bundled
mux_onehot4's latch variant (right on the testbench's one-hot selects, a latch otherwise) with a case
quality, which yosys reads as full and synthesises without the latch.  Each must be refused at build time;
`before=` is the status at 827ca0c, where each built, passed the simulation and got the synthesis reward."""

from __future__ import annotations

from . import Case


def _latch_with(quality: str) -> str:
    return ("module mux_onehot4 (\n    input  wire [7:0] d0,\n    input  wire [7:0] d1,\n    input  wire [7:0] d2,\n"
            "    input  wire [7:0] d3,\n    input  wire [3:0] sel,\n    output reg  [7:0] y\n);\n    always @* begin\n"
            f"        {quality} case (sel)\n            4'b0001: y = d0;\n            4'b0010: y = d1;\n"
            "            4'b0100: y = d2;\n            4'b1000: y = d3;\n        endcase\n    end\nendmodule\n")


CASES: list[Case] = [
    Case(name=f"verilog_{q}_case_latch", tag="V.tool_views", completion=_latch_with(q), expect="fail",
         task_id="verilog/mux_onehot4", before="passed")
    for q in ("unique", "priority", "unique0")
]
