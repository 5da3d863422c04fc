"""Throughput of realistic-size models built from a config: training tokens/s and MFU, generation tokens/s.

Usage: python bench/bench_gpu_throughput.py [--presets qwen2-1.5b,qwen2-7b] [--train qwen2-1.5b] [--seq-len 2048]
       [--train-batch 8] [--train-steps 6] [--prompt-len 1400] [--new-tokens 64] [--gen-batches 1,16,64]
       [--out DIR]

Why it exists: the policies this project trains on 2 CPU cores are small (a 4 M-parameter Qwen2, the 22 M
MiniLM ranker). Where a GPU is lent, this measures what the same code paths cost at the size a real
deployment would train, with no weights to download: each model is a Qwen2 architecture built from its
config (the published shapes of Qwen2.5-0.5B/1.5B/7B) and randomly initialised on the device. Random
weights change nothing in the arithmetic; ``min_new_tokens`` keeps generation from stopping at an EOS.

- **train**: a full fine-tuning step (bf16 weights, AdamW, causal-LM loss on ``--seq-len`` tokens, gradient
  checkpointing off), as SFT and the GRPO update run it. Tokens/s over ``--train-steps`` timed steps after two
  warm-ups; model FLOPs utilisation (MFU) = achieved FLOP/s over the chip's dense bf16 peak, with FLOPs per
  token = 6 x (matmul parameters) + 12 x layers x hidden x seq-len (PaLM's appendix B count, causal
  attention not halved). MFU is also given against a bf16 matrix product measured in the same run, because
  the spec sheet's peak is rarely reached on any workload.
- **generate**: ``model.generate`` with a KV cache (the rollout path of the ``transformers`` generator in
  GRPO), ``--gen-batches`` prompts of ``--prompt-len`` tokens at once (the compact system prompt averages
  1,400 tokens), ``--new-tokens`` sampled tokens each (an action is 20-60 tokens): generated tokens/s,
  with the prefill included in the time, as a rollout pays it.
- **encoder**: the ranker's shape (a 6-layer, 384-wide BERT like all-MiniLM-L6-v2) encoding 250 candidates of
  32 tokens, the page of ``bench_ranker.py``: milliseconds per page.

Runs on a CPU too (``--presets tiny --train tiny``), which is how the test suite keeps it working.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

# The published shapes (config.json) of Qwen2.5 models; ``tiny`` is the CPU pipeline's model.
PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(hidden_size=256, intermediate_size=704, num_hidden_layers=4, num_attention_heads=4,
                 num_key_value_heads=2, vocab_size=4096, tie_word_embeddings=True),
    "qwen2-0.5b": dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                       num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True),
    "qwen2-1.5b": dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
                       num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True),
    "qwen2-7b": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
                     num_key_value_heads=4, vocab_size=152064, tie_word_embeddings=False),
}
# Dense bf16 peaks from the vendors' spec sheets (no sparsity), in TFLOP/s.
PEAK_BF16_TFLOPS = {"H100": 989.4, "H200": 989.4, "A100": 312.0}


def build(preset: str, device: Any, dtype: Any) -> Any:
    """The preset's Qwen2 model, initialised directly on ``device`` (a 7 B model never touches host memory)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(**PRESETS[preset], max_position_embeddings=32768, use_sliding_window=False,
                         rope_theta=1_000_000.0)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
    return model


def matmul_parameters(model: Any) -> int:
    """Parameters that take part in a matrix product per token: every Linear (the LM head too, tied or not)."""
    import torch

    return sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))


def flops_per_token(model: Any, seq_len: int) -> float:
    """Training FLOPs per token: forward and backward of the matmuls, plus attention scores and values."""
    config = model.config
    return 6.0 * matmul_parameters(model) + 12.0 * config.num_hidden_layers * config.hidden_size * seq_len


def synchronize(device: Any) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()


def measured_matmul_tflops(device: Any, n: int = 8192, repeats: int = 10) -> float:
    """The bf16 matrix-product rate this chip reaches now: the practical ceiling MFU is also quoted against."""
    import torch

    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    synchronize(device)
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    synchronize(device)
    return 2.0 * n ** 3 * repeats / (time.perf_counter() - start) / 1e12


def train_throughput(preset: str, device: Any, dtype: Any, batch: int, seq_len: int, steps: int) -> dict[str, Any]:
    """Timed full fine-tuning steps of ``preset`` on random token ids."""
    import torch

    model = build(preset, device, dtype)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=device.type == "cuda")
    ids = torch.randint(0, model.config.vocab_size, (batch, seq_len), device=device)

    for _ in range(2):
        _train_step(model, optimizer, ids)
    synchronize(device)
    start = time.perf_counter()
    for _ in range(steps):
        _train_step(model, optimizer, ids)
    synchronize(device)
    seconds = (time.perf_counter() - start) / steps
    tokens_per_s = batch * seq_len / seconds
    result = {"preset": preset, "parameters": sum(p.numel() for p in model.parameters()),
              "matmul_parameters": matmul_parameters(model), "batch": batch, "seq_len": seq_len,
              "step_s": round(seconds, 4), "tokens_per_s": round(tokens_per_s, 1),
              "achieved_tflops": round(tokens_per_s * flops_per_token(model, seq_len) / 1e12, 2),
              "peak_memory_gib": _peak_memory(device)}
    del model, optimizer
    _release(device)
    return result


def _train_step(model: Any, optimizer: Any, ids: Any) -> None:
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def train_fitting(preset: str, device: Any, dtype: Any, batch: int, seq_len: int, steps: int) -> dict[str, Any]:
    """``train_throughput`` at the largest batch, halving from ``batch``, that fits in the device's memory."""
    import torch

    while True:
        try:
            return train_throughput(preset, device, dtype, batch, seq_len, steps)
        except torch.OutOfMemoryError:
            if batch == 1:
                raise
        _release(device)  # outside the handler: its traceback holds the model's tensors
        print(f"batch {batch} does not fit; trying {batch // 2}", flush=True)
        batch //= 2


def generate_throughput(preset: str, device: Any, dtype: Any, batches: list[int], prompt_len: int,
                        new_tokens: int, cache: str = "dynamic") -> list[dict[str, Any]]:
    """Sampled generation with a KV cache at each batch size; prefill counted, as a rollout pays it.

    ``cache="static"`` preallocates the cache, which makes ``generate`` compile the decoding step
    (CUDA graphs): the warm-up then runs at full shape, so compilation stays out of the timing."""
    import torch

    model = build(preset, device, dtype)
    model.eval()
    rows = []
    for batch in batches:
        ids = torch.randint(0, model.config.vocab_size, (batch, prompt_len), device=device)
        kwargs = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=True, temperature=1.0,
                      top_k=0, pad_token_id=0, cache_implementation=cache)
        with torch.no_grad():
            if cache == "static":  # the cache's length is part of the compiled graph: warm up at the same shape
                model.generate(ids, **kwargs)
            else:
                model.generate(ids[:, :32], **{**kwargs, "max_new_tokens": 4, "min_new_tokens": 4})
            synchronize(device)
            start = time.perf_counter()
            out = model.generate(ids, **kwargs)
            synchronize(device)
        seconds = time.perf_counter() - start
        generated = (out.shape[1] - prompt_len) * batch
        rows.append({"preset": preset, "cache": cache, "batch": batch, "prompt_len": prompt_len, "new_tokens": new_tokens,
                     "seconds": round(seconds, 3), "generated_tokens_per_s": round(generated / seconds, 1),
                     "ms_per_action": round(1000 * seconds / batch, 1),
                     "forward_ms_per_token": decode_forward_ms(model, ids, new_tokens, device),
                     "peak_memory_gib": _peak_memory(device)})
    del model
    _release(device)
    return rows


def decode_forward_ms(model: Any, ids: Any, new_tokens: int, device: Any) -> float:
    """Milliseconds per greedy decoding step as bare forwards with the KV cache, no ``generate`` around them:
    what an engine that only launches the model's kernels would pay per token (the floor under ``generate``)."""
    import torch

    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
        cache, token = out.past_key_values, out.logits[:, -1:].argmax(-1)
        synchronize(device)
        start = time.perf_counter()
        for _ in range(new_tokens):
            out = model(input_ids=token, past_key_values=cache, use_cache=True)
            cache, token = out.past_key_values, out.logits[:, -1:].argmax(-1)
        synchronize(device)
    return round(1000 * (time.perf_counter() - start) / new_tokens, 2)


def encoder_page_ms(device: Any, candidates: int = 250, tokens: int = 32, repeats: int = 10) -> dict[str, Any]:
    """The ranker's encoder shape over one page of candidates (fp32, as the ranker runs it)."""
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                        intermediate_size=1536, max_position_embeddings=512)
    torch.manual_seed(0)
    with torch.device(device):
        model = BertModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (candidates, tokens), device=device)
    with torch.no_grad():
        for _ in range(2):
            model(input_ids=ids)
        synchronize(device)
        start = time.perf_counter()
        for _ in range(repeats):
            model(input_ids=ids)
        synchronize(device)
    return {"candidates": candidates, "tokens": tokens,
            "ms_per_page": round(1000 * (time.perf_counter() - start) / repeats, 2)}


def _peak_memory(device: Any) -> float | None:
    import torch

    return round(torch.cuda.max_memory_allocated() / 2 ** 30, 2) if device.type == "cuda" else None


def _release(device: Any) -> None:
    import gc

    import torch

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def chip(device: Any) -> tuple[str, float | None]:
    """The device's name and its spec-sheet dense bf16 peak, where known."""
    import torch

    if device.type != "cuda":
        return platform.processor() or platform.machine(), None
    name = torch.cuda.get_device_name(device)
    peak = next((tflops for key, tflops in PEAK_BF16_TFLOPS.items() if key in name), None)
    return name, peak


def run(args: argparse.Namespace, save: Any = lambda report: None) -> dict[str, Any]:
    """Every section in turn; ``save`` gets the report after each, so a later failure loses nothing."""
    import torch
    import transformers

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.bfloat16
    name, peak = chip(device)
    report: dict[str, Any] = {"date": date.today().isoformat(), "device": name, "torch": torch.__version__,
                              "transformers": transformers.__version__, "peak_bf16_tflops": peak}
    if device.type == "cuda":
        report["measured_matmul_tflops"] = round(measured_matmul_tflops(device), 1)
    if args.train:
        row = train_fitting(args.train, device, dtype, args.train_batch, args.seq_len, args.train_steps)
        if peak:
            row["mfu_spec"] = round(row["achieved_tflops"] / peak, 3)
        if report.get("measured_matmul_tflops"):
            row["mfu_measured_matmul"] = round(row["achieved_tflops"] / report["measured_matmul_tflops"], 3)
        report["train"] = row
        print(json.dumps(row), flush=True)
        save(report)
    report["generate"] = []
    for preset in [p for p in args.presets.split(",") if p]:
        for row in generate_throughput(preset, device, dtype, args.gen_batches, args.prompt_len, args.new_tokens,
                                       args.cache):
            report["generate"].append(row)
            print(json.dumps(row), flush=True)
            save(report)
    report["encoder"] = encoder_page_ms(device)
    print(json.dumps(report["encoder"]), flush=True)
    save(report)
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [f"{report['device']}, torch {report['torch']}, transformers {report['transformers']}, {report['date']}",
             f"spec dense bf16 peak: {report['peak_bf16_tflops']} TFLOP/s; bf16 8192^3 matmul measured: "
             f"{report.get('measured_matmul_tflops')} TFLOP/s", ""]
    if "train" in report:
        t = report["train"]
        lines += ["| train | params | batch x seq | step s | tokens/s | TFLOP/s | MFU (spec) | MFU (measured matmul) | peak GiB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
                  f"| {t['preset']} | {t['parameters'] / 1e9:.2f} B | {t['batch']} x {t['seq_len']} | {t['step_s']} | "
                  f"{t['tokens_per_s']:,.0f} | {t['achieved_tflops']} | {t.get('mfu_spec')} | "
                  f"{t.get('mfu_measured_matmul')} | {t['peak_memory_gib']} |", ""]
    if not report.get("generate"):
        return "\n".join(lines) + "\n"
    lines += ["| generate | cache | batch | prompt | new | s | generated tokens/s | ms per action | bare forward ms/token | peak GiB |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {g['preset']} | {g.get('cache', 'dynamic')} | {g['batch']} | {g['prompt_len']} | {g['new_tokens']} | {g['seconds']} | "
              f"{g['generated_tokens_per_s']:,.0f} | {g['ms_per_action']} | {g['forward_ms_per_token']} | "
              f"{g['peak_memory_gib']} |"
              for g in report["generate"]]
    e = report.get("encoder")
    lines += [] if e is None else ["", f"ranker encoder shape (6 x 384 BERT), {e['candidates']} candidates x {e['tokens']} tokens: "
                  f"{e['ms_per_page']} ms per page"]
    return "\n".join(lines) + "\n"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presets", default="qwen2-1.5b,qwen2-7b", help="models to generate with, comma-separated")
    parser.add_argument("--train", default="qwen2-1.5b", help="model to time training steps of ('' skips)")
    parser.add_argument("--seq-len", type=int, default=2048)
    parser.add_argument("--train-batch", type=int, default=8)
    parser.add_argument("--train-steps", type=int, default=6)
    parser.add_argument("--prompt-len", type=int, default=1400)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--gen-batches", type=lambda s: [int(x) for x in s.split(",")], default=[1, 16, 64])
    parser.add_argument("--cache", choices=["dynamic", "static"], default="dynamic",
                        help="KV cache of generate; static compiles the decoding step")
    parser.add_argument("--out", type=Path, default=None, help="folder for gpu_throughput.json and .md")
    args = parser.parse_args(argv)
    unknown = [p for p in [*args.presets.split(","), args.train] if p and p not in PRESETS]
    if unknown:
        parser.error(f"unknown preset(s) {', '.join(unknown)}; known: {', '.join(PRESETS)}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)

    def save(report: dict[str, Any]) -> None:
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "gpu_throughput.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
            (args.out / "gpu_throughput.md").write_text(markdown(report), encoding="utf-8")

    report = run(args, save)
    print(markdown(report))
    return report


if __name__ == "__main__":
    main()
