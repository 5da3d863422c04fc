"""What the same decisions would have cost an API chat model, counted on a finished benchmark run.

No API model can be called from this project's machines, so an API agent's cost per task cannot be
measured by running one. What can be measured exactly is the bill for the *same* decisions: at every
step of every episode of a run, the request our ``llm`` policy would send on that page (its system
prompt and the observation the policy saw, which the trajectory records as ``Observation.render()``,
the very text ``LLMPolicy.messages`` sends) and an answer in the format that prompt asks for (the
recorded thought and action, ``completion_text``). The tokens are counted with the model's own
tokenizer (``bpe-openai``: OpenAI's BPE tables, packaged, no download) and OpenAI's per-message chat
overhead, and priced at the bench's price table.

What this is and is not: it is the cost of an API agent that takes the run's policy's steps and writes
one-sentence thoughts. One that reasons at length costs more; one that needs fewer steps costs less.
The oracle's run (the task's known solution) has the fewest steps a task needs, so ``cost`` on it gives
the floor for an API agent that writes short thoughts.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consoleagent.bench.pricing import PriceTable, format_usd
from consoleagent.bench.report import format_number
from consoleagent.policies.prompts import completion_text, messages_for, teacher_thought
from consoleagent.trajectory.reader import TrajectoryFormatError, read_trajectory

# OpenAI's counting for its chat models: each message costs its role's and content's tokens plus 3,
# and every reply is primed with 3 (the "<|im_start|>assistant<|im_sep|>" tokens).
TOKENS_PER_MESSAGE = 3
REPLY_PRIMING = 3
FALLBACK_ENCODING = "o200k_base"  # gpt-4o's, for models whose tokenizer is not public


class ApiCostError(ValueError):
    """A run whose episodes cannot be counted (a missing trajectory, a model without a price)."""


@dataclass(frozen=True)
class Tokenizer:
    encoding: Any
    name: str
    exact: bool  # False: the model's own tokenizer is not public, FALLBACK_ENCODING stands in

    def count(self, text: str) -> int:
        return len(self.encoding.encode(text))

    def chat(self, messages: list[dict[str, str]]) -> int:
        return REPLY_PRIMING + sum(TOKENS_PER_MESSAGE + self.count(m["role"]) + self.count(m["content"])
                                   for m in messages)


def tokenizer_for(model: str) -> Tokenizer:
    """The model's own BPE where OpenAI published it, else gpt-4o's (``exact`` says which)."""
    try:
        import bpe_openai
    except ImportError:
        raise ApiCostError("counting an API model's tokens needs bpe-openai: pip install 'consoleagent[bench]'") from None

    try:
        name, exact = bpe_openai.encoding_name_for_model(model.rsplit("/", 1)[-1]), True
    except KeyError:  # not in the package's table of OpenAI models
        name, exact = FALLBACK_ENCODING, False
    return Tokenizer(bpe_openai.get_encoding(name), name, exact)


def episode_tokens(path: Path, tokenizer: Tokenizer) -> tuple[int, int, int]:
    """(prompt tokens, completion tokens, steps) of the requests an API agent would make along ``path``."""
    try:
        steps = read_trajectory(path).steps
    except (OSError, TrajectoryFormatError) as exc:
        raise ApiCostError(f"{path}: cannot read the trajectory: {exc}") from None
    prompt = completion = 0
    for step in steps:
        prompt += tokenizer.chat(messages_for(step.get("observation") or ""))
        answer = completion_text(teacher_thought(step), step.get("action") or "", step.get("document_step"))
        completion += tokenizer.count(answer)
    return prompt, completion, len(steps)


def trajectory_path(episode: dict[str, Any], run_dir: Path) -> Path:
    """The episode's trajectory: as recorded, else where a moved run folder keeps it."""
    recorded = Path(episode.get("trajectory") or "")
    candidates = [recorded, run_dir / recorded, run_dir / "trajectories" / f"{episode['task']}-run{episode['run']}.jsonl"]
    for candidate in candidates:
        if str(candidate) not in ("", ".") and candidate.is_file():
            return candidate
    raise ApiCostError(f"{episode['key']}: no trajectory file (looked for {', '.join(map(str, candidates[1:]))})")


def api_cost(results: dict[str, Any], run_dir: Path, model: str, prices: PriceTable) -> dict[str, Any]:
    """The run's episodes priced as ``model``'s requests, beside what the run's own policy cost."""
    price = prices.price(model)
    if price is None:
        raise ApiCostError(f"{model}: no token price in the price table (add it with --price-table)")
    tokenizer = tokenizer_for(model)
    per_episode = []
    for episode in results["episodes"]:
        prompt, completion, steps = episode_tokens(trajectory_path(episode, run_dir), tokenizer)
        per_episode.append({"key": episode["key"], "steps": steps, "prompt_tokens": prompt,
                            "completion_tokens": completion, "usd": price.cost(prompt, completion)})
    if not per_episode:
        raise ApiCostError("the run has no episodes")
    api_usd = statistics.fmean(e["usd"] for e in per_episode)
    local_usd = results["summary"]["cost"]["usd_per_task"]
    return {
        "model": model, "tokenizer": tokenizer.name, "tokenizer_exact": tokenizer.exact,
        "price": {"input_per_mtok": price.input_per_mtok, "output_per_mtok": price.output_per_mtok},
        "episodes": len(per_episode),
        "api": {"usd_per_task": api_usd,
                "prompt_tokens_per_task": statistics.fmean(e["prompt_tokens"] for e in per_episode),
                "completion_tokens_per_task": statistics.fmean(e["completion_tokens"] for e in per_episode),
                "steps_per_task": statistics.fmean(e["steps"] for e in per_episode)},
        "local": {"policy": results["policy"]["name"], "usd_per_task": local_usd,
                  "cpu_seconds_per_task": results["summary"]["cost"].get("policy_cpu_seconds_per_task"),
                  "price": results.get("price")},
        "local_share": None if local_usd is None else local_usd / api_usd,
        "per_episode": per_episode,
    }


def markdown(report: dict[str, Any]) -> str:
    api, local = report["api"], report["local"]
    share = report["local_share"]
    tokenizer = report["tokenizer"] + ("" if report["tokenizer_exact"] else f" (standing in for {report['model']}'s)")
    lines = [
        f"| | {local['policy']} (this run) | {report['model']}, the same decisions |",
        "|---|---:|---:|",
        f"| US$ per task | {format_usd(local['usd_per_task'])} | {format_usd(api['usd_per_task'])} |",
        f"| CPU seconds per task | {format_number(local['cpu_seconds_per_task'], 3)} | – |",
        f"| prompt / completion tokens per task | – | {api['prompt_tokens_per_task']:,.0f} / "
        f"{api['completion_tokens_per_task']:,.0f} |",
        f"| steps per task | {api['steps_per_task']:.1f} | {api['steps_per_task']:.1f} |",
        "",
        f"Episodes: {report['episodes']}. Tokenizer: {tokenizer}. "
        + ("The run's policy has no price (its CPU seconds were not measured)." if share is None
           else f"The run's policy costs **{100 * share:.3g}%** of the API model's bill for the same decisions."),
    ]
    return "\n".join(lines) + "\n"
