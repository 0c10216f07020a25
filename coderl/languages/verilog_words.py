"""The vocabulary of Verilog as Icarus Verilog 11 lexes it with -g2012 (`verilog_lexer`): its reserved
words (IEEE 1364-2005 §3.7.2 and the SystemVerilog and Icarus words iverilog reserves, from its
lexor_keyword.gperf) and its operators of more than one character (§3.4 and the SystemVerilog ones).
Data: the lexer's rules are in `verilog_lexer`.
"""

# Keywords iverilog -g2012 reserves (its lexor_keyword.gperf: 1364-1995 ... 1800-2012 and Icarus's own).
KEYWORDS = frozenset("""
accept_on alias always always_comb always_ff always_latch and assert assign assume automatic before begin bind
bins binsof bit bool break buf bufif0 bufif1 byte case casex casez cell chandle checker class clocking cmos
config const constraint context continue cover covergroup coverpoint cross deassign default defparam design
disable dist do edge else end endcase endchecker endclass endclocking endconfig endfunction endgenerate
endgroup endinterface endmodule endpackage endprimitive endprogram endproperty endsequence endspecify endtable
endtask enum event eventually expect export extends extern final first_match for force foreach forever fork
forkjoin function generate genvar global highz0 highz1 if iff ifnone ignore_bins illegal_bins implements
implies import incdir include initial inout input inside instance int integer interconnect interface
intersect join join_any join_none large let liblist library local localparam logic longint macromodule
matches medium modport module nand negedge nettype new nexttime nmos nor noshowcancelled not notif0 notif1
null or output package packed parameter pmos posedge primitive priority program property protected pull0
pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent pure rand randc randcase randsequence rcmos real
realtime ref reg reject_on release repeat restrict return rnmos rpmos rtran rtranif0 rtranif1 s_always
s_eventually s_nexttime s_until s_until_with scalared sequence shortint shortreal showcancelled signed small
soft solve specify specparam static string strong strong0 strong1 struct super supply0 supply1
sync_accept_on sync_reject_on table tagged task this throughout time timeprecision timeunit tran tranif0
tranif1 tri tri0 tri1 triand trior trireg type typedef union unique unique0 unsigned until until_with
untyped use uwire var vectored virtual void wait wait_order wand weak weak0 weak1 while wildcard wire with
within wone wor wreal xnor xor
""".split())
# Words some generation of iverilog reserves (Verilog-AMS too): an escaped identifier with one of these
# names stays escaped, so no tool reads it as a keyword.
ANY_KEYWORDS = KEYWORDS | frozenset("""
above abs absdelay abstol ac_stim access acos acosh aliasparam analog analysis asin asinh atan atan2 atanh
branch ceil connect connectmodule connectrules continuous cos cosh ddt ddt_nature ddx discipline discrete
domain driver_update endconnectrules enddiscipline endnature endparamset exclude exp final_step flicker_noise
floor flow from ground hypot idt idt_nature idtmod inf initial_step laplace_nd laplace_np laplace_zd
laplace_zp last_crossing limexp ln log max merged min nature net_resolution noise_table paramset potential
pow resolveto sin sinh slew split sqrt tan tanh timer transition units white_noise zi_nd zi_np zi_zd zi_zp
""".split())

# Operators of more than one character (§3.4 and iverilog's SystemVerilog ones), longest first.
OPERATORS = sorted("""
<<<= >>>= <<< >>> === !== ==? !=? <-> &&& <<= >>= (* *) .* << >> ** <= >= => *> == != || && ~| ~^ ^~ ~& -> +:
-: <+ += -= *= /= %= &= |= ^= ++ -- :: '{
""".split(), key=len, reverse=True)
