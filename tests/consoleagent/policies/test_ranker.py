"""The ranker policy on a real page in Chromium with the real all-MiniLM-L6-v2 encoder: its
candidates, listwise SFT of its head, log-probs that GRPO re-scores exactly, and a GRPO update
that moves the head only when a group's rewards differ."""

from __future__ import annotations

from tests import FIXTURES
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.observation.marking import install, snapshot
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.candidates import UNACHIEVABLE_ACTION, build_candidates, candidate_values, match_action

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]  # minutes only on a CPU shared by many jobs
torch = pytest.importorskip("torch")

FIXTURES = FIXTURES / "ranker"
GOAL = 'Create a network named web-net with the CIDR block 10.0.0.0/8 and the description "Web tier".'
DOCUMENT = ["Open the **Networks** page.", "Click **Create network**.",
            "Configure the network.\n| Parameter | Description | Example |\n| --- | --- | --- |\n"
            "| **Network name** | The name. | doc-net-01 |\n| **IPv4 CIDR block** | The range. | 192.168.0.0/16 |",
            "Click **OK**."]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def observation(browser: Any) -> Iterator[Observation]:
    """The fixture page observed as the environment observes it (Set-of-Mark in real Chromium)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(FIXTURES)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    install(context)
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/vpcs.html")
    snap = snapshot(page)
    yield Observation(url=snap.url, title=snap.title, text=snap.text(), marks=snap.marks, goal=GOAL, document=DOCUMENT)
    context.close()
    server.shutdown()
    server.server_close()


def _mark(observation: Observation, role: str, name: str) -> Any:
    found = [m for m in observation.marks if m.role == role and m.name == name]
    assert len(found) == 1, [(m.role, m.name) for m in observation.marks]
    return found[0]


def test_candidates_from_a_real_page(observation: Observation) -> None:
    candidates = build_candidates(observation)
    actions = {c.action for c in candidates}
    name = _mark(observation, "textbox", "Network name")
    cidr = _mark(observation, "combobox", "IPv4 CIDR block")
    ipv6 = _mark(observation, "checkbox", "Enable IPv6")
    create = _mark(observation, "button", "Create network")
    assert f'type({name.id}, "web-net")' in actions
    assert f'select({cidr.id}, "10.0.0.0/8")' in actions
    assert f"check({ipv6.id})" in actions and f"click({create.id})" in actions
    assert {'scroll("down")', "back()", "wait(2)", 'task_complete("done")', UNACHIEVABLE_ACTION} <= actions
    for candidate in candidates:
        parse_action(candidate.action)  # every candidate is valid DSL
    typed = next(c for c in candidates if c.action == f'type({name.id}, "web-net")')
    assert typed.text.startswith('type textbox "Network name"') and typed.text.endswith("value web-net"), typed.text
    assert "Web tier" in candidate_values(GOAL, DOCUMENT)
    # the document's example CIDR gives way to the goal's (as a person following the document would)
    assert match_action(candidates, parse_action(f'select({cidr.id}, "10.0.0.0/8")')) is not None
    assert match_action(candidates, parse_action(f"click({ipv6.id})")) is not None  # a toggle clicked = its check
    assert match_action(candidates, parse_action('report_discrepancy(1, "label_changed", "a", "b")')) is None


def _examples(observation: Observation, encoder: Any) -> list[Any]:
    """Three steps of the procedure on the page, each labelled with the teacher's action."""
    from consoleagent.policies.ranker_features import EpisodeContext, features
    from consoleagent.training.ranker_data import RankerExample

    name = _mark(observation, "textbox", "Network name")
    cidr = _mark(observation, "combobox", "IPv4 CIDR block")
    create = _mark(observation, "button", "Create network")
    steps = [(f"click({create.id})", []), (f'type({name.id}, "web-net")', ['click button "Create network"']),
             (f'select({cidr.id}, "10.0.0.0/8")', ['click button "Create network"', 'type textbox "Network name" value web-net'])]
    context = EpisodeContext.build(GOAL, DOCUMENT)
    candidates = build_candidates(observation)
    out = []
    for i, (action, history) in enumerate(steps):
        label = match_action(candidates, parse_action(action))
        assert label is not None
        rows = features(encoder, context, observation, candidates, history, len(history))
        out.append(RankerExample("t", "doc", i, rows, label, action))
    return out


def test_listwise_sft_reduces_the_loss_and_picks_the_teacher_action(observation: Observation, encoder: Any) -> None:
    from consoleagent.policies.ranker import build_head
    from consoleagent.training.ranker_sft import evaluate, listwise_loss

    examples = _examples(observation, encoder)
    torch.manual_seed(0)
    head = build_head()
    before = evaluate(head, examples)
    optimizer = torch.optim.AdamW(head.parameters(), lr=1e-2)
    for _ in range(200):
        loss, _ = listwise_loss(head, examples)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = evaluate(head, examples)
    assert after["loss"] < before["loss"] * 0.5, (before, after)
    assert after["accuracy"] == 1.0, after
    with torch.no_grad():
        assert int(head(examples[1].features).argmax()) == examples[1].label


def test_sampled_log_probs_equal_grpo_rescoring(observation: Observation, encoder: Any, tmp_path: Path) -> None:
    from consoleagent.policies.ranker import RankerPolicy, build_head, load_head, save_head
    from consoleagent.training.grpo import StepSample
    from consoleagent.training.ranker_grpo import RankerBackend

    torch.manual_seed(1)
    head = build_head()
    with torch.no_grad():
        for p in head.parameters():
            p.add_(0.1 * torch.randn_like(p))
    save_head(head, tmp_path / "head")
    policy = RankerPolicy(model=str(tmp_path / "head"), temperature=0.7, seed=3)
    policy.reset(GOAL, DOCUMENT)
    decisions = [policy.act(observation) for _ in range(3)]
    assert all(d.action for d in decisions) and len(policy.turns) == 3
    backend = RankerBackend(str(tmp_path / "head"))
    samples = [StepSample([], [t.chosen], 1.0, turn=t) for t in policy.turns]
    logps, mask, _, k = backend.logps(load_head(tmp_path / "head"), samples, 0.7)
    assert k == 1 and mask.shape == (3, 1)
    for row, turn in zip(logps[:, 0].tolist(), policy.turns):
        assert row == pytest.approx(turn.logp, abs=1e-5)
    again = RankerPolicy(model=str(tmp_path / "head"), temperature=0.7, seed=3)
    again.reset(GOAL, DOCUMENT)
    assert [again.act(observation).action for _ in range(3)] == [d.action for d in decisions]  # seeded
    greedy = RankerPolicy(model=str(tmp_path / "head"))
    greedy.reset(GOAL, DOCUMENT)
    first = greedy.act(observation)
    assert greedy.turns[0].chosen == int(greedy.head(greedy.turns[0].features).argmax())  # temperature 0: the argmax
    assert first.meta["candidates"] == len(build_candidates(observation))
    capped = RankerPolicy(model=str(tmp_path / "head"), max_steps=1)
    capped.reset(GOAL, DOCUMENT)
    capped.act(observation)
    assert capped.act(observation).action.startswith("task_unachievable(")  # the step budget is spent
    with pytest.raises(FileNotFoundError, match="ranker.json"):
        RankerPolicy(model=str(tmp_path))


def test_grpo_step_moves_the_head_only_when_a_group_has_variance(observation: Observation, encoder: Any,
                                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rollouts are the ranker's real choices on the real page; the environment's episodes and
    the judge's rewards are given (a live stratus episode per rollout would take minutes here: the
    live loop is the same code the hf GRPO test runs end to end)."""
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import EpisodeOutcome, StepGRPOTrainer

    config = GRPORunConfig(policy="ranker", output_dir=str(tmp_path / "grpo"), steps=1, tasks_per_step=1, group_size=2,
                           oversample=0, temperature=1.0, learning_rate=0.05, val_tasks=None, save_every=1)
    trainer = StepGRPOTrainer(config, train_specs=[type("Spec", (), {"id": "task-a"})()], val_specs=[])
    trainer.setup_model()

    def rewards_of(values: list[float]) -> Any:
        def run_group(task_spec: Any, step: int, index: int, trajectories: Path) -> list[EpisodeOutcome]:
            outcomes = []
            for i, reward in enumerate(values):
                policy = trainer.generator.policy(temperature=1.0, seed=i)
                policy.reset(GOAL, DOCUMENT)
                policy.act(observation)
                policy.act(observation)
                outcomes.append(EpisodeOutcome("task-a", f"k{i}", "completed", reward, True, list(policy.turns)))
            return outcomes
        return run_group

    def weights() -> list[Any]:
        return [p.detach().clone() for p in trainer.model.parameters()]

    before = weights()
    monkeypatch.setattr(trainer, "run_group", rewards_of([1.0, 1.0]))
    row = trainer.train_step()
    assert row["updated"] is False and row["zero_variance_groups"] == 1 and row["zero_variance_share"] == 1.0
    assert all(torch.equal(a, b) for a, b in zip(before, weights()))
    monkeypatch.setattr(trainer, "run_group", rewards_of([1.0, 0.0]))
    row = trainer.train_step()
    assert row["updated"] is True and row["zero_variance_share"] == 0.0 and row["action_tokens"] == 4
    assert any(not torch.equal(a, b) for a, b in zip(before, weights()))
    assert 0.0 <= row["clip_fraction"] <= 1.0 and row["kl"] >= 0.0
    saved = trainer.save_model(tmp_path / "final")
    assert (saved / "head.safetensors").is_file() and (saved / "ranker.json").is_file()
    checkpoint = trainer.save_checkpoint()
    assert (checkpoint / "head.safetensors").is_file() and (checkpoint / "optimizer.pt").is_file()


def test_the_documents_plan_says_which_instruction_comes_next() -> None:
    """A menu group already open is passed over; a table's fields are open in any order; a repeat is a repeat."""
    from consoleagent.policies.ranker_features import document_plan, plan_progress

    plan = document_plan("Create a 200 GiB disk named archive-data.",
                         ["Choose **Storage** > **Block Storage**.", "Click **Create Disk**.",
                          "Configure.\n| Parameter | Description | Example |\n| --- | --- | --- |\n"
                          "| **Capacity** | size | 100 |\n| **Disk name** | Optional. | doc-data-01 |", "Click **Create**."])
    assert [(p.kind, p.target, p.value) for p in plan] == [
        ("click", "storage", ""), ("click", "block storage", ""), ("click", "create disk", ""),
        ("set", "capacity", "200"), ("set", "disk name", "archive data"), ("click", "create", "")]
    done, pointer = plan_progress(plan, ['click link "Block Storage"', 'click button "Create Disk"',
                                         'type textbox "Disk name" value archive-data'])
    assert (done, pointer) == ({1, 2, 4}, 5)  # Capacity is still open: the same form
    assert plan_progress(plan, ['click link "Help"'])[1] == 0  # an action off the plan moves nothing


def test_the_documents_plan_has_the_values_and_buttons_the_follower_would_use() -> None:
    """The plan is the follower's reading of the goal (``goal_values.with_goal_values``): found where the plan
    still said Start for a goal that stops instances, Deny for a rule that allows, and set every field of a
    "change the parameters" table the goal leaves as it is."""
    from consoleagent.policies.ranker_features import document_plan

    batch = document_plan("Stop the ECS instances shop-web-a and shop-web-b in one batch operation.",
                          ["Above the list, click **Start**, **Stop** or **Restart**."])
    assert [(p.kind, p.target) for p in batch] == [("click", "stop")]
    rule = document_plan("Add an outbound rule that allows TCP port 443 to 10.0.0.0/8.",
                         ["Configure the rule.\n| Parameter | Description | Example |\n| --- | --- | --- |\n"
                          "| **Action** | **Allow** accepts the traffic; **Deny** drops it. | Deny |"])
    assert [(p.target, p.value) for p in rule] == [("action", "allow")]
    change = document_plan("Change the inbound rule for TCP port 8080 so that it applies to port range 9443/9443 "
                           "instead; keep everything else as it is.",
                           ["In the **Modify Rule** dialog box, change the parameters.\n| Parameter | Description | "
                            "Example |\n| --- | --- | --- |\n| **Priority** | 1 to 100. | 5 |\n"
                            "| **Port Range** | The new start and end port. | 8443/8443 |", "Click **Save**."])
    assert [(p.kind, p.target, p.value) for p in change] == [("set", "port range", "9443 9443"), ("click", "save", "")]


def test_the_followers_proposal_is_a_feature_of_the_candidate_it_names(observation: Observation, encoder: Any) -> None:
    from consoleagent.policies.follower_shadow import FollowerShadow
    from consoleagent.policies.ranker_features import SCALAR_FEATURES, EpisodeContext, features, proposed_index

    shadow = FollowerShadow()
    shadow.reset(GOAL, DOCUMENT)
    proposal = shadow.propose(observation)
    assert proposal is not None and parse_action(proposal).name == "click"
    candidates = build_candidates(observation)
    rows = features(encoder, EpisodeContext.build(GOAL, DOCUMENT), observation, candidates, [], 0, proposal=proposal)
    picked = [proposed_index(candidates, proposal)]
    column = SCALAR_FEATURES.index("follower_pick")
    assert picked[0] is not None and rows[:, column].nonzero().flatten().tolist() == picked
    assert not rows[:, SCALAR_FEATURES.index("follower_none")].any()
    alone = features(encoder, EpisodeContext.build(GOAL, DOCUMENT), observation, candidates, [], 0)
    assert not alone[:, column].any() and alone[:, SCALAR_FEATURES.index("follower_none")].all()
    finish = next(i for i, c in enumerate(candidates) if c.kind == "task_complete")
    assert proposed_index(candidates, 'task_complete("followed all 4 steps")') == finish  # any answer
    assert proposed_index(candidates, "click(99999)") is None and proposed_index(candidates, None) is None


def test_a_residual_head_acts_as_the_follower_until_trained_otherwise(observation: Observation, encoder: Any,
                                                                      tmp_path: Path) -> None:
    """``prior`` adds a fixed bonus to the follower's proposal: untrained, the head picks it; the bonus is in
    ``forward`` (so GRPO's log-probabilities include it) and survives saving and loading."""
    import torch

    from consoleagent.policies.follower_shadow import FollowerShadow
    from consoleagent.policies.ranker import build_head, load_head, save_head
    from consoleagent.policies.ranker_features import EpisodeContext, features, proposed_index

    shadow = FollowerShadow()
    shadow.reset(GOAL, DOCUMENT)
    proposal = shadow.propose(observation)
    candidates = build_candidates(observation)
    rows = features(encoder, EpisodeContext.build(GOAL, DOCUMENT), observation, candidates, [], 0, proposal=proposal)
    picked = proposed_index(candidates, proposal)
    plain, residual = build_head(), build_head(prior=20.0)
    residual.load_state_dict(plain.state_dict())
    with torch.no_grad():
        assert int(torch.argmax(residual(rows))) == picked
        assert torch.allclose(residual(rows) - plain(rows), 20.0 * (torch.arange(len(candidates)) == picked).float())
    save_head(residual, tmp_path / "residual")
    loaded = load_head(tmp_path / "residual")
    assert loaded.prior == 20.0 and loaded.config["prior"] == 20.0
    with torch.no_grad():
        assert torch.allclose(loaded(rows), residual(rows))


def test_the_shipped_head_loads_for_this_feature_version_and_is_the_default() -> None:
    """A change of the features without retraining the shipped head fails here, not in a user's run."""
    from consoleagent.policies.ranker import CONFIG_FILE, PACKAGED_HEAD, head_source, load_head

    assert (PACKAGED_HEAD / CONFIG_FILE).is_file() and head_source(None) == str(PACKAGED_HEAD)
    assert head_source("base") is None and head_source("/some/head") == "/some/head"
    head = load_head(PACKAGED_HEAD)  # raises when its n_features is not this version's
    assert sum(p.numel() for p in head.parameters()) < 10_000


def test_the_followers_proposal_is_a_candidate_even_where_the_candidates_lack_it() -> None:
    """Measured on vpc-delete-route-table-03: the follower clicks a disabled Delete to read what to do first;
    disabled buttons are no candidates, so the ranker could only click another row's Delete."""
    from consoleagent.policies.candidates import with_proposal

    marks = [Mark(1, "button", "Delete", context="row: other-rt"),
             Mark(2, "button", "Delete", context="row: tmp-rt", states=["disabled"]), Mark(3, "textbox", "Port Range")]
    page = Observation(url="http://c/vpc/route-tables", title="Route tables", text="", marks=marks, goal="Delete tmp-rt.")
    listed = build_candidates(page)
    assert match_action(listed, parse_action("click(2)")) is None
    for proposal in ("click(2)", 'type(3, "9443/9443")', 'goto("http://c/vpc/route-tables")'):
        extended, index = with_proposal(listed, page, proposal)
        assert len(extended) == len(listed) + 1 and match_action(extended, parse_action(proposal)) == index == len(listed)
    assert with_proposal(listed, page, "click(1)") == (listed, match_action(listed, parse_action("click(1)")))  # listed
    from consoleagent.encoder import get_encoder
    from consoleagent.policies.ranker_features import EpisodeContext, N_FEATURES, features

    extended, _ = with_proposal(listed, page, 'goto("http://c/vpc/route-tables")')
    rows = features(get_encoder(), EpisodeContext.build(page.goal, []), page, extended, [], 0, proposal=extended[-1].action)
    assert tuple(rows.shape) == (len(extended), N_FEATURES)  # a kind only proposals bring is scored too
    assert with_proposal(listed, page, "click(99)") == (listed, None)  # no such element
    answered, index = with_proposal(listed, page, 'task_unachievable("step 2: Delete is disabled")')
    assert len(answered) == len(listed) and answered[index].action == 'task_unachievable("step 2: Delete is disabled")'
    assert answered[index].text == listed[index].text  # the head reads the same answer


def test_the_ranker_reports_what_the_follower_found_and_answers_in_its_words() -> None:
    """Measured on vpc-create-vpc-with-vswitch-03/-04 (tasks that require a report): the follower's reports were
    answered by the follower itself and were no candidates, so the ranker never reported and failed both."""
    from consoleagent.policies.ranker import RankerPolicy
    from consoleagent.policies.ranker_features import KIND_ALIASES

    goal = "Create a VPC named ops-vpc with the IPv4 CIDR block 192.168.0.0/16."
    document = ["In the left-side navigation pane, click **VPCs**.", "Click **Create VPC**.", "Click **OK**."]
    page = Observation(url="http://c/vpc/vpcs", title="VPCs", text="VPCs", goal=goal, document=document,
                       marks=[Mark(1, "link", "VPCs"), Mark(2, "link", "Create a VPC"), Mark(3, "link", "Help")])
    policy = RankerPolicy(model="base", prior=8.0)
    policy.reset(goal, document)
    actions = [parse_action(policy.act(page).action) for _ in range(3)]
    assert [a.name for a in actions] == ["click", "report_discrepancy", "click"]
    assert actions[1].arg("kind") == "label_changed" and actions[1].arg("observed") == "Create a VPC"
    assert actions[2].element_id == 2  # the follower carries on with the label the page shows
    assert KIND_ALIASES["report_discrepancy"] == "wait"  # scored as an action that leaves the page as it is
    listed = build_candidates(page)  # without the follower no report is listed
    assert match_action(listed, parse_action('report_discrepancy(2, "label_changed", "a", "b")')) is None

    gone = Observation(url="http://c/vpc/vpcs/create", title="Create VPC", text="", goal=goal,
                       document=["Select **Zone** *cn-hangzhou-z*."], marks=[Mark(1, "link", "Help")])
    policy = RankerPolicy(model="base", prior=30.0)
    policy.reset(goal, gone.document)
    answers = [policy.act(gone).action for _ in range(4)]
    assert [parse_action(a).name for a in answers[1:3]] == ["report_discrepancy", "task_complete"]
    assert parse_action(answers[2]).arg("answer") == "followed all 1 steps"  # the follower's words, not "done"
