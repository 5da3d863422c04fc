"""``consoleagent.bench.api_cost`` on its own: OpenAI's tokenizers offline (the ids of "hello world" as
published for o200k and cl100k; tiktoken itself cannot run here, it downloads its tables), the chat overhead, and the errors that name what is missing. The count on
a real run is in test_bench_run.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from consoleagent.bench.api_cost import ApiCostError, api_cost, tokenizer_for
from consoleagent.bench.pricing import PriceTable


def test_openai_models_get_their_own_tokenizer_and_others_gpt_4o_s() -> None:
    mini = tokenizer_for("gpt-4o-mini")
    assert (mini.name, mini.exact) == ("o200k_base", True)
    assert mini.encoding.encode("hello world") == [24912, 2375]  # o200k_base's published ids for it
    legacy = tokenizer_for("openai/gpt-3.5-turbo")
    assert legacy.name == "cl100k_base" and legacy.encoding.encode("hello world") == [15339, 1917]
    other = tokenizer_for("claude-sonnet-4")
    assert (other.name, other.exact) == ("o200k_base", False)


def test_a_chat_request_counts_each_message_with_its_overhead() -> None:
    tokens = tokenizer_for("gpt-4o")
    messages = [{"role": "system", "content": "hello world"}, {"role": "user", "content": "hello"}]
    # priming 3; per message 3 + role + content: system 1 + 2, user 1 + 1
    assert tokens.chat(messages) == 3 + (3 + 1 + 2) + (3 + 1 + 1)


def results_with(episodes: list[dict]) -> dict:
    return {"policy": {"name": "ranker"}, "price": {"cpu_core_hour": 0.0425}, "episodes": episodes,
            "summary": {"cost": {"usd_per_task": 1e-5, "policy_cpu_seconds_per_task": 0.8}}}


def test_a_missing_trajectory_or_price_is_named(tmp_path: Path) -> None:
    episode = {"key": "vpc-a#0", "task": "vpc-a", "run": 0, "trajectory": "/nowhere/vpc-a-run0.jsonl"}
    with pytest.raises(ApiCostError, match=r"vpc-a#0: no trajectory file .*trajectories/vpc-a-run0.jsonl"):
        api_cost(results_with([episode]), tmp_path, "gpt-4o-mini", PriceTable())
    with pytest.raises(ApiCostError, match="my-model: no token price"):
        api_cost(results_with([episode]), tmp_path, "my-model", PriceTable())
    with pytest.raises(ApiCostError, match="no episodes"):
        api_cost(results_with([]), tmp_path, "gpt-4o-mini", PriceTable())


def test_without_the_tokenizer_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # as if it were not installed: import raises ImportError
    with pytest.raises(ApiCostError, match=r"needs bpe-openai: pip install 'consoleagent\[bench\]'"):
        tokenizer_for("gpt-4o-mini")
