"""bench/bench_gpu_throughput.py keeps working where no GPU is: its tiny preset on the CPU, and its FLOP
count checked against a hand count. Its GPU figures come from a lent H100 (BENCHMARKS.md); CI has none."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_gpu_throughput.py"


def load_bench():  # noqa: ANN201 - a module loaded from its path
    spec = importlib.util.spec_from_file_location("bench_gpu_throughput", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_flop_count_is_papers_formula_over_every_matrix_product() -> None:
    import torch

    bench = load_bench()
    model = bench.build("tiny", torch.device("cpu"), torch.float32)
    c = bench.PRESETS["tiny"]
    h, ffn, layers, vocab = c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], c["vocab_size"]
    head_dim = h // c["num_attention_heads"]
    kv = c["num_key_value_heads"] * head_dim
    per_layer = h * h + 2 * h * kv + h * h + 3 * h * ffn  # q, k and v, o, gate/up/down (biases excluded)
    assert bench.matmul_parameters(model) == layers * per_layer + vocab * h  # the tied LM head counts once
    assert bench.flops_per_token(model, 100) == 6 * (layers * per_layer + vocab * h) + 12 * layers * h * 100


def test_the_tiny_preset_runs_every_section_on_the_cpu_and_writes_its_report(tmp_path: Path) -> None:
    bench = load_bench()
    report = bench.main(["--presets", "tiny", "--train", "tiny", "--seq-len", "64", "--train-batch", "2",
                         "--train-steps", "1", "--prompt-len", "16", "--new-tokens", "4", "--gen-batches", "1,2",
                         "--out", str(tmp_path)])
    assert report["train"]["tokens_per_s"] > 0 and report["train"]["batch"] == 2
    assert [(g["batch"], g["new_tokens"]) for g in report["generate"]] == [(1, 4), (2, 4)]
    assert all(g["forward_ms_per_token"] > 0 for g in report["generate"])
    assert report["encoder"]["ms_per_page"] > 0
    assert json.loads((tmp_path / "gpu_throughput.json").read_text())["generate"] == report["generate"]
    assert "| tiny | dynamic | 2 | 16 | 4 |" in (tmp_path / "gpu_throughput.md").read_text()


def test_an_unknown_preset_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        load_bench().parse(["--presets", "qwen2-70b"])
    assert "unknown preset(s) qwen2-70b; known: tiny, qwen2-0.5b" in capsys.readouterr().err
