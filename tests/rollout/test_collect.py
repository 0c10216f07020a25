"""`coderl.rollout.collect.collect` (training and evaluation both collect through it) with a tiny random
model and the real sandbox: rows are task-major and row i's result is the result of row i's program, and a
chunked collection submits each chunk's programs to the sandbox before the next chunk generates."""

import pytest

torch = pytest.importorskip("torch")

from coderl.rollout.collect import Generation, collect  # noqa: E402
from coderl.sandbox.config import SandboxConfig  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from tests.models.tiny import tiny_model  # noqa: E402
from tests.train.helpers import TASKS  # noqa: E402


class Recording:
    """The real sandbox, with every submitted request and its future recorded, in submit order."""

    def __init__(self, sandbox, events: list):
        self.sandbox, self.events = sandbox, events
        self.requests, self.futures = [], []

    def submit(self, request):
        future = self.sandbox.submit(request)
        self.requests.append(request)
        self.futures.append(future)
        self.events.append("submit")
        return future


@pytest.fixture(scope="module")
def tiny():
    return tiny_model(seed=0)


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(TASKS).tasks


@pytest.fixture
def events(monkeypatch):
    """Event log of generate calls (collect imports `generate` at call time, so the patch is seen)."""
    from coderl.rollout import generation

    log, real = [], generation.generate

    def generate(model, tokenizer, chunk, **kwargs):
        log.append("generate " + ",".join(t.task_id for t in chunk))
        out = real(model, tokenizer, chunk, **kwargs)
        log.append("generated")
        return out

    monkeypatch.setattr(generation, "generate", generate)
    return log


def test_rows_are_task_major_and_each_result_is_its_rows(tiny, tasks, sandbox, events):
    model, tok = tiny
    limits = SandboxConfig(workers=2).limits()
    recording = Recording(sandbox, events)
    gen = Generation(format="completion", samples_per_prompt=2, max_new_tokens=6, temperature=1.0, seed=5,
                     batch_size=16)
    got = collect(model, tok, tasks, recording, gen, limits)
    samples = got.batch.samples
    assert [s.task_id for s in samples] == [t.task_id for t in tasks for _ in range(2)]
    assert got.batch.group_ids.tolist() == [i for i in range(len(tasks)) for _ in range(2)]
    assert not got.skipped and len(got.results) == len(samples) == len(recording.requests)
    for i, s in enumerate(samples):
        assert recording.requests[i] == tasks[s.group].build_request(s.completion, limits), i
        assert got.results[i] is recording.futures[i].result(), i  # row i's result is its own program's
    assert got.gen_tokens == sum(len(s.gen_tokens) for s in samples)


def test_a_chunked_collection_submits_before_generation_ends(tiny, tasks, sandbox, events):
    """generation_batch_size 2 with 2 samples per prompt: one task per generate call; each chunk's programs
    go to the sandbox before the next chunk generates, and the rows are those of one big call."""
    model, tok = tiny
    recording = Recording(sandbox, events)
    gen = Generation(format="completion", samples_per_prompt=2, max_new_tokens=6, temperature=1.0, seed=5,
                     batch_size=2)
    logged = []
    got = collect(model, tok, tasks, recording, gen, SandboxConfig(workers=2).limits(), log=logged.append)
    assert [line.split(" (")[0] for line in logged] == ["generated 1/3 tasks", "generated 2/3 tasks",
                                                        "generated 3/3 tasks"]
    assert all(" left)" in line for line in logged[:2]) and "left" not in logged[2]  # the time left, while some is
    ids = [t.task_id for t in tasks]
    assert events == [e for t in ids for e in (f"generate {t}", "generated", "submit", "submit")]
    assert events.index("submit") < len(events) - 1 - events[::-1].index("generated")  # overlap
    assert [s.task_id for s in got.samples] == [t for t in ids for _ in range(2)]
    assert got.batch.group_ids.tolist() == [0, 0, 1, 1, 2, 2]  # renumbered across chunks
    for i, s in enumerate(got.samples):
        assert got.results[i] is recording.futures[i].result()
        assert recording.requests[i] == tasks[s.group].build_request(s.completion, SandboxConfig(workers=2).limits())


@pytest.mark.parametrize("seconds, said", [(0.2, "about 1 s"), (42.4, "about 42 s"), (59.6, "about 60 s"),
                                           (61, "about 1 min"), (749, "about 12 min"), (7500, "about 2 h 5 min")])
def test_eta_reads_as_a_person_says_it(seconds, said):
    from coderl.base.progress import eta

    assert eta(seconds) == said


def test_plain_progress_says_the_steps_and_the_time_left():
    """SFT without its bar (`progress: false`, as the demo runs it): a line at most every `every` seconds and one
    at the last step."""
    from coderl.train.tracking import Progress

    lines = []
    progress = Progress("sft step", 3, 0, lambda m: f"loss {m['loss']}", bar=False, log=lines.append, every=0)
    for step in (1, 2, 3):
        progress.update(step, {"loss": step})
    progress.close()
    assert [line.split(",")[0] for line in lines] == ["sft step 1/3 loss 1", "sft step 2/3 loss 2",
                                                      "sft step 3/3 loss 3"]
    assert lines[0].endswith(" left") and lines[2] == "sft step 3/3 loss 3"


def test_chunk_bounds_balance_only_when_asked():
    from coderl.rollout.batching import chunk_bounds

    assert chunk_bounds(125, 31, balanced=False) == [0, 31, 62, 93, 124, 125]  # CPU: today's chunks
    assert chunk_bounds(125, 31, balanced=True) == [0, 25, 50, 75, 100, 125]  # the same 5 chunks, one size
    assert chunk_bounds(7, 3, balanced=True) == [0, 3, 5, 7] and chunk_bounds(6, 3, balanced=True) == [0, 3, 6]
    assert chunk_bounds(0, 4, balanced=True) == [0] == chunk_bounds(0, 4, balanced=False)
    for tasks in range(1, 60):  # the chunks after any chunk's end are those of the rest split alone (--resume)
        for per in (1, 3, 7, 10):
            bounds = chunk_bounds(tasks, per, balanced=True)
            sizes = [b - a for a, b in zip(bounds, bounds[1:])]
            assert len(sizes) == len(chunk_bounds(tasks, per, balanced=False)) - 1
            assert max(sizes) - min(sizes) <= 1 and max(sizes) <= per
            for i, done in enumerate(bounds[:-1]):
                assert [done + b for b in chunk_bounds(tasks - done, per, balanced=True)] == bounds[i:]


def _widths(monkeypatch):
    """The rows of every `model.generate` call (`rollout.hf._generate_chunk`)."""
    from coderl.rollout import hf

    widths, real = [], hf._generate_chunk

    def spy(*args, **kwargs):
        widths.append(args[2].shape[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(hf, "_generate_chunk", spy)
    return widths


def test_where_generation_compiles_every_chunk_has_one_shape(tiny, tasks, sandbox, events, monkeypatch):
    """A CUDA model under the static-cache policy (faked: `decodes_static` says yes on CPU, so the static
    cache runs here uncompiled): 5 tasks x 2 samples at batch 8 are 2 chunks of 3 and 2 tasks, both padded
    to 8 rows, not 4 tasks (8 rows) and a remainder of 1 (2 rows, a second compiled shape)."""
    from coderl.rollout import hf

    model, tok = tiny
    five = (list(tasks) * 2)[:5]
    gen = Generation(format="completion", samples_per_prompt=2, max_new_tokens=4, temperature=1.0, seed=5,
                     batch_size=8)
    widths = _widths(monkeypatch)
    collect(model, tok, five, sandbox, gen, SandboxConfig(workers=2).limits())
    assert [e.count(",") + 1 for e in events if e.startswith("generate ")] == [4, 1] and widths == [8, 2]  # CPU
    events.clear()
    widths.clear()
    monkeypatch.setattr(hf, "decodes_static", lambda model, static, work, planned=None: True)
    got = collect(model, tok, five, sandbox, gen, SandboxConfig(workers=2).limits())
    assert [e.count(",") + 1 for e in events if e.startswith("generate ")] == [3, 2]
    assert widths == [8, 8]  # one shape: the short chunk padded
    assert [s.task_id for s in got.samples] == [t.task_id for t in five for _ in range(2)]  # padding not kept


def test_every_chunk_decides_compilation_on_the_whole_planned_work(tiny, tasks, sandbox, monkeypatch):
    """3 tasks x 2 samples x 4 tokens in chunks of 1 task: each call is 2 x 4 = 8 work tokens, the collection
    24; the caller's plan (a training run's steps) counts when larger."""
    from coderl.rollout import hf

    model, tok = tiny
    seen = []
    monkeypatch.setattr(hf, "use_static_cache",
                        lambda device, static, work=None, planned=None: seen.append((work, planned)) or False)
    gen = Generation(format="completion", samples_per_prompt=2, max_new_tokens=4, batch_size=2)
    collect(model, tok, tasks, sandbox, gen, SandboxConfig(workers=2).limits())
    assert seen == [(24, 24)] + [(8, 24)] * 3  # collect's decision, then each chunk's call
    seen.clear()
    collect(model, tok, tasks, sandbox, Generation(**{**gen.__dict__, "planned_tokens": 20 * 24}),
            SandboxConfig(workers=2).limits())
    assert seen == [(24, 480)] + [(8, 480)] * 3
