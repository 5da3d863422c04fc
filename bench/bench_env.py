"""Overhead of ConsoleEnv over bare Playwright: the same scripted 10-step episode both ways.

ConsoleEnv does per step: parse the action, check the target is actionable, act, wait until the
page settles (no request in flight, no DOM mutation for 150 ms), and observe (Set-of-Mark marks
and the text outline). Bare Playwright does only the actions, each followed by
``wait_for_load_state("load")`` (the physical floor: no observation at all), and, as a second
reference, by ``wait_for_load_state("networkidle")`` (the wait most scripts use).

Run: python bench/bench_env.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import machine

from consoleagent.adapters.stratus import StratusAdapter
from consoleagent.env import ConsoleEnv, EnvConfig
from consoleagent.tasks import Task

# (action, role, name, argument) — the same steps for both drivers
STEPS = [
    ("goto", None, "/vpc/vpcs", None),
    ("click", "link", "Create VPC", None),
    ("type", "textbox", "Name", "bench-vpc"),
    ("type", "textbox", "Description", "made by the benchmark"),
    ("goto", None, "/ecs/instances", None),
    ("hover", "link", "web-01", None),
    ("goto", None, "/vpc/vswitches", None),
    ("goto", None, "/ecs/security-groups", None),
    ("goto", None, "/ecs/instances/create", None),
    ("goto", None, "/console", None),
]


def env_episode(env: ConsoleEnv) -> float:
    observation, _ = env.reset(Task(goal="benchmark", start_url="/console", max_steps=50))
    started = time.perf_counter()
    for action, role, name, argument in STEPS:
        if role is None:
            text = f'goto("{name}")'
        else:
            mark = next(m for m in observation.marks if m.role == role and m.name == name)
            text = f"{action}({mark.id}" + (f', "{argument}"' if argument else "") + ")"
        observation, *_, info = env.step(text)
        assert info["result"] == "ok", info["result"]
    return time.perf_counter() - started


def bare_episode(page, base_url: str, wait: str) -> float:  # noqa: ANN001
    page.goto(base_url + "/console")
    page.wait_for_load_state(wait)
    started = time.perf_counter()
    for action, role, name, argument in STEPS:
        if role is None:
            page.goto(base_url + name)
        else:
            target = page.get_by_role(role, name=name, exact=True).first
            {"click": lambda: target.click(), "type": lambda: target.fill(argument), "hover": lambda: target.hover()}[action]()
        page.wait_for_load_state(wait)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    adapter = StratusAdapter(time_scale=20.0)
    env = ConsoleEnv(adapter, EnvConfig())
    from stratus.seed import seed_demo

    demo = seed_demo(adapter.runtime)
    password = demo.credentials.password
    # episodes sign in as the demo account so the pages have content
    adapter.credentials = lambda: __import__("consoleagent.adapters.base", fromlist=["Credentials"]).Credentials(
        demo.credentials.login_name, password)
    browser = env.host.browser()
    results: dict[str, list[float]] = {"ConsoleEnv (act + settle + observe)": [], "bare Playwright + load": [],
                                       "bare Playwright + networkidle": []}
    for _ in range(args.repeats):
        results["ConsoleEnv (act + settle + observe)"].append(env_episode(env))
        for wait in ("load", "networkidle"):
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            page = context.new_page()
            adapter.login(page, adapter.credentials())
            results[f"bare Playwright + {wait}"].append(bare_episode(page, adapter.base_url, wait))
            context.close()
    env.close()
    print(f"machine: {machine()}")
    print(f"{'driver':40s} {'median s':>9s} {'per step ms':>12s}")
    medians = {}
    for name, values in results.items():
        medians[name] = statistics.median(values)
        print(f"{name:40s} {medians[name]:9.3f} {medians[name] / len(STEPS) * 1000:12.1f}")
    base = medians["bare Playwright + load"]
    print(f"ratio ConsoleEnv / bare+load        {medians['ConsoleEnv (act + settle + observe)'] / base:.2f}x")
    print(f"ratio ConsoleEnv / bare+networkidle {medians['ConsoleEnv (act + settle + observe)'] / medians['bare Playwright + networkidle']:.2f}x")


if __name__ == "__main__":
    main()
