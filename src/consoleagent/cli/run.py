"""``consoleagent run``: one episode of any policy in a console, judged when it plays a suite task."""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.markup import escape

from consoleagent.cli.console_choice import CONSOLE_HELP, check_release
from consoleagent.policies.registry import policy_help
from consoleagent.terminal import error, is_terminal, out

if TYPE_CHECKING:  # the documents are imported when a command runs, not when the CLI loads
    from consoleagent.documents.references import References

RUN_EXIT_CODES = """Exit status: 0 the agent says it reached the goal (not verified: a free goal has no audit
rule; `consoleagent verify` and `bench` judge from the audit log), 1 the agent gave up or ran out of steps
or time, 2 bad input, 3 the environment failed (browser, console), 130 interrupted."""


def run(
    goal: Optional[str] = typer.Option(None, "--goal", "-g", help="What the agent should achieve, in one sentence "
                                                                  "(or --task)."),
    task_id: Optional[str] = typer.Option(None, "--task", help="A task of the console's own suite (`consoleagent tasks list "
                                          "--console NAME`): its goal, its resources provisioned, and the outcome judged "
                                          "from the audit log by its reward rule."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    url: Optional[str] = typer.Option(None, help="--console stratus: a running stratus (with --admin-token); without "
                                                 "--admin-token, any web console at this URL (with --login-name). "
                                                 "Default: start the console in this process."),
    policy: str = typer.Option("docfollower", help=policy_help() + " The docfollower needs --doc or --task."),
    doc: Optional[Path] = typer.Option(None, exists=True, dir_okay=False, help="A documented procedure the agent follows."),
    start: str = typer.Option("/", help="Path (or URL) of the page the episode starts on."),
    model: Optional[str] = typer.Option(None, help="llm: the model name."),
    base_url: Optional[str] = typer.Option(None, help="llm: an OpenAI-compatible endpoint (vLLM, SGLang, Ollama...)."),
    vision: bool = typer.Option(False, help="llm: send the marked screenshot too."),
    replay: Optional[Path] = typer.Option(None, exists=True, dir_okay=False, help="replay: the trajectory to replay."),
    actions: Optional[str] = typer.Option(None, help="scripted: actions separated by ';'."),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O",
                                            help="key=value for the policy's constructor, repeatable (e.g. -O temperature=0.2)."),
    login_name: Optional[str] = typer.Option(None, help="Another console's login name (with --url)."),
    password: Optional[str] = typer.Option(None, envvar="CONSOLEAGENT_PASSWORD", help="Another console's password."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="A running stratus's admin token (fresh accounts)."),
    release: Optional[str] = typer.Option(None, help="stratus console release for the episode's account."),
    max_steps: int = typer.Option(30, help="Step limit."),
    time_limit: float = typer.Option(600.0, help="Wall-clock limit in seconds."),
    screenshots: bool = typer.Option(True, help="Keep a marked screenshot per step in the trajectory."),
    out_dir: Path = typer.Option(Path("runs"), "--out", help="Where the trajectory goes."),
) -> None:
    """Run one episode against a console and write its trajectory (JSONL + screenshots).

    With --task the outcome is judged by the task's reward rule from the console's audit log; a free
    --goal has no judge, so the agent's own claim is reported as unverified."""
    from consoleagent.documents.references import References, references
    from consoleagent.env import ConsoleEnv, EnvConfig
    from consoleagent.runner import run_episode
    from consoleagent.tasks import Task

    if (goal is None) == (task_id is None):
        error("pass --goal (a free goal) or --task (a task of the console's suite, judged), not both or neither")
        raise typer.Exit(2)
    check_release(release, stratus=console == "stratus" and (url is None or bool(admin_token)))
    document = _read_document(doc)
    cited = references(doc) if doc is not None else References()  # a lone file: those beside it
    spec = _suite_task(console, task_id) if task_id else None
    if spec is not None and not document:
        document, cited = _task_documents(console, spec)
    if policy == "docfollower" and not document:
        error("the docfollower follows a document: pass --doc FILE (or choose another --policy, e.g. llm)")
        raise typer.Exit(2)
    options = {"model": model, "base_url": base_url, "vision": vision, "trajectory": replay,
               "actions": [a.strip() for a in actions.split(";") if a.strip()] if actions else None}
    from_task = _from_task(policy)
    if from_task and spec is None:
        error(f"the {policy} policy plays a task's known solution: pass --task ID (or choose another --policy)")
        raise typer.Exit(2)
    agent = None if from_task else _make_policy(
        policy, {k: v for k, v in options.items() if v is not None and v is not False}, policy_option)
    adapter = _adapter(console, url, login_name, password, admin_token, release)
    if spec is not None and not hasattr(adapter, "begin_episode"):
        error("--task needs the console's backend (--console NAME), not a plain web console at --url")
        raise typer.Exit(2)
    env = ConsoleEnv(adapter, EnvConfig(screenshots=screenshots))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    trajectory = out_dir / f"{stamp}-{policy}.jsonl"
    if spec is not None:
        raise typer.Exit(_run_task(env, adapter, agent, policy, spec, (document, cited), trajectory, max_steps,
                                   time_limit))
    task = Task(goal=goal or "", start_url=start, document=document, related=cited.procedures,
                alternatives=cited.alternatives, max_steps=max_steps,
                time_limit_s=time_limit)
    try:
        with out.status(f"Running {policy} on {adapter.base_url} ...") if is_terminal() else nullcontext():
            result = run_episode(env, agent, task, trajectory=trajectory, release=release)
    except KeyboardInterrupt:
        error(f"interrupted; the steps so far are in {trajectory}")
        raise typer.Exit(130) from None
    finally:
        env.close()
    _print_outcome(result)
    out.print(f"Trajectory: {trajectory}   (view it: consoleagent view {trajectory})")
    # A free goal is never verified: exit 0 only says the agent claims it, as the line above says.
    raise typer.Exit({"completed": 0, "env_error": 3}.get(result.status, 1))


def _suite_task(console: str, task_id: str):  # noqa: ANN202
    """The task ``task_id`` of the console's own suite (exit 2 naming what exists when it is not there)."""
    from consoleagent.cli.console_choice import tasks_root
    from consoleagent.suite.catalog import load_suite
    from consoleagent.tasks.spec import TaskFileError

    try:
        specs = {s.id: s for s in load_suite(None, tasks_root(console, None))}
    except (ValueError, TaskFileError) as exc:
        error(str(exc))
        raise typer.Exit(2) from None
    if task_id not in specs:
        error(f"--task {task_id}: no such task of console {console} (`consoleagent tasks list --console {console}`)")
        raise typer.Exit(2)
    return specs[task_id]


def _task_documents(console: str, spec) -> tuple[list[str], References]:  # noqa: ANN001
    """The task's document steps and the procedures its document refers to, from the console's documents."""
    from consoleagent.consoles import resolve_class
    from consoleagent.documents.references import References

    backend = resolve_class(console)
    root = (backend() if isinstance(backend, type) else backend).documents_root
    task = spec.to_task(root) if root else None
    return (task.document, References(task.related, task.alternatives)) if task is not None else ([], References())


def _run_task(env, backend, agent, policy_name: str, spec, documents: tuple[list[str], References],  # noqa: ANN001
              trajectory: Path, max_steps: int, time_limit: float) -> int:
    """One judged episode of a suite task: begin (isolate, provision) → episode → the reward rule → end."""
    from dataclasses import replace

    from consoleagent.consoles.check import judge
    from consoleagent.placeholders import substitute
    from consoleagent.runner import run_episode

    if spec.release != backend.release:  # a console with several releases (stratus) runs the task's
        if spec.release not in (backend.releases() if hasattr(backend, "releases") else [backend.release]):
            env.close()
            error(f"task {spec.id} is for release {spec.release}; console {backend.name} runs {backend.release}")
            return 2
        backend.release = spec.release
        if hasattr(backend, "adapter"):
            backend.adapter.release = spec.release
    try:
        backend.start()
        episode = backend.begin_episode(spec.id, spec.requirements)
    except Exception as exc:  # the console or its provisioning failed: the environment's failure
        env.close()
        error(f"the console could not prepare task {spec.id}: {exc}")
        return 3
    try:
        task = spec.to_task(None)
        task = replace(task, goal=substitute(task.goal, episode.outputs), document=documents[0], related=documents[1].procedures,
                       alternatives=documents[1].alternatives,
                       max_steps=min(task.max_steps, max_steps), time_limit_s=min(task.time_limit_s, time_limit))
        if agent is None:  # built from the task (the oracle: its solution, with the ids the provisioning made)
            from consoleagent.policies.registry import make_policy

            agent = make_policy(policy_name, task=spec, outputs=episode.outputs)
        with out.status(f"Running {spec.id} on {backend.base_url} ...") if is_terminal() else nullcontext():
            result = run_episode(env, agent, task, trajectory=trajectory, credentials=episode.credentials,
                                 resource_report=episode.report.text() if episode.report.resources else None)
        verdict = None
        if result.status != "env_error":
            verdict = judge(backend, spec.reward, status=result.status, since=episode.since,
                            account_id=episode.credentials.extra.get("account_id", ""), outputs=episode.outputs,
                            discrepancies=result.discrepancies)
    except KeyboardInterrupt:
        error(f"interrupted; the steps so far are in {trajectory}")
        return 130
    finally:
        try:
            backend.end_episode(episode)
        finally:
            env.close()
    _print_judged(result, verdict)
    out.print(f"Trajectory: {trajectory}   (view it: consoleagent view {trajectory})")
    if result.status == "env_error":
        return 3
    return 0 if verdict is not None and verdict.passed else 1


def _print_judged(result, verdict) -> None:  # noqa: ANN001
    """What the judge decided; the agent's own claim is shown only beside it."""
    steps = f"after {result.steps} step{'s' if result.steps != 1 else ''} in {result.duration_s:.1f}s"
    if verdict is None:
        out.print(f"[red]environment error[/red] {steps}" + (f": {escape(result.cause)}" if result.cause else ""))
        return
    claim = {"completed": "the agent said it reached the goal", "unachievable": "the agent gave up",
             "truncated": "the agent ran out of steps or time"}.get(result.status, result.status)
    if verdict.passed:
        out.print(f"[green]judged: goal reached[/green] (reward {verdict.reward:g}, from the audit log) {steps}; {claim}")
    else:
        out.print(f"[red]judged: goal not reached[/red] (reward {verdict.reward:g}, from the audit log) {steps}; {claim}")
        out.print(verdict.explain(), markup=False, highlight=False)


def _read_document(doc: Path | None) -> list[str]:
    if doc is None:
        return []
    from consoleagent.documents.procedure import ProcedureError, parse_procedure

    try:
        return parse_procedure(doc.read_text(encoding="utf-8"), source=str(doc)).step_texts()
    except (ProcedureError, UnicodeDecodeError) as exc:
        error(str(exc))
        raise typer.Exit(2) from None


def _from_task(policy: str) -> bool:
    """Whether the policy is built from the task it plays (the oracle); exit 2 naming the known ones otherwise."""
    from consoleagent.policies.registry import entry_of

    try:
        return entry_of(policy).from_task
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(2) from None


def _make_policy(policy: str, options: dict, pairs: list[str]):  # noqa: ANN202
    """The policy, or exit 2 with the reason (an unknown option, a missing model, no API key...)."""
    from consoleagent.policies.registry import PolicyConfigError, make_policy, parse_option_pairs

    try:
        return make_policy(policy, **options, **parse_option_pairs(pairs))
    except (ValueError, TypeError, PolicyConfigError) as exc:
        error(str(exc))
        raise typer.Exit(2) from None


def _print_outcome(result) -> None:  # noqa: ANN001
    """Say what happened in words that cannot be mistaken for a verified success."""
    steps = f"after {result.steps} step{'s' if result.steps != 1 else ''} in {result.duration_s:.1f}s"
    reason = result.cause or result.answer
    if result.status == "completed":
        out.print(f"[green]the agent says it reached the goal[/green] {steps}"
                  + (f": {escape(result.answer)}" if result.answer else "")
                  + "\n  not verified: a free goal has no audit rule (`consoleagent verify` and `bench` judge from the audit log)")
    elif result.status == "unachievable":
        out.print(f"[yellow]the agent gave up[/yellow] {steps}" + (f": {escape(reason)}" if reason else ""))
    elif result.status == "truncated":
        out.print(f"[yellow]stopped at the step or time limit[/yellow] {steps}" + (f": {escape(reason)}" if reason else ""))
    else:
        out.print(f"[red]environment error[/red] {steps}" + (f": {escape(reason)}" if reason else ""))
    for item in result.discrepancies:
        out.print(escape(f"  discrepancy at step {item.get('step')}: {item.get('kind')}: expected {item.get('expected')!r}, "
                         f"observed {item.get('observed')!r}"))


def _adapter(console: str, url: str | None, login_name: str | None, password: str | None, admin_token: str | None,
             release: str | None):  # noqa: ANN202
    """The console's backend (stratus: in this process, or at --url with --admin-token), or a plain web
    console at --url (a login form, nothing else: no judge)."""
    from consoleagent.adapters.web import WebConsoleAdapter
    from consoleagent.cli.console_choice import backend_for

    if console == "stratus" and url is not None and not admin_token:
        return WebConsoleAdapter(url, login_name, password)
    try:
        backend = backend_for(console, url=url, admin_token=admin_token)
        if release is not None:  # stratus serves several releases: the episode's account is put on this one
            backend.release = backend.adapter.release = release
        return backend
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(2) from None


