"""An ensemble of ranker heads (``policies/ranker_ensemble.py``): its policy is the product of its members', it saves
and loads as one head, refuses members that read features differently, and GRPO trains every member."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from consoleagent.observation.types import Mark, Observation

torch = pytest.importorskip("torch")

GOAL = 'Create a network named web-net with the CIDR block 10.0.0.0/8.'
DOCUMENT = ["Click **Create network**.", "Enter the **Network name** and the **IPv4 CIDR block**.", "Click **OK**."]


def _head(seed: int, **kwargs: Any) -> Any:
    """A head with random weights (an untrained one ranks by similarity only, and every seed's would agree)."""
    from consoleagent.policies.ranker import build_head

    torch.manual_seed(seed)
    head = build_head(**kwargs)
    with torch.no_grad():
        for parameter in head.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    return head


def _saved(tmp_path: Path, name: str, seed: int, **kwargs: Any) -> Path:
    from consoleagent.policies.ranker import save_head

    return save_head(_head(seed, **kwargs), tmp_path / name, {"trained": "sft", "epoch": seed})


def _rows(count: int = 9) -> Any:
    from consoleagent.policies.ranker_features import N_FEATURES

    torch.manual_seed(99)
    return torch.randn(count, N_FEATURES)


def test_the_ensembles_policy_is_the_normalised_product_of_its_members() -> None:
    from consoleagent.policies.ranker_ensemble import build_ensemble

    members = [_head(seed) for seed in (1, 2, 3)]
    ensemble = build_ensemble(members)
    rows = _rows()
    with torch.no_grad():
        scores = ensemble(rows)
        each = torch.stack([member(rows) for member in members])
    assert torch.allclose(scores, each.mean(dim=0))
    product = torch.log_softmax(each, dim=1).mean(dim=0)  # the members' mean log-probability ...
    assert torch.allclose(torch.softmax(scores, dim=0), torch.softmax(product, dim=0), atol=1e-6)  # ... renormalised
    assert not torch.allclose(torch.softmax(scores, dim=0), torch.softmax(each[0], dim=0), atol=1e-3)  # not member 1's
    assert ensemble.config["members"] == 3 and ensemble.config["read_unmarked"] is False


def test_an_ensemble_saves_and_loads_as_one_head(tmp_path: Path) -> None:
    from consoleagent.policies.ranker import load_head, save_ensemble

    heads = [_saved(tmp_path, f"h{seed}", seed) for seed in (1, 2)]
    path = save_ensemble([str(h) for h in heads], tmp_path / "ensemble")
    config = json.loads((path / "ranker.json").read_text())
    assert config["members"] == 2 and config["trained"] == "ensemble"
    assert [s["path"] for s in config["sources"]] == [str(h) for h in heads] and config["sources"][1] == {"path": str(heads[1]), "trained": "sft", "epoch": 2}
    loaded = load_head(path)
    rows = _rows()
    with torch.no_grad():
        expected = (load_head(heads[0])(rows) + load_head(heads[1])(rows)) / 2
        assert torch.allclose(loaded(rows), expected, atol=1e-6)
    (path / "ranker.json").write_text(json.dumps({**config, "members": 3}))  # a file that does not fit its config
    with pytest.raises(ValueError, match="head.safetensors: does not fit ranker.json"):
        load_head(path)
    (path / "ranker.json").write_text(json.dumps({**config, "members": 1}))
    with pytest.raises(ValueError, match="ranker.json: members 1; an ensemble has at least 2"):
        load_head(path)
    with pytest.raises(FileExistsError, match="already holds a head"):  # any caller, not only the CLI
        save_ensemble([str(h) for h in heads], path)


def test_members_must_read_features_alike() -> None:
    from consoleagent.policies.ranker_ensemble import build_ensemble

    with pytest.raises(ValueError, match="at least 2"):
        build_ensemble([_head(1)])
    with pytest.raises(ValueError, match="differ in prior: 0.0 and 8.0"):
        build_ensemble([_head(1), _head(2, prior=8.0)])
    with pytest.raises(ValueError, match="differ in read_unmarked"):
        build_ensemble([_head(1), _head(2, read_unmarked=True)])
    with pytest.raises(ValueError, match="differ in hidden"):
        build_ensemble([_head(1), _head(2, hidden=32)])
    with pytest.raises(ValueError, match="itself an ensemble"):
        build_ensemble([_head(1), build_ensemble([_head(2), _head(3)])])


def test_train_ensemble_writes_a_head_and_refuses_what_it_cannot_join(tmp_path: Path) -> None:
    from consoleagent.cli import app

    one, two, odd = _saved(tmp_path, "one", 1), _saved(tmp_path, "two", 2), _saved(tmp_path, "odd", 3, prior=8.0)
    runner = CliRunner()
    made = runner.invoke(app, ["train", "ensemble", str(one), str(two), "--out", str(tmp_path / "ens")])
    assert made.exit_code == 0, made.output
    assert "ensemble of 2 heads" in made.output and (tmp_path / "ens" / "head.safetensors").is_file()
    again = runner.invoke(app, ["train", "ensemble", str(one), str(two), "--out", str(tmp_path / "ens")])
    assert again.exit_code == 2 and "already holds a head" in again.output
    mixed = runner.invoke(app, ["train", "ensemble", str(one), str(odd), "--out", str(tmp_path / "mixed")])
    assert mixed.exit_code == 2 and "differ in prior" in mixed.output and not (tmp_path / "mixed").exists()


def _page() -> Observation:
    """A page written down as marks (the policy's input; the live page is covered by test_ranker.py)."""
    marks = [Mark(1, "button", "Create network", "button"), Mark(2, "textbox", "Network name", "input"),
             Mark(3, "textbox", "IPv4 CIDR block", "input"), Mark(4, "button", "OK", "button"),
             Mark(5, "link", "Route tables", "a")]
    text = "\n".join(f"[{m.id}] {m.role} '{m.name}'" for m in marks)
    return Observation(url="http://console.test/networks", title="Networks", text=text, marks=marks, goal=GOAL,
                       document=DOCUMENT)


def test_grpo_trains_every_member_of_an_ensemble(encoder: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rollouts are the ensemble policy's real choices on a page given as marks; the rewards are given (the live
    loop is the one test_ranker.py and the hf GRPO test run)."""
    from consoleagent.policies.ranker import RankerPolicy, load_head, save_ensemble
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import EpisodeOutcome, StepGRPOTrainer

    path = save_ensemble([str(_saved(tmp_path, f"h{seed}", seed)) for seed in (1, 2)], tmp_path / "ensemble")
    greedy = RankerPolicy(model=str(path))
    greedy.reset(GOAL, DOCUMENT)
    assert greedy.head.config["members"] == 2 and greedy.act(_page()).action.startswith(("click(", "type("))
    config = GRPORunConfig(policy="ranker", model=str(path), output_dir=str(tmp_path / "grpo"), steps=1, tasks_per_step=1,
                           group_size=2, oversample=0, temperature=1.0, learning_rate=0.05, val_tasks=None, save_every=1)
    trainer = StepGRPOTrainer(config, train_specs=[type("Spec", (), {"id": "task-a"})()], val_specs=[])
    trainer.setup_model()

    def run_group(task_spec: Any, step: int, index: int, trajectories: Path) -> list[EpisodeOutcome]:
        outcomes = []
        for i, reward in enumerate([1.0, 0.0]):
            policy = trainer.generator.policy(temperature=1.0, seed=i)
            policy.reset(GOAL, DOCUMENT)
            policy.act(_page())
            policy.act(_page())
            outcomes.append(EpisodeOutcome("task-a", f"k{i}", "completed", reward, True, list(policy.turns)))
        return outcomes

    before = [[p.detach().clone() for p in member.parameters()] for member in trainer.model.members]
    monkeypatch.setattr(trainer, "run_group", run_group)
    assert trainer.train_step()["updated"] is True
    for member, weights in zip(trainer.model.members, before):  # each member moved, not only the first
        assert any(not torch.equal(a, b) for a, b in zip(weights, member.parameters()))
    saved = load_head(trainer.save_model(tmp_path / "final"))
    assert saved.config["members"] == 2
    rows = _rows()
    with torch.no_grad():
        assert torch.allclose(saved(rows), trainer.model(rows), atol=1e-6)
