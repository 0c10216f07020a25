"""RESULTS.md's tables against what results/ keeps (issue 76): `scripts/check_results_tables.py` recomputes a
sample of them (eight sections; the math tables from their compressed samples) and names each cell that differs."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "scripts", "check_results_tables.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)


def test_the_sampled_tables_equal_what_results_keeps():
    done = run()
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 mismatches" in done.stderr


def test_a_changed_figure_is_one_line_naming_its_table(tmp_path):
    with open(os.path.join(REPO, "RESULTS.md"), encoding="utf-8") as f:
        text = f.read()
    row = "| math@test (100, held-out templates) | 0.000 [0.000, 0.000] | 0.040 [0.010, 0.080] | +0.040 [+0.010, +0.080] |"
    assert text.count(row) == 1  # the SFT table's row, whose interval needs the samples.jsonl.gz
    changed = tmp_path / "RESULTS.md"
    changed.write_text(text.replace(row, row.replace("+0.080]", "+0.090]")), encoding="utf-8")
    done = run("--results", str(changed), "--only", "check_math")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["math math-sft/eval-test math@test (100) col 4: RESULTS.md has "
                                        "'+0.040 [+0.010, +0.090]', the kept files give '+0.040 [+0.010, +0.080]'"]
