"""The benchmark's outputs: the results document's fields, the Markdown report, the PNG plots, the
comparison of two results, and the command-line help."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from consoleagent.bench.compare import compare, compare_pairs
from consoleagent.bench.compare import markdown as compare_markdown
from consoleagent.bench.report import PLOT_BY_PRODUCT, PLOT_VS_COST, markdown, write_reports
from consoleagent.bench.results import aggregate
from consoleagent.cli import app
from tests.consoleagent.bench.test_bench_results import META, record, synthetic, task

PNG = b"\x89PNG\r\n\x1a\n"
NUMBER = {"type": ["number", "null"]}
GROUP = {
    "type": "object",
    "required": ["tasks", "episodes", "scored", "passed", "pass1", "pass_at_k", "env_errors", "avg_steps", "avg_seconds",
                 "cost", "failures"],
    "properties": {
        "pass1": {"type": "object", "required": ["mean", "std", "per_run"],
                  "properties": {"mean": NUMBER, "std": NUMBER, "per_run": {"type": "array", "items": {"type": "number"}}}},
        "pass_at_k": {"type": "object", "additionalProperties": NUMBER},
        "env_errors": {"type": "object", "required": ["episodes", "retried_attempts", "by_phase"]},
        "cost": {"type": "object", "required": ["usd_per_task", "usd_total", "prompt_tokens_per_task",
                                                "completion_tokens_per_task", "policy_seconds_per_task"]},
        "failures": {"type": "object", "required": ["provisioning_gap", "ui_interaction", "agent_decision"]},
    },
}
# The fields docs/formats.md ("Benchmark results") documents.
SCHEMA = {
    "type": "object",
    "required": ["format", "format_version", "created_at", "policy", "model", "runs", "workers", "provisioning", "price",
                 "complete", "summary", "by_product", "by_difficulty", "tasks", "episodes"],
    "properties": {
        "format": {"const": "consoleagent-bench-results"},
        "format_version": {"const": 1},
        "policy": {"type": "object", "required": ["name", "options"]},
        "summary": GROUP,
        "by_product": {"type": "object", "additionalProperties": GROUP},
        "by_difficulty": {"type": "object", "additionalProperties": GROUP},
        "tasks": {"type": "array", "items": {"type": "object", "required": [
            "id", "product", "difficulty", "split", "release", "episodes", "scored", "passed", "pass1", "env_errors", "failures"]}},
        "episodes": {"type": "array", "items": {"type": "object", "required": [
            "key", "task", "run", "product", "difficulty", "status", "reward", "passed", "env_error", "policy_error",
            "failure_phase", "cause", "attempts", "env_error_attempts", "steps", "seconds", "prompt_tokens",
            "completion_tokens", "policy_seconds", "cost_usd", "failure", "trajectory"],
            "properties": {"failure": {"oneOf": [{"type": "null"}, {"type": "object", "required": ["class", "reason"],
                           "properties": {"class": {"enum": ["provisioning_gap", "ui_interaction", "agent_decision"]}}}]}}}},
    },
}
FULL_META = {**META, "created_at": "2026-11-21T00:00:00Z", "command": "consoleagent bench -p llm", "machine": "test",
             "selector": None, "model": "gpt-4o", "workers": 2, "provisioning": True}


def results_of(records: list[dict[str, Any]], tasks: Any, **meta: Any) -> dict[str, Any]:
    return aggregate(records, tasks, 3, meta={**FULL_META, **meta}, model="gpt-4o")


def test_results_document_report_and_plots(tmp_path: Path) -> None:
    tasks, records = synthetic()
    results = results_of(records, tasks)
    jsonschema.validate(json.loads(json.dumps(results)), SCHEMA)
    written = write_reports(results, tmp_path)
    assert [p.name for p in written] == ["results.md", PLOT_BY_PRODUCT, PLOT_VS_COST]
    for name in (PLOT_BY_PRODUCT, PLOT_VS_COST):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 2000
    text = (tmp_path / "results.md").read_text()
    assert "| **all** | 3 | 9 | 77.8 ± 19.2% | 100.0% | 100.0% | 1 |" in text
    assert "| product ecs |" in text and "| difficulty hard |" in text
    assert "## Failure taxonomy" in text and "vpc-b#1 | agent_decision" in text
    assert "prepare 4" in text  # environment errors by phase
    assert "$0.0062" in text  # cost per task in dollars for a priced model


def test_markdown_without_plots_and_with_local_costs(tmp_path: Path) -> None:
    tasks, records = synthetic()
    results = aggregate(records, tasks, 3, meta={**FULL_META, "model": None}, model=None)
    written = write_reports(results, tmp_path, plots=False)
    assert [p.name for p in written] == ["results.md"]
    assert "policy-s" in markdown(results)


def test_compare_two_results_paired_by_task(tmp_path: Path) -> None:
    tasks = [task(f"vpc-{i:02d}") for i in range(12)] + [task(f"ecs-{i:02d}", product="ecs") for i in range(8)]
    a_records, b_records = [], []
    for index, spec in enumerate(tasks):
        for run in range(3):
            a_records.append(record(f"{spec.id}#{run}", reward=1.0 if (index + run) % 3 == 0 else 0.0))
            # B passes every vpc task and the ecs tasks A passes
            better = spec.product == "vpc" or (index + run) % 3 == 0
            b_records.append(record(f"{spec.id}#{run}", reward=1.0 if better else 0.0))
    a, b = results_of(a_records, tasks), results_of(b_records, tasks + [task("only-b")])
    comparison = compare(a, b, resamples=2000, seed=1)
    overall, by_ecs, by_vpc = comparison["groups"]
    assert overall["group"] == "all" and overall["tasks"] == 20
    assert overall["difference"]["estimate"] == pytest.approx(b["summary"]["pass_at_k"]["1"] - a["summary"]["pass_at_k"]["1"])
    assert overall["difference"]["excludes_zero"] and overall["difference"]["low"] > 0
    assert by_ecs["group"] == "product ecs" and by_ecs["difference"]["estimate"] == 0.0
    assert by_vpc["difference"]["estimate"] == pytest.approx(2 / 3)
    assert comparison == compare(a, b, resamples=2000, seed=1)  # deterministic

    # B as several results of one recipe: copies change nothing but the count; a result that did not gain halves it
    copies = compare(a, [b, b], resamples=2000, seed=1)["groups"]
    assert [g["difference"] for g in copies] == [pytest.approx(g["difference"]) for g in comparison["groups"]]
    recipe = compare(a, [b, a], resamples=2000, seed=1)
    assert recipe["b"]["results"] == 2 and recipe["groups"][0]["tasks"] == 20
    assert recipe["groups"][0]["difference"]["estimate"] == pytest.approx(overall["difference"]["estimate"] / 2)
    assert recipe["groups"][0]["difference"]["low"] < overall["difference"]["low"]
    assert comparison["only_in_a"] == comparison["only_in_b"] == comparison["not_in_every_b"] == []

    # a task that one B result lacks is left out and named as such, not as a task only A holds
    lacking = results_of([r for r in b_records if not r["key"].startswith("vpc-00#")], tasks[1:])
    partial = compare(a, [b, lacking], resamples=500, seed=1)
    assert partial["groups"][0]["tasks"] == 19 and partial["not_in_every_b"] == ["vpc-00"]
    assert partial["only_in_a"] == partial["only_in_b"] == []
    assert "In A but not in every B result (left out): vpc-00" in compare_markdown(partial)

    # the command: directories or files, a Markdown table, JSON on request
    for name, data in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(data))
    runner = CliRunner()
    shown = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b" / "results.json"), "--resamples", "500",
                                "--output", str(tmp_path / "cmp.md")])
    assert shown.exit_code == 0, shown.output
    assert "| all | 20 |" in shown.output and "Δ (B − A)" in shown.output and "95% CI" in shown.output
    assert (tmp_path / "cmp.md").read_text().startswith("A: llm")
    as_json = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json", "--resamples", "500"])
    assert json.loads(as_json.output)["groups"][0]["tasks"] == 20
    seeds = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "a"), "--resamples", "500"])
    assert seeds.exit_code == 0 and "bootstrap over tasks and B's 2 results" in seeds.output
    missing = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path)])
    assert missing.exit_code == 2


def test_compare_pairs_subtracts_each_seeds_own_baseline(tmp_path: Path) -> None:
    """Two seeds of a recipe whose baselines differ: seed 0's SFT passes a third of the tasks and its GRPO
    passes every vpc task too; seed 1's SFT already passes everything and its GRPO passes the same. Each
    candidate against its own baseline gains (2/3 on vpc, 0) / 2; against seed 0's baseline alone, seed 1 would
    appear to gain everything its stronger SFT head already had."""
    tasks = [task(f"vpc-{i:02d}") for i in range(12)] + [task(f"ecs-{i:02d}", product="ecs") for i in range(8)]
    weak = [record(f"{spec.id}#0", reward=1.0 if index % 3 == 0 else 0.0) for index, spec in enumerate(tasks)]
    weak_gained = [record(f"{spec.id}#0", reward=1.0 if index % 3 == 0 or spec.product == "vpc" else 0.0)
                   for index, spec in enumerate(tasks)]
    strong = [record(f"{spec.id}#0", reward=1.0) for spec in tasks]
    sft0, grpo0 = results_of(weak, tasks), results_of(weak_gained, tasks)
    sft1, grpo1 = results_of(strong, tasks), results_of(strong, tasks)

    paired = compare_pairs([(sft0, grpo0), (sft1, grpo1)], resamples=2000, seed=1)
    overall, by_ecs, by_vpc = paired["groups"]
    gain0 = grpo0["summary"]["pass_at_k"]["1"] - sft0["summary"]["pass_at_k"]["1"]
    assert overall["difference"]["estimate"] == pytest.approx(gain0 / 2)
    assert by_vpc["difference"]["estimate"] == pytest.approx((2 / 3) / 2) and by_ecs["difference"]["estimate"] == 0.0
    assert overall["a"] == pytest.approx((sft0["summary"]["pass_at_k"]["1"] + 1.0) / 2)
    assert paired["paired_baselines"] and paired["a"]["results"] == paired["b"]["results"] == 2
    one_baseline = compare(sft0, [grpo0, grpo1], resamples=2000, seed=1)["groups"][0]["difference"]["estimate"]
    assert one_baseline > overall["difference"]["estimate"] + 0.2  # what pairing keeps out
    # one pair, and pairs sharing one baseline, are the comparisons compare already makes: the same draws
    assert compare_pairs([(sft0, grpo0)], resamples=2000, seed=1) == compare(sft0, grpo0, resamples=2000, seed=1)
    assert compare_pairs([(sft0, grpo0), (sft0, grpo1)], resamples=2000, seed=1) == compare(
        sft0, [grpo0, grpo1], resamples=2000, seed=1)
    # a task one baseline lacks is left out of every pair, and named
    lacking = results_of(strong[1:], tasks[1:])
    partial = compare_pairs([(sft0, grpo0), (lacking, grpo1)], resamples=500, seed=1)
    assert partial["groups"][0]["tasks"] == 19 and partial["not_in_every_b"] == ["vpc-00"]
    assert "In A and B but not in every result (left out): vpc-00" in compare_markdown(partial)
    with pytest.raises(ValueError, match="no pair"):
        compare_pairs([])

    # the command: --pairs reads A0 B0 A1 B1; an odd count is refused before anything is read
    for name, data in (("sft0", sft0), ("grpo0", grpo0), ("sft1", sft1), ("grpo1", grpo1)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(data))
    runner = CliRunner()
    shown = runner.invoke(app, ["compare", "--pairs", *(str(tmp_path / n) for n in ("sft0", "grpo0", "sft1", "grpo1")),
                                "--resamples", "500", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["groups"][0]["difference"]["estimate"] == pytest.approx(gain0 / 2)
    table = runner.invoke(app, ["compare", "--pairs", *(str(tmp_path / n) for n in ("sft0", "grpo0", "sft1", "grpo1")),
                                "--resamples", "500"])
    assert "the 2 (A, B) pairs" in table.output and str(tmp_path / "sft1") in table.output.split("B:")[0]
    odd = runner.invoke(app, ["compare", "--pairs", str(tmp_path / "sft0"), str(tmp_path / "grpo0"), str(tmp_path / "sft1")])
    assert odd.exit_code == 2 and "two by two" in odd.output and "3 were given" in odd.output


def test_bench_and_compare_help_explain_themselves() -> None:
    runner = CliRunner(env={"COLUMNS": "250"})  # wide enough that Rich does not elide cells
    bench_help = runner.invoke(app, ["bench", "--help"]).output
    for phrase in ("--policy", "--tasks", "--runs", "--workers", "resume", "--policy-option", "--price-table",
                   "--episode-timeout", "--no-provisioning", "pass@1", "failure"):
        assert phrase in bench_help, phrase
    compare_help = runner.invoke(app, ["compare", "--help"]).output
    assert "paired" in compare_help and "bootstrap" in compare_help and "B − A" in compare_help


def test_bench_refuses_bad_options(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["bench", "-p", "nosuch", "-o", str(tmp_path / "x")])
    assert unknown.exit_code == 2 and "oracle" in unknown.output
    bad_option = runner.invoke(app, ["bench", "-p", "docfollower", "-O", "nosuch=1", "-o", str(tmp_path / "x")])
    assert bad_option.exit_code == 2 and "no option" in bad_option.output
    no_tasks = runner.invoke(app, ["bench", "-p", "oracle", "-t", "no-such-task-*", "-o", str(tmp_path / "x")])
    assert no_tasks.exit_code == 2 and "selects none" in no_tasks.output
