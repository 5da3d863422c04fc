"""The hf policy with a real tiny model (built from a config, tokenizer trained on the corpus): a real
episode against stratus in Chromium, greedy determinism, batched = unbatched, seeded sampling, prompt
truncation, the turns GRPO trains on, and registration without importing torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from consoleagent.observation.types import HistoryEntry, Observation
from consoleagent.policies.hf import CUT_MARKER, HFPolicy
from consoleagent.policies.prompts import messages_for


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Any:
    """One intra-op thread: on a busy 2-core machine, two spinning threads make a tiny model's generation 10-40x slower."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from consoleagent.training.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("hf") / "tiny-hf", hidden_size=64, layers=2, heads=4, kv_heads=2, seed=1)


def observation(rows: int = 2, goal: str = "Open the instances page.") -> Observation:
    outline = "\n".join(f'[{i}] link "Instance web-{i:02d}" — Running' for i in range(1, rows + 1))
    return Observation(url="http://127.0.0.1:8000/ecs/instances", title="Instances · stratus Console", text=outline,
                       goal=goal, document=["Log on to the ECS console.", "Click **Instances**."], document_step=2,
                       history=[HistoryEntry(1, "click(3)", "ok")], step=1)


def test_episode_in_the_console_with_the_tiny_model(tiny: Path, playwright_instance: Any, tmp_path: Path) -> None:
    from consoleagent.adapters.stratus import StratusAdapter
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.env.browser import BrowserHost
    from consoleagent.runner import run_episode
    from consoleagent.tasks import Task
    from consoleagent.trajectory.reader import read_trajectory

    env = ConsoleEnv(StratusAdapter(time_scale=20.0), EnvConfig(screenshots=False), browser=BrowserHost(playwright=playwright_instance))
    policy = HFPolicy(str(tiny), max_new_tokens=16)
    try:
        result = run_episode(env, policy, Task(goal="Create a VPC named tiny-vpc", start_url="/vpc", max_steps=3),
                             trajectory=tmp_path / "hf.jsonl")
    finally:
        env.close()
    assert result.status in ("truncated", "unachievable"), (result.status, result.cause)  # junk, but never a crash
    trajectory = read_trajectory(tmp_path / "hf.jsonl")
    assert trajectory.header["policy"] == "hf:tiny-hf" and len(trajectory.steps) == len(policy.turns) == result.steps
    for record, turn in zip(trajectory.steps, policy.turns):
        assert record["usage"] == {"prompt_tokens": len(turn.prompt_ids), "completion_tokens": len(turn.completion_ids)}
        assert 0 < len(turn.completion_ids) <= 16 and record["raw"] == policy.tokenizer.decode(turn.completion_ids,
                                                                                               skip_special_tokens=True)
        # the prompt it acted on is the training sample's prompt for that step, token for token
        text = policy.tokenizer.apply_chat_template(messages_for(record["observation"]), tokenize=False, add_generation_prompt=True)
        assert turn.prompt_ids == policy.tokenizer(text, add_special_tokens=False)["input_ids"]
    policy.reset("another goal")
    assert policy.turns == []


def test_greedy_is_deterministic_and_batched_equals_unbatched(tiny: Path) -> None:
    policy = HFPolicy(str(tiny), max_new_tokens=12)
    observations = [observation(1), observation(12, goal="Stop web-03."), observation(4)]
    first = policy.act(observations[1])
    again = HFPolicy.from_loaded(policy.model, policy.tokenizer, max_new_tokens=12).act(observations[1])
    assert (first.raw, first.usage) == (again.raw, again.usage)
    single = [policy.act(o) for o in observations]
    batch = policy.act_batch(observations)
    assert [d.raw for d in single] == [d.raw for d in batch]
    assert [t.completion_ids for t in policy.turns[-6:-3]] == [t.completion_ids for t in policy.turns[-3:]]
    assert [t.prompt_ids for t in policy.turns[-6:-3]] == [t.prompt_ids for t in policy.turns[-3:]]
    assert all(d.usage["prompt_tokens"] > 0 and d.meta["finish_reason"] in ("stop", "length") for d in batch)
    assert all(d.action or d.meta.get("parse_error") for d in batch)  # junk is the agent's error, not a crash


def test_sampling_is_seeded(tiny: Path) -> None:
    obs = observation(3)
    a = HFPolicy(str(tiny), temperature=1.0, seed=5, max_new_tokens=12)
    b = HFPolicy(str(tiny), temperature=1.0, seed=5, max_new_tokens=12)
    outputs_a = [a.act(obs).raw for _ in range(2)]
    assert outputs_a == [b.act(obs).raw for _ in range(2)]
    assert outputs_a[0] != outputs_a[1]  # call n is seeded with seed + n: a group's rollouts differ
    assert HFPolicy(str(tiny), temperature=1.0, seed=6, max_new_tokens=12).act(obs).raw != outputs_a[0]


def test_long_prompts_keep_head_and_tail(tiny: Path) -> None:
    probe = HFPolicy(str(tiny), max_new_tokens=4)
    overhead = len(probe.prompt_ids(observation(1))[0])
    policy = HFPolicy.from_loaded(probe.model, probe.tokenizer, max_new_tokens=4, max_prompt_tokens=overhead + 120)
    long = observation(400, goal="Stop the instance named web-07.")
    decision = policy.act(long)
    prompt = policy.turns[-1].prompt_ids
    assert len(prompt) <= policy.max_prompt_tokens and decision.meta["prompt_cut_tokens"] > 1000
    text = policy.tokenizer.decode(prompt)
    assert "Stop the instance named web-07." in text and CUT_MARKER.strip() in text and "web-400" in text
    assert "web-200" not in text
    tiny_budget = HFPolicy.from_loaded(probe.model, probe.tokenizer, max_new_tokens=4, max_prompt_tokens=10)
    assert tiny_budget.act(long).usage["prompt_tokens"] > 10  # cannot fit the system prompt: cut hard, never crash


def test_completion_ends_at_the_end_of_turn(tiny: Path) -> None:
    policy = HFPolicy(str(tiny))
    eos, pad = policy.tokenizer.eos_token_id, policy.tokenizer.pad_token_id
    assert policy._completion([7, 8, eos, pad, pad]) == [7, 8, eos]
    assert policy._completion([7, 8, 9]) == [7, 8, 9]
    decision = policy._decide([1, 2], policy.tokenizer("Thought: go\nStep: 2\nAction: click(3)<|im_end|>",
                                                       add_special_tokens=False)["input_ids"], 0, 0.1)
    assert (decision.action, decision.document_step, decision.thought, decision.meta["finish_reason"]) == ("click(3)", 2, "go", "stop")


def test_registry_builds_it_without_importing_torch_first(tiny: Path) -> None:
    from consoleagent.policies.registry import make_policy

    policy = make_policy("hf", model=str(tiny), temperature="0.7", seed="3", max_new_tokens="8")
    assert isinstance(policy, HFPolicy) and policy.name == "hf:tiny-hf"
    assert (policy.temperature, policy.seed, policy.max_new_tokens) == (0.7, 3, 8)
    code = ("import sys; from consoleagent.policies.registry import policy_options; import consoleagent.policies.hf; "
            "import consoleagent.training.samples; assert 'model' in policy_options('hf'); "
            "print(sorted(m for m in ('torch', 'transformers', 'datasets') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stderr
    with pytest.raises(FileNotFoundError, match="no model at"):
        HFPolicy("./no/such/model")
