"""A tiny causal LM built from a config, with a tokenizer trained on the project corpus.

It makes the whole training pipeline (SFT, GRPO, the hf policy, the benchmark) run on a CPU in
tests and in minutes: a Qwen2 architecture (grouped-query attention, RoPE, SwiGLU, RMSNorm), a few
million parameters, randomly initialised from ``seed``, saved with ``save_pretrained`` so that
``AutoModelForCausalLM.from_pretrained(out_dir)`` and ``AutoTokenizer.from_pretrained(out_dir)`` load
it like any model on the Hub.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from consoleagent.training.tokenizer import corpus_texts, save_tokenizer, train_tokenizer

BUILD_FILE = "consoleagent_build.json"  # how the model was built (sizes, seed, corpus size)


def tiny_config(tokenizer: Any, *, hidden_size: int = 256, layers: int = 4, heads: int = 4, kv_heads: int = 2,
                max_position: int = 8192) -> Any:
    """A Qwen2 config sized for a CPU; the vocabulary is the tokenizer's."""
    from transformers import Qwen2Config

    return Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=hidden_size * 11 // 4,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        max_position_embeddings=max_position, rope_theta=10000.0, tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, bos_token_id=None,
        use_sliding_window=False, dtype="float32",
    )


def build_tiny_model(out_dir: str | Path, corpus_texts: Iterable[str] | None = None, vocab_size: int = 4096,
                     hidden_size: int = 256, layers: int = 4, heads: int = 4, kv_heads: int = 2, max_position: int = 8192,
                     seed: int = 0) -> Path:
    """Train the tokenizer, build and initialise the model, save both to ``out_dir``; return it.

    Deterministic given ``seed`` and the corpus: the same arguments give the same files."""
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig

    texts = list(dict.fromkeys(_corpus(list(corpus_texts or []))))  # repeated observations teach nothing new
    tokenizer = train_tokenizer(texts, vocab_size=vocab_size)
    config = tiny_config(tokenizer, hidden_size=hidden_size, layers=layers, heads=heads, kv_heads=kv_heads,
                         max_position=max_position)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                                               do_sample=False)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    save_tokenizer(tokenizer, out)
    parameters = sum(p.numel() for p in model.parameters())
    (out / BUILD_FILE).write_text(json.dumps({
        "architecture": "Qwen2ForCausalLM", "parameters": parameters, "vocab_size": len(tokenizer),
        "hidden_size": hidden_size, "layers": layers, "heads": heads, "kv_heads": kv_heads, "max_position": max_position,
        "seed": seed, "corpus_texts": len(texts), "corpus_chars": sum(len(t) for t in texts)}, indent=1), encoding="utf-8")
    return out


def _corpus(extra: list[str]) -> Iterable[str]:
    return corpus_texts(extra)
