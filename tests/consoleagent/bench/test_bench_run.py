"""``consoleagent bench`` for real: stratus, Chromium, the rollout lifecycle and the rule judge.

A 2-worker run of the oracle on 2 tasks x 2 runs is interrupted (Ctrl-C) after its first episode and
rerun: the rerun runs only the missing episodes. In process, the provisioning ablation: the same task
with its requirements provisioned passes, without them it fails as a provisioning gap.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from tests import sigint_as_default

import pytest

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.tasks.spec import TaskSpec
from consoleagent.trajectory.reader import read_trajectory

pytestmark = pytest.mark.browser
TASKS = "vpc-create-vpc-01 vpc-create-vpc-02"


def bench_command(out: Path) -> list[str]:
    return [sys.executable, "-m", "consoleagent", "bench", "--policy", "oracle", "--tasks", TASKS, "--runs", "2",
            "--workers", "2", "--out", str(out), "--no-plots"]


def ledger_lines(out: Path) -> list[dict[str, Any]]:
    path = out / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def test_two_workers_resume_after_an_interruption(tmp_path: Path) -> None:
    out = tmp_path / "results"
    env = {**os.environ, "COLUMNS": "200"}
    first = subprocess.Popen(bench_command(out), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True, preexec_fn=sigint_as_default)
    deadline = time.monotonic() + 240
    while not ledger_lines(out) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(first.pid, signal.SIGINT)  # Ctrl-C: the whole process group, workers included
    try:
        first.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(first.pid, signal.SIGKILL)
        raise
    before = {r["key"]: r for r in ledger_lines(out)}
    assert 1 <= len(before) < 4, first.stdout.read().decode(errors="replace")[-3000:]

    second = subprocess.run(bench_command(out), capture_output=True, text=True, env=env, timeout=300)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert f"resuming: {len(before)} of 4 episodes" in second.stdout
    lines = ledger_lines(out)
    keys = [r["key"] for r in lines]
    assert sorted(keys) == ["vpc-create-vpc-01#0", "vpc-create-vpc-01#1", "vpc-create-vpc-02#0", "vpc-create-vpc-02#1"]
    for key, held in before.items():  # finished episodes were not run again
        assert next(r for r in lines if r["key"] == key) == held
    assert all(r["status"] == "completed" and r["reward"] == 1.0 for r in lines)
    assert all((out / "trajectories" / f"{k.replace('#', '-run')}.jsonl").exists() for k in keys)

    # the second run's episodes ran side by side in two worker processes
    rerun = [r for r in lines if r["key"] not in before]
    spans = [(datetime.fromisoformat(r["episode"]["started_at"].rstrip("Z")),
              datetime.fromisoformat(r["episode"]["finished_at"].rstrip("Z"))) for r in rerun]
    if len(rerun) >= 2:
        assert any(a[0] < b[1] and b[0] < a[1] for i, a in enumerate(spans) for b in spans[i + 1:]), spans
        assert len({r["worker"] for r in rerun}) == 2

    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["workers"] == 2
    assert results["summary"]["pass1"] == {"mean": 1.0, "std": 0.0, "per_run": [1.0, 1.0]}
    assert results["summary"]["env_errors"]["episodes"] == 0
    assert "| **all** | 2 | 4 | 100.0 ± 0.0% |" in (out / "results.md").read_text()
    check_cost_of_the_same_decisions(out, results)


def check_cost_of_the_same_decisions(out: Path, results: dict[str, Any]) -> None:
    """`consoleagent cost` on the run: the oracle is priced by its measured CPU seconds, and the API side
    equals a count made here, request by request, with OpenAI's o200k BPE (gpt-4o-mini's)."""
    import bpe_openai

    from consoleagent.policies.prompts import messages_for

    assert results["summary"]["cost"]["policy_cpu_seconds_per_task"] > 0
    cost = subprocess.run([sys.executable, "-m", "consoleagent", "cost", str(out), "--api", "gpt-4o-mini",
                           "--output", str(out / "cost.json")], capture_output=True, text=True, timeout=120)
    assert cost.returncode == 0, cost.stdout[-2000:] + cost.stderr[-2000:]
    report = json.loads((out / "cost.json").read_text())[0]
    encoding = bpe_openai.get_encoding("o200k_base")
    prompt = 0
    for episode in results["episodes"]:
        for step in read_trajectory(out / "trajectories" / f"{episode['task']}-run{episode['run']}.jsonl").steps:
            messages = messages_for(step["observation"])
            prompt += 3 + sum(3 + len(encoding.encode(m["role"])) + len(encoding.encode(m["content"])) for m in messages)
    assert report["tokenizer"] == "o200k_base" and report["tokenizer_exact"]
    assert report["api"]["prompt_tokens_per_task"] == prompt / 4
    assert report["local"]["usd_per_task"] == results["summary"]["cost"]["usd_per_task"] > 0
    assert 0 < report["local_share"] == report["local"]["usd_per_task"] / report["api"]["usd_per_task"] < 1
    assert "of the API model's bill for the same decisions" in cost.stdout


OPEN_VPC_TASK = {
    "id": "bench-open-vpc", "product": "vpc", "difficulty": "standard", "split": "test",
    "document": "stratus/vpc/create-vpc.md", "release": "2026.03", "goal": "Open the VPC prepared for you.",
    "start_url": "/vpc",
    "requires": [{"name": "net", "template": "vpc"}, {"name": "sub", "template": "vswitch", "params": {"vpc_id": "${net.vpc_id}"}}],
    "reward": {"expect": [{"event": "DescribeVpcAttribute", "params": {"VpcId": "${net.vpc_id}"}}]},
    "oracle": [{"goto": "/vpc/vpcs/${net.vpc_id}"}, {"wait_until": {"text": "${net.vpc_id}"}}, {"task_complete": "found it"}],
}


def test_provisioning_ablation_in_process(tmp_path: Path, playwright_instance: Any) -> None:
    task = TaskSpec.model_validate(OPEN_VPC_TASK)
    on = run_bench(BenchConfig(tmp_path / "on", policy="oracle", runs=1, plots=False), [task], playwright=playwright_instance)
    assert on["summary"]["passed"] == 1, on["episodes"]
    header = read_trajectory(on["episodes"][0]["trajectory"]).header
    assert header["release"] == task.release == "2026.03"  # the task's release reaches the trajectory
    off = run_bench(BenchConfig(tmp_path / "off", policy="oracle", runs=1, plots=False, provisioning=False), [task],
                    playwright=playwright_instance)
    episode = off["episodes"][0]
    assert off["provisioning"] is False and not episode["passed"] and not episode["env_error"], episode
    assert episode["attempts"] == 1  # the oracle's failure is not retried as an environment error
    assert episode["failure"]["class"] == "provisioning_gap", episode


def test_should_stop_ends_a_run_after_the_episode_that_asked_and_a_rerun_finishes_it(tmp_path: Path,
                                                                                     playwright_instance: Any) -> None:
    """``train select`` stops a candidate that can no longer win through ``should_stop``: asked after each record,
    it starts no further episode, and the ledger keeps the run resumable."""
    task = TaskSpec.model_validate(OPEN_VPC_TASK)
    config = BenchConfig(tmp_path / "run", policy="oracle", runs=2, plots=False)
    asked: list[int] = []

    def stop() -> bool:
        asked.append(len(ledger_lines(tmp_path / "run")))
        return True

    stopped = run_bench(config, [task], playwright=playwright_instance, should_stop=stop)
    assert asked == [1] and not stopped["complete"] and len(ledger_lines(tmp_path / "run")) == 1
    finished = run_bench(config, [task], playwright=playwright_instance)
    assert finished["complete"] and finished["summary"]["passed"] == 2, finished["episodes"]


def test_an_unknown_document_style_is_refused_where_the_config_is_made(tmp_path: Path) -> None:
    from consoleagent.documents.restyle import UnknownStyle

    with pytest.raises(UnknownStyle, match="'bold'.*as_written, plain"):
        BenchConfig(tmp_path / "bold", policy="oracle", runs=1, plots=False, document_style="bold")
    assert not (tmp_path / "bold").exists()  # nothing was started or written


def test_a_document_style_reaches_the_policy_and_a_run_keeps_to_one_style(tmp_path: Path, playwright_instance: Any) -> None:
    from consoleagent.bench.harness import BenchConfigError, check_run
    from consoleagent.cli.tasks import load_selected
    from consoleagent.suite import DOCUMENTS_ROOT, TASKS_ROOT

    [task] = load_selected("vpc-create-route-table-01", TASKS_ROOT)
    config = BenchConfig(tmp_path / "plain", policy="oracle", runs=1, plots=False, document_style="plain")
    results = run_bench(config, [task], playwright=playwright_instance)
    assert results["summary"]["passed"] == 1 and results["document_style"] == "plain", results["episodes"]
    document = read_trajectory(results["episodes"][0]["trajectory"]).header["task"]["document"]
    as_written = task.to_task(DOCUMENTS_ROOT).document
    assert any("**" in step for step in as_written)
    assert len(document) == len(as_written) and not any("**" in step for step in document), document
    with pytest.raises(BenchConfigError, match="document_style"):  # the same directory, the documents as written
        check_run(tmp_path / "plain", BenchConfig(tmp_path / "plain", policy="oracle", runs=1, plots=False))


def test_a_run_records_the_sentence_encoder_its_figures_were_measured_with(tmp_path: Path, playwright_instance: Any,
                                                                           monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The follower matches labels with the sentence encoder; on a light install it falls back to word overlap, and
    a figure measured so must say it (here forced with $CONSOLEAGENT_ENCODER, as a missing torch would). The run is in
    process, so its episode records the encoder this process has used."""
    from consoleagent import encoder
    from consoleagent.bench.report import markdown
    from consoleagent.cli.tasks import load_selected
    from consoleagent.suite import TASKS_ROOT

    monkeypatch.setenv(encoder.BACKEND_ENV, "lexical")
    encoder.reset_shared()
    try:
        assert encoder.in_use() is None  # nothing has asked for one yet: nothing is loaded to say so
        # a label the page words differently, as the follower matches it (this task's labels all match exactly)
        assert encoder.similarity("Create VPC", "Create a VPC") > 0 and encoder.in_use() == "lexical"
        [task] = load_selected("vpc-create-vpc-01", TASKS_ROOT)
        results = run_bench(BenchConfig(tmp_path / "df", policy="docfollower", runs=1, plots=False), [task],
                            playwright=playwright_instance)
    finally:
        encoder.reset_shared()
    assert results["summary"]["scored"] == 1, results["episodes"]
    assert results["encoders"] == ["lexical"] and results["episodes"][0]["encoder"] == "lexical"
    assert f"sentence encoder: lexical — {encoder.LEXICAL_WARNING}" in markdown(results)
    assert json.loads((tmp_path / "df" / "ledger.jsonl").read_text().splitlines()[0])["encoder"] == "lexical"
    from consoleagent.cli.bench import print_results

    capsys.readouterr()
    print_results(results, tmp_path / "df")
    assert "lexical fallback" in " ".join(capsys.readouterr().err.split())  # the command says so too
