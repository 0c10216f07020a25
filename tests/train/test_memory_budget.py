"""--memory-budget (`train/memory.py`): sizes, the micro-batch rule from a one-row probe (hand-computed with a
stand-in meter), the real meter on a known allocation, one-line errors for an impossible budget (before
anything is written) and for a row that alone exceeds it, and a run whose update is cut by the budget into
micro-batches with the gradients of the whole minibatch."""

import json

import pytest

from coderl.base.config import ConfigError
from coderl.train import memory
from coderl.train.memory import MemoryBudget, PeakMeter, check_budget, chunk_bytes, parse_size

GB, MB = 1 << 30, 1 << 20


@pytest.mark.parametrize("text,want", [("8G", 8 * GB), ("512M", 512 * MB), ("1.5g", int(1.5 * GB)),
                                       ("2048", 2048), ("8GB", 8 * GB), ("8GiB", 8 * GB), ("auto", None),
                                       ("none", None)])
def test_sizes(text, want):
    assert parse_size(text) == want


@pytest.mark.parametrize("text", ["8X", "-1G", "0", "", "eight"])
def test_a_bad_size_is_one_line(text):
    with pytest.raises(ConfigError, match=r"^--memory-budget .*: expected a size such as 8G") as err:
        parse_size(text)
    assert "\n" not in str(err.value)


def test_log_prob_chunks_follow_the_budget():
    assert chunk_bytes(None) == 256 * MB
    assert chunk_bytes(8 * GB) == 128 * MB  # 1/64 of the budget
    assert chunk_bytes(64 * GB) == 256 * MB  # at most the cap
    assert chunk_bytes(10 * MB) == 1 * MB  # at least 1 MB


def _cgroup_tree(tmp_path, proc_lines: str, limits: dict) -> tuple[str, str]:
    proc = tmp_path / "cgroup"
    proc.write_text(proc_lines)
    for rel, value in limits.items():
        (tmp_path / "sys" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "sys" / rel).write_text(value + "\n")
    return str(proc), str(tmp_path / "sys")


@pytest.mark.parametrize("proc_lines, limits, want_gib", [
    # cgroup v2: the job's own group is limited; its parent less so; the mount's root has no limit
    ("0::/slurm/job_42\n", {"memory.max": "max", "slurm/memory.max": str(12 << 30),
                             "slurm/job_42/memory.max": str(8 << 30)}, 8),
    # v2: a limit set on the parent only binds the child
    ("0::/user.slice/run-1.scope\n", {"user.slice/memory.max": str(6 << 30),
                                       "user.slice/run-1.scope/memory.max": "max"}, 6),
    # v1: the memory controller's own hierarchy (v1 writes 'no limit' as a huge number)
    ("9:pids:/\n4:memory:/process_api/abc/coderl8g\n1:cpu,cpuacct:/\n",
     {"memory/memory.limit_in_bytes": "9223372036854771712",
      "memory/process_api/abc/coderl8g/memory.limit_in_bytes": str(8 << 30),
      "cpu,cpuacct/memory.limit_in_bytes": str(1 << 30)}, 8),
    # a container: its own group mounted at the root
    ("0::/\n", {"memory.max": str(4 << 30)}, 4),
    # no limit anywhere, or no cgroup file at all: the machine's memory (64 GiB here)
    ("0::/a/b\n", {"a/b/memory.max": "max"}, 64),
])
def test_the_machine_is_the_cgroup_limit_where_lower(tmp_path, monkeypatch, proc_lines, limits, want_gib):
    monkeypatch.setattr("coderl.sandbox.client.total_memory_bytes", lambda: 64 << 30)
    proc, root = _cgroup_tree(tmp_path, proc_lines, limits)
    assert memory.machine_bytes(proc, root) == want_gib << 30
    assert memory.machine_bytes(str(tmp_path / "absent"), str(tmp_path / "none")) == 64 << 30


def test_an_impossible_budget_names_what_it_must_hold():
    with pytest.raises(ConfigError, match=r"^--memory-budget 1.00 GB: the model's weights take 0.50 GB and the "
                                          r"runtime about 1 GB; expected at least 1.50 GB$"):
        check_budget(GB, GB // 2, "cpu")
    check_budget(GB, GB // 2, "cuda")  # a GPU holds no Python runtime
    check_budget(None, GB, "cpu")
    check_budget(GB, None, "cpu")


class FakeMeter:
    """A peak of `PER_ROW` above `IN_USE` for every probe."""
    PER_ROW, IN_USE, AVAILABLE = 600 * MB, 200 * MB, 64 * GB

    def __init__(self, device="cpu"):
        self.before = self.peak = 0
        self.exact = True

    def __enter__(self):
        self.before = self.IN_USE
        return self

    def __exit__(self, *exc):
        self.peak = self.IN_USE + self.PER_ROW
        return False

    def in_use(self):
        return self.IN_USE

    def available(self):
        return self.AVAILABLE


def test_the_micro_batch_is_the_free_budget_over_the_probed_row(monkeypatch):
    monkeypatch.setattr(memory, "PeakMeter", FakeMeter)
    probes, lines = [], []
    budget = MemoryBudget(4 * GB, log=lines.append)
    # (4096 MB - 200 in use) / (1.5 x 600 per row) = 4.33 -> 4 rows
    assert budget.rows("grad", 16, 300, lambda: probes.append(300)) == 4
    assert budget.rows("grad", 16, 300, lambda: probes.append(300)) == 4  # known width: no second probe
    assert budget.rows("grad", 3, 200, lambda: probes.append(200)) == 3  # never more rows than there are
    assert probes == [300]
    assert budget.rows("grad", 16, 400, lambda: probes.append(400)) == 4 and probes == [300, 400]  # wider: again
    assert budget.rows("no_grad", 16, 400, lambda: probes.append(-1), agree=False) == 4  # its own probe
    assert probes == [300, 400, -1]
    assert budget.metrics() == {"memory/grad_rows": 4.0, "memory/no_grad_rows": 4.0}
    assert "a grad pass of one 300-token row peaks 0.59 GB above 0.20 GB in use; 4 rows at once (x1.5 safety)" \
        in lines[0]
    agreed = MemoryBudget(4 * GB, gather_min=lambda value: min(value, 3))  # another process fits only 3
    assert agreed.rows("grad", 16, 300, lambda: None) == 3
    assert agreed.rows("no_grad", 16, 300, lambda: None, agree=False) == 4  # each process's own
    assert MemoryBudget(None).rows("grad", 16, 300, lambda: pytest.fail("no budget, no probe")) == 16


def test_what_the_machine_has_left_caps_the_budget(monkeypatch):
    """A generation worker or another job holds memory: (2 GB available) / 900 MB = 2 rows, not the
    budget's 4."""
    monkeypatch.setattr(memory, "PeakMeter", FakeMeter)
    monkeypatch.setattr(FakeMeter, "AVAILABLE", 2 * GB)
    assert MemoryBudget(4 * GB).rows("grad", 16, 300, lambda: None) == 2


def test_every_process_refuses_together(monkeypatch):
    """Another process cannot fit one row: the gathered 0 makes this one refuse too (no rank is left
    waiting in a collective)."""
    monkeypatch.setattr(memory, "PeakMeter", FakeMeter)
    with pytest.raises(ConfigError, match=r"^--memory-budget 4.00 GB: one row of 300 tokens needs"):
        MemoryBudget(4 * GB, gather_min=lambda value: 0).rows("grad", 16, 300, lambda: None)


def test_an_unresettable_peak_never_refuses(monkeypatch):
    """Where VmHWM cannot be reset the measured peak is the process's lifetime one: one row at a time,
    never an error on it."""
    class Lifetime(FakeMeter):
        PER_ROW = 8 * GB

        def __init__(self, device="cpu"):
            super().__init__(device)
            self.exact = False

    monkeypatch.setattr(memory, "PeakMeter", Lifetime)
    assert MemoryBudget(4 * GB).rows("grad", 16, 300, lambda: None) == 1


def test_a_row_that_alone_exceeds_the_budget_is_one_line(monkeypatch):
    monkeypatch.setattr(memory, "PeakMeter", FakeMeter)
    with pytest.raises(ConfigError, match=r"^--memory-budget 1.00 GB: one row of 900 tokens needs 0.59 GB \(grad "
                                          r"pass, measured\) with 0.20 GB in use; raise the budget, or "
                                          r"--gradient-checkpointing, or fewer --max-new-tokens$"):
        MemoryBudget(GB).rows("grad", 8, 900, lambda: None)


def test_the_cpu_meter_sees_a_known_allocation():
    torch = pytest.importorskip("torch")
    meter = PeakMeter("cpu")
    with meter:
        block = torch.ones(64 * MB)  # 256 MB, every page written
        del block
    assert 0.8 * 256 * MB <= meter.peak - meter.before <= 1.25 * 256 * MB
    assert meter.in_use() < meter.peak


def test_a_run_cut_into_micro_batches_by_the_budget_makes_the_same_update(tmp_path, monkeypatch):
    """6 rows a step; a stand-in meter makes the budget fit 2 rows at once: three micro-batches whose
    gradients sum to the whole minibatch's (the loss and grad norm of the budget-less run)."""
    pytest.importorskip("torch")
    from coderl.train.rl.policy_gradient import train
    from tests.models.tiny import tiny_llama
    from tests.train.helpers import base_config, varied_reward

    model_dir = tiny_llama(tmp_path / "model")
    runs, lines = {}, []
    monkeypatch.setattr(memory, "PeakMeter", FakeMeter)  # (2048 - 200) / 900 = 2.05 -> 2 rows
    import coderl.train.updater as updater_module

    real, sizes = updater_module.pieces, []
    monkeypatch.setattr(updater_module, "pieces", lambda *a, **k: sizes.append(k["size"]) or real(*a, **k))
    for budget in ("none", "2G"):
        start = len(sizes)
        cfg = base_config(model_dir, tmp_path / budget, steps=1, memory_budget=budget, kl_beta=0.05)
        train(cfg, log=lines.append, reward_override=varied_reward)
        runs[budget] = (sizes[start:], json.loads(open(tmp_path / budget / "metrics.jsonl").readline()))
    assert runs["none"][0] == [None] and runs["2G"][0] == [2]
    whole, cut = runs["none"][1], runs["2G"][1]
    assert cut["memory/grad_rows"] == 2.0 and cut["memory/no_grad_rows"] == 2.0 and "memory/grad_rows" not in whole
    assert cut["loss/total"] == pytest.approx(whole["loss/total"], abs=1e-6)
    assert cut["train/grad_norm"] == pytest.approx(whole["train/grad_norm"], rel=1e-4)
    assert cut["kl/mean"] == pytest.approx(whole["kl/mean"], abs=1e-6)  # the reference pass, in pieces too
    assert any("memory budget 2.00 GB (2G)" in line for line in lines)


def test_an_impossible_budget_stops_the_run_before_anything_is_written(tmp_path):
    pytest.importorskip("torch")
    from coderl.train.rl.policy_gradient import train
    from tests.models.tiny import tiny_llama
    from tests.train.helpers import base_config

    cfg = base_config(tiny_llama(tmp_path / "model"), tmp_path / "run", memory_budget="512M")
    with pytest.raises(ConfigError, match=r"^--memory-budget 0.50 GB: the model's weights take 0.00 GB"):
        train(cfg, log=lambda line: None)
    assert not (tmp_path / "run").exists()


def test_the_dry_run_prints_the_choice(capsys, tmp_path):
    from coderl.cli import main

    assert main(["train", "--out", str(tmp_path / "r"), "--dry-run", "--memory-budget", "8G",
                 "--gradient-checkpointing"]) == 0
    out = capsys.readouterr().out
    assert ("memory budget 8.00 GB: each kind of training pass first runs one row alone, and its micro-batch is "
            "(budget - memory in use, or what the machine has left if less) / (1.5 x that row's measured peak) rows; "
            "log-prob logits in chunks of <= 0.12 GB; decoder layers checkpointed (--gradient-checkpointing)") in out
    assert main(["train", "--out", str(tmp_path / "r"), "--dry-run", "--micro-batch-size", "2"]) == 0
    assert "micro-batches of 2 rows (--micro-batch-size, over any memory budget)" in capsys.readouterr().out
