"""``reachable_pass1``: the bound ``train select`` stops a candidate by must hold whatever its unplayed episodes do,
or pruning could drop the head that would have won. Checked against the benchmark's own pass@1 (``summarize``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from consoleagent.bench.results import is_env_error, record_passed, summarize
from consoleagent.training.select_head import reachable_pass1

OUTCOMES = ("pass", "fail", "env")


def ledger_record(task: int, run: int, outcome: str) -> dict[str, Any]:
    if outcome == "env":
        return {"key": f"t{task}#{run}", "status": "env_error", "reward": None}
    return {"key": f"t{task}#{run}", "status": "completed", "reward": 1.0 if outcome == "pass" else 0.0}


def benchmark_pass1(records: list[dict[str, Any]], runs: int) -> float | None:
    """pass@1 as results.json reports it, from the same ledger records."""
    entries = [{"task": r["key"].split("#")[0], "run": int(r["key"].split("#")[1]), "passed": record_passed(r),
                "env_error": is_env_error(r), "env_error_attempts": [], "failure_phase": None, "failure": None,
                "cost_usd": None, "steps": 1, "seconds": 1.0, "prompt_tokens": 0, "completion_tokens": 0,
                "policy_seconds": 0.0, "policy_cpu_seconds": None} for r in records]
    return summarize(entries, runs)["pass1"]["mean"]


def test_the_bound_counts_every_unplayed_episode_as_passed() -> None:
    played = [ledger_record(0, 0, "pass"), ledger_record(1, 0, "fail")]
    assert reachable_pass1(played, runs=1, tasks=4) == 3 / 4
    # an episode lost to the environment is not scored: the run can still pass all it scores
    assert reachable_pass1([ledger_record(0, 0, "pass"), ledger_record(1, 0, "env")], runs=1, tasks=4) == 1.0
    # per run, then averaged: run 0 failed both, run 1 has not started
    assert reachable_pass1([ledger_record(0, 0, "fail"), ledger_record(1, 0, "fail")], runs=2, tasks=2) == 0.5
    assert reachable_pass1([], runs=3, tasks=5) == 1.0


@given(st.integers(1, 3), st.integers(1, 6), st.data())
def test_no_ending_of_the_unplayed_episodes_beats_the_bound_and_the_best_ending_reaches_it(
        runs: int, tasks: int, data: Any) -> None:
    keys = [(task, run) for run in range(runs) for task in range(tasks)]
    played_keys = data.draw(st.lists(st.sampled_from(keys), unique=True))
    played = [ledger_record(task, run, data.draw(st.sampled_from(OUTCOMES))) for task, run in played_keys]
    rest = [key for key in keys if key not in played_keys]
    ending = [ledger_record(task, run, data.draw(st.sampled_from(OUTCOMES))) for task, run in rest]
    bound = reachable_pass1(played, runs, tasks)

    final = benchmark_pass1(played + ending, runs)
    assert final is None or final <= bound + 1e-12
    best_ending = benchmark_pass1(played + [ledger_record(task, run, "pass") for task, run in rest], runs)
    assert best_ending is None or abs(best_ending - bound) < 1e-12  # the bound is reached, not only an upper one


def test_the_episodes_to_play_leave_out_candidates_already_beaten() -> None:
    from consoleagent.training.select_head import episodes_to_play

    half = [ledger_record(0, 0, "pass"), ledger_record(1, 0, "fail")]
    full = [ledger_record(0, 0, "pass"), ledger_record(1, 0, "pass")]
    one_fail = [ledger_record(0, 0, "fail")]
    # the second could still pass both and beat 1/2: all its episodes may be played
    assert episodes_to_play([half, []], runs=1, tasks=2) == 2
    # a rerun after the second stopped: it can reach 1/2 at most, the first passed 2/2, so it stops at once
    assert episodes_to_play([full, one_fail], runs=1, tasks=2) == 0
    assert episodes_to_play([full, one_fail], runs=1, tasks=2, prune=False) == 1
    # a tie loses to the earlier candidate, so it stops too
    assert episodes_to_play([half, one_fail], runs=1, tasks=2) == 0
    # the first is unfinished: what it will pass is unknown, so the second counts in full
    assert episodes_to_play([[ledger_record(0, 0, "pass")], one_fail], runs=1, tasks=2) == 2
    # a finished candidate that scored nothing (every episode lost to the environment) beats no one
    lost = [ledger_record(0, 0, "env"), ledger_record(1, 0, "env")]
    assert episodes_to_play([lost, one_fail], runs=1, tasks=2) == 1
