"""Per-slot cgroups, v1 and v2, against fake hierarchies (plain directories with the kernel's file names),
so both versions are tested on any machine; the real hierarchy is exercised by the isolation tests."""

import os

from coderl.sandbox.server.contain import cgroups


def _v2_root(tmp_path, controllers="cpu io memory pids"):
    (tmp_path / "cgroup.controllers").write_text(controllers + "\n")
    return str(tmp_path)


def test_detect_tells_the_versions_apart(tmp_path):
    assert cgroups.detect(str(tmp_path)) is None
    (tmp_path / "pids").mkdir()
    (tmp_path / "pids" / "cgroup.procs").write_text("")
    assert cgroups.detect(str(tmp_path)) == "v1"
    assert cgroups.detect(_v2_root(tmp_path)) == "v2"


def test_v2_enables_controllers_below_an_empty_parent_and_writes_v2_files(tmp_path):
    root = _v2_root(tmp_path)
    cg = cgroups.create(2, "coderl-123", "v2", root)
    assert cg.version == "v2" and cg.controllers == ("pids", "memory")
    base = tmp_path / "coderl-123"
    assert (base / "cgroup.subtree_control").read_text() == "+memory"  # the last write of a fake file
    cg.set_limits(1, 64, 2 << 30)
    assert (base / "slot1" / "pids.max").read_text() == "64"
    assert (base / "slot1" / "memory.max").read_text() == str(2 << 30)
    assert (base / "slot1" / "memory.swap.max").read_text() == "0"
    (base / "slot1" / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n")
    assert cg.oom_kills(1) == 2 and cg.oom_kills(0) == 0
    (base / "slot0" / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    assert cg.cpu_seconds(0) == 2.5 and cg.cpu_seconds(1) is None
    cg.renew(0)  # (a fake group is a plain directory: rmdir fails while it holds files, and it stays)
    (base / "slot0" / "cgroup.procs").write_text("")
    assert cg.pids(0) == []
    assert cg.kill(0) == [] and (base / "slot0" / "cgroup.kill").read_text() == "1"


def test_v2_without_the_controllers_still_groups_processes(tmp_path):
    cg = cgroups.create(1, "coderl-7", "v2", _v2_root(tmp_path, "cpu io"))
    assert cg.controllers == ()
    cg.set_limits(0, 64, 1 << 30)
    assert not (tmp_path / "coderl-7" / "slot0" / "pids.max").exists()


def test_v1_writes_v1_files(tmp_path):
    for ctrl in ("pids", "memory", "cpuacct"):
        (tmp_path / ctrl).mkdir()
    cg = cgroups.create(2, "coderl-9", "v1", str(tmp_path))
    assert cg.version == "v1" and set(cg.controllers) == {"pids", "memory", "cpuacct"}
    assert cg.cpu_seconds(0) is None  # no counter file: no count
    (tmp_path / "cpuacct" / "coderl-9" / "slot0" / "cpuacct.usage").write_text("1500000000\n")
    assert cg.cpu_seconds(0) == 1.5
    cg.set_limits(0, 16, 1 << 30)
    assert (tmp_path / "pids" / "coderl-9" / "slot0" / "pids.max").read_text() == "16"
    assert (tmp_path / "memory" / "coderl-9" / "slot0" / "memory.limit_in_bytes").read_text() == str(1 << 30)
    (tmp_path / "memory" / "coderl-9" / "slot0" / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 4\n")
    assert cg.oom_kills(0) == 4


def test_renew_makes_an_empty_group_anew_and_leaves_one_that_holds_processes(tmp_path):
    for ctrl in ("pids", "memory", "cpuacct"):
        (tmp_path / ctrl).mkdir()
    cg = cgroups.create(2, "coderl-5", "v1", str(tmp_path))
    slot0 = tmp_path / "cpuacct" / "coderl-5" / "slot0"
    os.utime(slot0, (1, 1))
    cg.renew(0)  # empty (as the kernel's groups are once their processes are gone): removed and made again
    assert slot0.is_dir() and slot0.stat().st_mtime > 1
    (slot0 / "cgroup.procs").write_text("4242")  # a plain directory that is not empty cannot be removed
    cg.renew(0)
    assert (slot0 / "cgroup.procs").read_text() == "4242"


def test_stale_groups_of_dead_servers_are_removed(tmp_path):
    root = _v2_root(tmp_path)
    dead = tmp_path / "coderl-999999999"
    (dead / "slot0").mkdir(parents=True)
    alive = tmp_path / f"coderl-{os.getpid()}"
    alive.mkdir()
    cgroups.remove_stale(root)
    assert not dead.exists() and alive.exists()
