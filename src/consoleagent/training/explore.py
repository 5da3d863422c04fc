"""Self-exploration: tasks the agent proposes from a product's pages, kept when the audit log confirms them.

The reference system's second source of training data. No task file and no document is needed:
the explorer opens the product's entry page (and the pages its navigation links lead to, one level
down), reads what they offer, and proposes create/delete tasks in a person's words:

- a "Create VPC" (also "Add …", "New …") button or link → ``Create a VPC named x3f9-vpc.``
- a "Delete"/"Release"/"Remove" button in a table row → ``Delete the VPC web-vpc.`` (the row's name,
  the resource from the page's own create control, else its title).

Each proposal is then performed by a policy (the ranker by default, any registered policy by
name) in the real console, one episode each, all in one account so later proposals see what
earlier ones created. A proposal is **kept** only when the audit log holds a successful write of
its verb and resource type during its episode: the console's write actions are narrowed to the
goal's verb family and closest resource by ``verify.outcome.matching_writes`` (the rule
verification applies to a document without a task), and the episode's records must hold one of
them without an error code. Everything is written as an ordinary collection, so the SFT filters
and ``train sft --policy ranker`` read it unchanged:

- ``ledger.jsonl``: one line per episode with the key ``TASK#0``, ``reward`` 1.0 (confirmed) or 0.0,
  ``status`` and the trajectory path (``task_filter`` then drops what was not confirmed);
- ``trajectories/TASK.jsonl``: the episode as ``run_episode`` writes every trajectory;
- ``explore.jsonl``: one line per proposal: id, goal, verb, resource, the page it came from, the
  write events that would confirm it, those found, and ``kept`` (format in docs/formats.md).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from consoleagent.observation.types import Observation

CREATE = re.compile(r"^(?:create|add|new|apply for)\s+(?:an?\s+)?(?P<resource>[\w][\w .-]{1,40})$", re.I)
DELETE = re.compile(r"^(?:delete|release|remove)$", re.I)
ROW_NAME = re.compile(r"^row:\s*(?P<name>[^|\s]+)")
MAX_PAGES = 8  # navigation links followed from the entry page
EXPLORE_FILE = "explore.jsonl"


@dataclass
class Proposal:
    """One task the explorer proposes."""

    id: str
    goal: str
    verb: str  # "create" | "delete"
    resource: str  # "VPC", "vSwitch"
    page: str  # the URL of the page that offered it
    name: str  # the new resource's name (create) or the row's (delete)
    expected: list[str] = field(default_factory=list)  # write events that would confirm it
    found: list[str] = field(default_factory=list)  # those the episode's audit records hold
    kept: bool = False
    status: str = ""
    steps: int = 0


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:20] or "x"


def _singular(title: str) -> str:
    word = (title.split(" - ")[0].split("|")[0].strip().split() or ["resource"])[-1]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def propose(observation: Observation, product: str, rng: random.Random) -> list[Proposal]:
    """The create and delete tasks one page offers (ids are filled in by the caller)."""
    proposals: list[Proposal] = []
    creatable: list[str] = []
    for mark in observation.marks:
        if mark.role not in ("button", "link") or "disabled" in mark.states:
            continue
        match = CREATE.match(" ".join(mark.name.split()))
        if match:
            resource = match.group("resource").strip()
            creatable.append(resource)
            name = f"x{rng.randrange(16**4):04x}-{_slug(resource)}"
            article = "an" if resource[0].casefold() in "aeiou" else "a"  # "an EIP", "a VPC"
            proposals.append(Proposal("", f"Create {article} {resource} named {name}.", "create", resource,
                                      observation.url, name))
    resource = creatable[0] if creatable else _singular(observation.title)
    for mark in observation.marks:
        row = ROW_NAME.match(mark.context or "")
        if mark.role == "button" and row and DELETE.match(mark.name.strip()) and "disabled" not in mark.states:
            name = row.group("name")
            proposals.append(Proposal("", f"Delete the {resource} {name}.", "delete", resource, observation.url, name))
    return proposals


def expected_writes(goal: str, writes: list[str]) -> list[str]:
    """The write events that confirm ``goal`` (``verify.outcome.matching_writes``: the goal's verb
    family, then the resource closest in meaning)."""
    from consoleagent.verify.outcome import matching_writes

    return matching_writes(goal, writes)


def confirmed(records: list[dict[str, Any]], expected: list[str]) -> list[str]:
    """The names of the successful records (no error code) among ``expected``."""
    wanted = set(expected)
    return [r.get("eventName", "") for r in records if r.get("eventName") in wanted and not r.get("errorCode")]


def discover(env: Any, product: str, credentials: Any, max_pages: int = MAX_PAGES) -> list[Observation]:
    """The entry page ``/PRODUCT`` and the pages its short links open (its navigation: one level down)."""
    from consoleagent.tasks import Task

    task = Task(goal=f"Look around the {product} console.", start_url=f"/{product}", max_steps=4 * max_pages + 4)
    first, _ = env.reset(task, credentials=credentials)
    pages, current = [first], first
    links = list(dict.fromkeys(m.name for m in first.marks if m.role == "link" and m.name.strip()
                               and len(m.name.split()) <= 4 and not CREATE.match(m.name) and "home" not in m.name))
    links = links[:max_pages]
    for name in links:
        if current.url != first.url:  # back() did not return to the entry page: start over there
            current, _ = env.reset(task, credentials=credentials)
        mark = next((m for m in current.marks if m.role == "link" and m.name == name), None)
        if mark is None:
            continue
        after, _, terminated, truncated, info = env.step(f"click({mark.id})")
        if info.get("result") == "ok" and after.url not in {p.url for p in pages}:
            pages.append(after)
        if terminated or truncated:
            break
        current, _, terminated, truncated, _ = env.step("back()")
        if terminated or truncated:
            break
    return pages


def explore(backend: Any, env: Any, make_policy: Callable[[], Any], *, product: str, episodes: int, out: Path,
            seed: int = 0, max_steps: int = 20, verbs: tuple[str, ...] = ("create", "delete"),
            resources: tuple[str, ...] = (),
            settle_s: float | None = None,
            log: Callable[[str], None] = lambda _: None) -> list[Proposal]:
    """Propose up to ``episodes`` tasks from ``product``'s pages, perform each with a fresh policy
    from ``make_policy``, keep those the audit log confirms; write the collection into ``out``.
    ``verbs`` and ``resources`` (names as the pages show them, any case) narrow the proposals."""
    from consoleagent.runner import run_episode
    from consoleagent.tasks import Task
    from consoleagent.verify.outcome import console_writes

    writes = console_writes(backend) or []
    if not writes:
        raise ValueError(f"{getattr(backend, 'name', backend)}: the console lists no write actions; "
                         "exploration has nothing to confirm tasks with")
    out = Path(out)
    (out / "trajectories").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    wanted = {r.casefold() for r in resources}  # empty: every resource the pages offer
    handle = backend.begin_episode(f"explore-{product}", [])
    credentials = handle.credentials
    delay = settle_s if settle_s is not None else float(getattr(backend, "delivery_delay_s", None) or 0.0) + 2.0
    done: list[Proposal] = []
    try:
        while len(done) < episodes:
            offered = [p for page in discover(env, product, credentials) for p in propose(page, product, rng)
                       if p.verb in verbs and (not wanted or p.resource.casefold() in wanted)]
            seen = {(p.verb, p.resource.casefold(), p.name) for p in done}
            failed = {(d.verb, d.resource) for d in done if not d.kept}  # not proposed again: budget for the rest
            fresh = [p for p in offered if (p.verb, p.resource.casefold(), p.name) not in seen
                     and (p.verb, p.resource) not in failed]
            if not fresh:
                log(f"nothing new to propose after {len(done)} episode(s)")
                break
            proposal = rng.choice(fresh)
            proposal.id = f"explore-{_slug(product)}-{proposal.verb}-{_slug(proposal.resource)}-{len(done):02d}"
            proposal.expected = expected_writes(proposal.goal, writes)
            task = Task(goal=proposal.goal, start_url=f"/{product}", id=proposal.id, max_steps=max_steps)
            trajectory = out / "trajectories" / f"{proposal.id}.jsonl"
            result = run_episode(env, make_policy(), task, trajectory=trajectory, credentials=credentials)
            proposal.status, proposal.steps = result.status, result.steps
            proposal.found = _wait_for_writes(backend, result.credentials or credentials, proposal.expected, delay)
            proposal.kept = result.status != "env_error" and bool(proposal.found)
            done.append(proposal)
            _append(out, proposal, result)
            log(f"{'KEPT' if proposal.kept else 'dropped'} {proposal.id}: {proposal.goal} "
                f"({result.status}, {result.steps} steps; audit: {', '.join(proposal.found) or 'no matching write'})")
    finally:
        backend.end_episode(handle)
    return done


def _wait_for_writes(backend: Any, credentials: Any, expected: list[str], wait_s: float) -> list[str]:
    """The expected writes in the episode's audit records, re-read until they appear or ``wait_s``
    ends (the console delivers its records after a delay)."""
    deadline = time.monotonic() + wait_s
    while True:
        collect = getattr(backend, "collect_audit", None)
        if callable(collect):
            records = collect(credentials)  # the episode's own sign-in session
        else:
            records = backend.audit_records(principal=credentials.extra.get("account_id"))
        found = confirmed(records, expected)
        if found or time.monotonic() >= deadline:
            return found
        time.sleep(0.5)


def _append(out: Path, proposal: Proposal, result: Any) -> None:
    """One line in ``explore.jsonl`` and one in ``ledger.jsonl`` (the collection's ordinary ledger)."""
    with (out / EXPLORE_FILE).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(proposal)) + "\n")
    trajectory = str(result.trajectory) if result.trajectory else None
    record = {"key": f"{proposal.id}#0", "reward": 1.0 if proposal.kept else 0.0, "status": result.status,
              "cause": result.cause, "trajectory": trajectory, "source": "explore",
              "episode": {"status": result.status, "steps": result.steps, "duration_s": result.duration_s,
                          "answer": result.answer, "cause": result.cause, "discrepancies": [],
                          "trajectory": trajectory}}
    with (out / "ledger.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


@dataclass(frozen=True)
class ExploredTask:
    """What the SFT data needs of an explored task in place of a suite task file."""

    id: str
    goal: str
    document: str  # the unit of the by-document split: explore/PRODUCT/VERB-RESOURCE
    split: str = "train"
    discrepancies: tuple[()] = ()


def explored_tasks(results_dir: str | Path) -> dict[str, ExploredTask]:
    """The explored tasks of a collection (from its ``explore.jsonl``; none when it has no such file)."""
    path = Path(results_dir) / EXPLORE_FILE
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            product = row["id"].split("-")[1] if row["id"].count("-") >= 2 else "explore"
            out[row["id"]] = ExploredTask(row["id"], row["goal"],
                                          f"explore/{product}/{row['verb']}-{_slug(row['resource'])}")
    return out
