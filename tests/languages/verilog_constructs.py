"""Generated designs for "one design for every tool" (issue 73): each uses one construct of the language the
lexer reads, inside `module dut(input [2:0] a, input clk, output reg [1:0] y)`.  `DIFFERING` are the
constructs whose simulation (iverilog) and synthesis (yosys) were seen to differ on clean inputs (the
synthesised netlist simulated on the same vectors): the build rules must refuse each.  Every other
design the rules admit must simulate the same as its netlist wherever the simulation shows no x, or be
refused by a tool (`test_verilog_one_design`)."""

from __future__ import annotations

import itertools

HEADER = "module dut(input [2:0] a, input clk, output reg [1:0] y);\n"
# 16 vectors, a clock edge after each, one line "<a> <y>" per vector
TESTBENCH = """module tb;
reg [2:0] a; reg clk; wire [1:0] y; integer i;
dut d(.a(a), .clk(clk), .y(y));
initial begin clk = 0; a = 0; #1;
  for (i = 0; i < 16; i = i + 1) begin a = (i * 5 + 3) % 8; #1 clk = 1; #1 clk = 0; #1 $display("%0d %b", a, y); end
  $finish; end
endmodule
"""

QUALITIES = ["unique", "priority", "unique0"]
_CASE_SHAPES = {
    "case incomplete": "always @* begin {q} case (a[1:0]) 2'd0: y = 2'd1; 2'd1: y = 2'd2; 2'd2: y = 2'd3; endcase end",
    "casez overlap": "always @* begin y = 0; {q} casez (a) 3'b1??: y = 2'd1; 3'b?1?: y = 2'd2; default: y = 2'd3; "
                     "endcase end",
    "casex overlap": "always @* begin y = 0; {q} casex (a) 3'b1xx: y = 2'd1; 3'bx1x: y = 2'd2; default: y = 2'd3; "
                     "endcase end",
    "if incomplete": "always @* begin {q} if (a == 3'd1) y = 2'd1; else if (a == 3'd2) y = 2'd2; end",
    "if overlap": "always @* begin y = 0; {q} if (a[0]) y = 2'd1; else if (a[1]) y = 2'd2; end",
}
_DELAYS = {
    "assign": "wire [1:0] t; assign #3 t = a[1:0]; always @* y = t;",
    "intra blocking": "always @* y = #2 a[1:0];",
    "intra nonblocking": "always @(posedge clk) y <= #3 a[1:0];",
    "statement": "always @(posedge clk) begin #1 y = a[1:0]; end",
    "gate": "wire t; and #2 g(t, a[0], a[1]); always @* y = {t, t};",
    "net": "wire #2 t = a[0]; always @* y = {t, t};",
    "parenthesised": "always @* y = #(1) a[1:0];",
    "cycle": "always @(posedge clk) begin ##1 y <= a[1:0]; end",
}
_TWO_STATE = {
    "bit": "bit [1:0] t; always @(posedge clk) t <= a[1:0] + t; always @* y = t;",
    "byte": "byte t; always @(posedge clk) t <= t + a; always @* y = t[1:0];",
    "shortint": "shortint t; always @(posedge clk) t <= t + a; always @* y = t[1:0];",
    "int": "int t; always @(posedge clk) t <= t + a; always @* y = t[1:0];",
    "longint": "longint t; always @(posedge clk) t <= t + a; always @* y = t[1:0];",
    "int loop": "always @* begin y = 0; for (int k = 0; k < 3; k++) y = y + a[k]; end",
}
_RANDOM = {name: f"always @(posedge clk) y <= {name};" for name in ("$random", "$urandom")} | {
    "$urandom_range": "always @(posedge clk) y <= $urandom_range(3, 0);"}

DIFFERING: dict[str, str] = {
    **{f"{q} {shape}": body.format(q=q) for q, (shape, body) in itertools.product(QUALITIES, _CASE_SHAPES.items())},
    **{f"delay {name}": body for name, body in _DELAYS.items()},
    **{f"2-state {name}": body for name, body in _TWO_STATE.items()},
    **{f"random {name}": body for name, body in _RANDOM.items()},
}

# Constructs (by the keywords they use) the rules admit: each must read the same to every tool that reads it.
ADMITTED: dict[str, str] = {
    **{f"plain {shape}": body.format(q="") for shape, body in _CASE_SHAPES.items()},
    "case full": "always @* begin case (a[1:0]) 2'd0: y = 1; 2'd1: y = 2; 2'd2: y = 3; 2'd3: y = 0; endcase end",
    "x default": "always @* begin case (a) 3'd0: y = 1; 3'd1: y = 2; default: y = 2'bx; endcase end",
    "casez z": "always @* begin casez (a) 3'bz1z: y = 1; default: y = 2; endcase end",
    "initial drive": "reg [1:0] r; initial r = 2'd2; always @* y = r;",
    "initial ff": "initial y = 2'd3; always @(posedge clk) if (a[2]) y <= a[1:0];",
    "uninitialised ff": "always @(posedge clk) if (a == 3'd7) y <= 2'd1;",
    "reg initialiser": "reg [1:0] r = 2'd3; always @(posedge clk) if (a[2]) r <= a[1:0]; always @* y = r;",
    "wire initialiser": "wire [1:0] w = a[2:1]; always @* y = w;",
    "wand": "wand [1:0] w; assign w = a[1:0]; assign w = {a[2], a[2]}; always @* y = w;",
    "wor": "wor [1:0] w; assign w = a[1:0]; assign w = {a[2], a[2]}; always @* y = w;",
    "tri0": "tri0 [1:0] w; always @* y = w;",
    "tri1": "tri1 [1:0] w; always @* y = w;",
    "supply0 supply1": "supply1 s; supply0 z; always @* y = {s, z | a[0]};",
    "pullup": "wire w; pullup(w); always @* y = {w, a[0]};",
    "pulldown": "wire w; pulldown(w); always @* y = {w, a[0]};",
    "strengths": "wire w; assign (weak0, weak1) w = a[0]; assign (strong0, strong1) w = a[1]; always @* y = {w, w};",
    "uwire": "uwire [1:0] w = a[1:0]; always @* y = w;",
    "always_comb": "always_comb y = a[1:0] ^ a[2:1];",
    "always_comb latch": "always_comb begin if (a[0]) y = a[2:1]; end",
    "always_latch": "always_latch begin if (a[0]) y = a[2:1]; end",
    "always_ff": "always_ff @(posedge clk) y <= a[1:0];",
    "negedge": "always @(negedge clk) y <= a[1:0];",
    "posedge or": "always @(posedge clk or posedge a[2]) if (a[2]) y <= 0; else y <= a[1:0];",
    "inside": "always @* y = (a inside {3'd1, 3'd4}) ? 2'd1 : 2'd2;",
    "wildcard equality": "always @* y = (a ==? 3'b1?0) ? 2'd1 : 2'd2;",
    "signed arithmetic shift": "always @* y = $signed(a) >>> 1;",
    "real": "real r; always @* begin r = a * 0.5; y = $rtoi(r); end",
    "integer": "integer i; always @* begin i = a / 2; y = i; end",
    "function automatic": "function automatic [1:0] f(input [2:0] v); f = v[2:1] ^ v[1:0]; endfunction always @* y = f(a);",
    "task": "task automatic t(input [2:0] v, output [1:0] o); o = v[1:0]; endtask always @* t(a, y);",
    "for": "integer k; always @* begin y = 0; for (k = 0; k < 3; k = k + 1) y = y + a[k]; end",
    "generate genvar": "wire [1:0] w; genvar g; generate for (g = 0; g < 2; g = g + 1) begin : gb assign w[g] = a[g] ^ a[2]; "
                       "end endgenerate always @* y = w;",
    "generate if": "localparam P = 1; wire [1:0] w; generate if (P) begin : gi assign w = a[1:0]; end else begin : ge "
                   "assign w = 0; end endgenerate always @* y = w;",
    "generate case": "localparam P = 1; wire [1:0] w; generate case (P) 1: begin : gc assign w = ~a[1:0]; end "
                     "default: begin : gd assign w = 0; end endcase endgenerate always @* y = w;",
    "disable": "always @* begin : blk y = 0; if (a[0]) disable blk; y = a[2:1]; end",
    "wait": "always @* begin wait (a[0]); y = a[2:1]; end",
    "fork join": "always @* fork y = a[1:0]; join",
    "specify": "always @* y = a[1:0]; specify (a => y) = 5; endspecify",
    "switch nmos": "wire w; nmos n1(w, a[0], a[1]); always @* y = {w, w};",
    "switch tran": "wire w1, w2; assign w1 = a[0]; tran t1(w1, w2); always @* y = {w2, w1};",
    "gates": "wire t, u, v; and g1(t, a[0], a[1]); xor g2(u, a[1], a[2]); not g3(v, a[0]); always @* y = {t ^ v, u};",
    "event": "event e; always @* begin -> e; y = a[1:0]; end",
    "repeat": "always @* begin y = 0; repeat (2) y = y + a[0]; end",
    "while": "integer k; always @* begin y = 0; k = 0; while (k < 2) begin y = y + a[k]; k = k + 1; end end",
    "do while": "integer k; always @* begin y = 0; k = 0; do begin y = y + a[k]; k++; end while (k < 2); end",
    "foreach": "logic [2:0] v; always @* begin v = a; y = 0; foreach (v[k]) y = y + v[k]; end",
    "break continue": "integer k; always @* begin y = 0; for (k = 0; k < 3; k++) begin if (k == 1) continue; "
                      "if (a[k]) break; y = y + 1; end end",
    "return": "function [1:0] f(input [2:0] v); if (v[0]) return 2'd3; return v[2:1]; endfunction always @* y = f(a);",
    "forever": "initial forever @(a) y = a[1:0];",
    "final": "always @* y = a[1:0]; final y = 0;",
    "static": "always @* begin static logic [1:0] t = 2'd3; y = t ^ a[1:0]; end",
    "automatic": "always @* begin automatic logic [1:0] t = 2'd3; y = t ^ a[1:0]; end",
    "const": "const logic [1:0] K = 2'd2; always @* y = K ^ a[1:0];",
    "localparam parameter": "localparam [1:0] K = 2'd2; always @* y = K ^ a[1:0];",
    "enum typedef": "typedef enum logic [1:0] {A, B, C} st; st s; always @* begin s = st'(a[1:0]); y = s; end",
    "struct packed": "typedef struct packed {logic p; logic q;} pq; pq v; always @* begin v = a[1:0]; y = v; end",
    "union packed": "typedef union packed {logic [1:0] w; logic [1:0] z;} u_t; u_t v; always @* begin v = a[1:0]; "
                    "y = v; end",
    "assert": "always @* begin y = a[1:0]; assert (a != 3'd7); end",
    "assume": "always @* begin y = a[1:0]; assume (a != 3'd7); end",
    "cover": "always @* begin y = a[1:0]; cover (a == 3'd7); end",
    "var": "var logic [1:0] t; always @* begin t = a[1:0]; y = t; end",
    "logic multiple drivers": "logic [1:0] w; assign w = a[1:0]; assign w = a[2:1]; always @* y = w;",
    "edge": "always @(edge clk) y <= a[1:0];",
    "iff": "always @(posedge clk iff a[2]) y <= a[1:0];",
    "deassign": "always @* begin assign y = a[1:0]; end",
    "let": "let f(x) = x[1:0] ^ 2'd1; always @* y = f(a);",
    "signed unsigned": "wire signed [2:0] s = a; always @* y = $unsigned(s >>> 1);",
    "trireg": "trireg w; always @* y = {w, a[0]};",
    "scalared vectored": "wire scalared [1:0] s = a[1:0]; wire vectored [1:0] v = s; always @* y = v;",
    "packed array": "logic [1:0][1:0] m; always @* begin m[0] = a[1:0]; m[1] = a[2:1]; y = m[0] ^ m[1]; end",
    "unpacked array": "reg [1:0] m [0:3]; always @(posedge clk) m[a[1:0]] <= a[2:1]; always @* y = m[a[1:0]];",
    "streaming": "always @* y = {<<{a[1:0]}};",
    "cast": "always @* y = 2'(a + 1);",
    "increment": "integer k; always @* begin k = a; k++; y = k; end",
    "compound assignment": "integer k; always @* begin k = a; k += 2; y = k; end",
    "string": "always @* begin y = a[1:0]; if (a == 3'd7) $display(\"seven\"); end",
    "time": "time t; always @* begin t = $time; y = a[1:0]; end",
    "realtime": "realtime t; always @* begin t = $realtime; y = a[1:0]; end",
    "shortreal": "shortreal r; always @* begin r = a; y = $rtoi(r); end",
    "chandle": "always @* y = a[1:0];",
    "timeunit": "timeunit 1ns; always @* y = a[1:0];",
    "default_nettype": "always @* y = a[1:0];",
}
