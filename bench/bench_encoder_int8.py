"""How close int8 dynamic quantisation keeps the encoder's similarities, and what it saves, on a collection's texts.

Usage: python bench/bench_encoder_int8.py COLLECTION [--steps 40] [--threads 1] [--out FILE.json]

The texts are those the ranker encodes on ``--steps`` recorded steps of a teacher collection (a
seeded sample): the goal, the document lines and every candidate's text. Each is embedded by the
float32 encoder and by int8 copies (``quantize_int8``, per-tensor and per-channel weights); reported
are the CPU milliseconds per text, the cosine between a text's two embeddings, the absolute error
of the similarities the head reads (candidate to goal, candidate to best document line) and on how
many steps the candidate most similar to the goal stays the same.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))


def step_texts(collection: Path, count: int) -> list[tuple[str, list[str], list[str]]]:
    from bench_prefilter import kept_steps

    from consoleagent.policies.ranker_features import document_lines
    from consoleagent.training.ranker_data import replayed_steps

    out = []
    for episode, spec, steps, _ in kept_steps(collection):
        for step in replayed_steps(episode, spec, steps):
            lines = [text for _, text in document_lines(step.document)]
            out.append((step.goal, lines, [c.text for c in step.candidates]))
    random.Random(0).shuffle(out)
    return out[:count]


def compare(steps: list[Any], texts: list[str], a: Any, b: Any) -> dict[str, Any]:
    index = {text: i for i, text in enumerate(texts)}
    cos = (a * b).sum(1).sort().values
    errors, same = [], 0
    for goal, lines, candidates in steps:
        rows = [index[t] for t in candidates]
        sa, sb = a[rows] @ a[index[goal]], b[rows] @ b[index[goal]]
        errors += (sa - sb).abs().tolist()
        same += int(int(sa.argmax()) == int(sb.argmax()))
        if lines:
            lines_rows = [index[t] for t in lines]
            da = (a[rows] @ a[lines_rows].T).max(1).values
            db = (b[rows] @ b[lines_rows].T).max(1).values
            errors += (da - db).abs().tolist()
    errors.sort()
    return {"cos_min": round(float(cos[0]), 4), "cos_p1": round(float(cos[len(cos) // 100]), 4),
            "cos_mean": round(float(cos.mean()), 4), "sim_abs_error_mean": round(sum(errors) / len(errors), 4),
            "sim_abs_error_p99": round(errors[int(len(errors) * 0.99)], 4), "sim_abs_error_max": round(errors[-1], 4),
            "argmax_goal_same": f"{same}/{len(steps)}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("collection", type=Path)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import torch

    from consoleagent.encoder import NeuralEncoder, load_model, quantize_int8

    torch.set_num_threads(args.threads)
    steps = step_texts(args.collection, args.steps)
    texts = sorted({t for goal, lines, candidates in steps for t in (goal, *lines, *candidates)})
    model, tokenizer = load_model()
    results: dict[str, Any] = {"collection": str(args.collection), "steps": len(steps), "texts": len(texts)}
    encoders = {"float32": NeuralEncoder(model=model, tokenizer=tokenizer)}
    for name, per_channel in (("int8_per_tensor", False), ("int8_per_channel", True)):
        encoders[name] = quantize_int8(NeuralEncoder(model=copy.deepcopy(model), tokenizer=tokenizer), per_channel)
    vectors = {}
    for name, encoder in encoders.items():
        started = time.process_time()
        vectors[name] = encoder.encode(texts)
        results[f"{name}_cpu_ms_per_text"] = round(1000 * (time.process_time() - started) / len(texts), 2)
    for name in ("int8_per_tensor", "int8_per_channel"):
        results[name] = compare(steps, texts, vectors["float32"], vectors[name])
    text = json.dumps(results, indent=1)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
