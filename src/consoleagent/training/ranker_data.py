"""Listwise examples for the ranker from a teacher collection: (candidates' features, oracle's index).

The collection goes through the same filters as the generative samples (``training.filters``: task
filter, errors, no-ops, loops, detours). Each kept step's recorded observation (its marks, goal,
document, prepared resources, last error) is turned back into the candidate list the ranker would
have built, and the teacher's action is located in it (``candidates.match_action``). A step whose
action is not among the candidates (a report where the follower run alongside proposed none, an option
no observation showed) is counted under ``unmatched`` and left out. History is rebuilt from every earlier step of the
trajectory, kept or not, as the ranker would have lived it.

The split is by document: a seeded share of the collection's documents is held out for validation,
and a task whose suite split is not ``train`` is refused outright, so neither validation nor the
test split ever reaches the training rows.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from consoleagent.observation.types import Mark, Observation, rendered_sections

TEACHER_STEPS = ("all", "until_divergence")


@dataclass
class RankerExample:
    """One step: the candidates' feature rows, the teacher's index among them, and where it came from."""

    task_id: str
    document: str
    step: int
    features: Any  # (candidates, N_FEATURES) float tensor
    label: int
    action: str


@dataclass
class RankerData:
    train: list[RankerExample] = field(default_factory=list)
    val: list[RankerExample] = field(default_factory=list)
    val_documents: list[str] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)


def observation_from_record(record: dict[str, Any], goal: str, document: list[str],
                            header_task: dict[str, Any] | None = None) -> Observation:
    """The observation a recorded step saw, as far as the ranker uses it (the procedures the task's document
    refers to come from the trajectory header's task, ``header_task``; older files have none)."""
    header_task = header_task or {}
    parts = rendered_sections(record.get("observation", ""))
    page = parts.get("Page", "")
    text = page.split("\n", 2)[2] if page.count("\n") >= 2 else ""
    return Observation(url=record.get("url", ""), title=record.get("title", ""), text=text,
                       marks=[Mark.from_dict(m) for m in record.get("marks") or []], goal=goal, document=document,
                       last_error=parts.get("Error from your last action"),
                       resource_report=parts.get("Resources prepared for you"), step=int(record.get("step", 0)),
                       related=dict(header_task.get("related") or {}),
                       alternatives=list(header_task.get("alternatives") or []))


def _document_of(spec: Any) -> str:
    """The task's document (the unit of the split): tasks of one document share its procedure."""
    return str(getattr(spec, "document", None) or spec.id)


def split_documents(documents: list[str], val_fraction: float, seed: int) -> list[str]:
    """A seeded choice of about ``val_fraction`` of the documents (at least one when there are two)."""
    if val_fraction <= 0 or len(documents) < 2:
        return []
    count = min(len(documents) - 1, max(1, round(len(documents) * val_fraction)))
    shuffled = sorted(documents)
    random.Random(seed).shuffle(shuffled)
    return sorted(shuffled[:count])


def build_ranker_data(results_dir: str | Path | list[str | Path], *, encoder: Any, specs: dict[str, Any] | None = None,
                      val_fraction: float = 0.15, seed: int = 0, cache: dict[str, Any] | None = None,
                      on_new_episode: Callable[[dict[str, Any]], None] | None = None,
                      teacher_steps: str = "all", read_unmarked: bool = False,
                      val_dirs: list[str | Path] | None = None) -> RankerData:
    """Filter the collection, rebuild each kept step's candidates and features, split by document.

    ``results_dir`` may be a list of collections, teachers in order of preference: a task's kept
    episodes come from the first collection that has any. Why: the ranker sees the documentation
    follower's proposal as a feature; where the follower itself succeeded, its episodes teach when to
    trust that proposal, and the oracle's episodes, whose equally valid but different orders would
    contradict them, only fill in the tasks where the follower failed.

    ``val_dirs``: collections of the suite's validation split (``collect --tasks split=val``), whose steps all
    validate, beside the ``val_fraction`` of the collection's own documents. The suite splits tasks by document, so
    their documents are ones no training task uses, as the held-out split's are; that is checked here.

    ``cache`` (trajectory path → its examples and counts, filled here) spares a rerun the encoder
    time of the episodes it has already seen (a collection grows; features cost seconds per step);
    ``on_new_episode(cache)`` is called after each episode computed anew (to save the cache as it grows).
    ``teacher_steps="until_divergence"`` keeps each episode's examples only up to its first step away from
    the follower's proposal (``until_divergence``). ``read_unmarked``: as the head to be trained reads documents
    (``replayed_steps``)."""
    directories = list(results_dir) if isinstance(results_dir, list) else [results_dir]
    kept_episodes, taught, specs = preferred_episodes(directories, specs)
    documents = sorted({_document_of(specs[e.task_id]) for e in kept_episodes})
    val_documents = split_documents(documents, val_fraction, seed)
    val_episodes: list[Any] = []
    if val_dirs:
        val_episodes, _, specs = preferred_episodes(val_dirs, specs, split="val")
        shared = sorted(set(documents) & {_document_of(specs[e.task_id]) for e in val_episodes})
        if shared:
            raise ValueError(f"validation collections {', '.join(map(str, val_dirs))} use training documents "
                             f"({', '.join(shared[:5])}): validation would not be on unseen documents")
    data = RankerData(val_documents=sorted({*val_documents, *(_document_of(specs[e.task_id]) for e in val_episodes)}))
    counts: Counter[str] = Counter()
    cache = {} if cache is None else cache
    for episodes, validating in ((kept_episodes, False), (val_episodes, True)):
        for document_name, examples in _episodes_examples(episodes, specs, encoder, cache, on_new_episode,
                                                          teacher_steps, read_unmarked, counts):
            (data.val if validating or document_name in val_documents else data.train).extend(examples)
    counts["train"], counts["val"] = len(data.train), len(data.val)
    if val_dirs:
        counts["val from validation collections"] = sum(1 for e in data.val if e.document not in val_documents)
    if len(directories) > 1:
        counts.update({f"tasks from {d}": sum(1 for t in taught.values() if t == str(d)) for d in directories})
    data.counts = dict(counts)
    return data


def _episodes_examples(episodes: list[Any], specs: dict[str, Any], encoder: Any, cache: dict[str, Any],
                       on_new_episode: Callable[[dict[str, Any]], None] | None, teacher_steps: str,
                       read_unmarked: bool, counts: Counter[str]) -> Iterator[tuple[str, list[RankerExample]]]:
    """Each episode's document and examples: its steps the filters keep, features from ``cache`` or computed
    (and cached); ``counts`` gathers what was kept and left out."""
    from consoleagent.training.filters import apply_step_filters, episode_steps

    kept_steps, _ = apply_step_filters([s for e in episodes for s in episode_steps(e)])
    wanted = {(str(s.episode.trajectory), int(s.record["step"])) for s in kept_steps}
    counts["kept_steps"] += len(kept_steps)
    for episode in episodes:
        steps = {int(step) for path, step in wanted if path == str(episode.trajectory)}
        key = f"{episode.trajectory}:{sorted(steps)}"
        if key not in cache:
            cache[key] = episode_examples(episode, specs[episode.task_id], steps, encoder, episode_steps(episode),
                                          read_unmarked)
            if on_new_episode is not None:
                on_new_episode(cache)
        examples, episode_counts = cache[key]
        counts.update(episode_counts)
        if teacher_steps == "until_divergence":
            kept_examples = until_divergence(examples)
            counts["after divergence"] += len(examples) - len(kept_examples)
            examples = kept_examples
        yield _document_of(specs[episode.task_id]), examples


def until_divergence(examples: list[RankerExample]) -> list[RankerExample]:
    """An episode's examples up to and including the first whose teacher action is not the follower's proposal.

    Why: a residual head learns where to leave the follower. Before the teacher first leaves it, the two
    agree; at that step the teacher, which succeeded where the follower failed, shows the correction. After
    it the follower run alongside is on a page its plan did not lead to, and the teacher's route differs
    from its proposals in many equally valid ways; trained on those steps the head learned to leave the
    follower early on held-out tasks (BENCHMARKS.md, "a residual head over the follower")."""
    kept: list[RankerExample] = []
    for example in sorted(examples, key=lambda e: e.step):
        pick = follower_index(example)
        if pick is not None and pick != example.label and same_choice(example.features, example.label, pick):
            example = replace(example, label=pick)  # the same action on a twin element: no correction
        kept.append(example)
        if pick != example.label:
            break
    return kept


def follower_index(example: RankerExample) -> int | None:
    """The candidate the follower proposed at this step (None: it proposed none of them)."""
    from consoleagent.policies.ranker_features import FOLLOWER_PICK

    picked = example.features[:, FOLLOWER_PICK].nonzero().flatten().tolist()
    return int(picked[0]) if picked else None


def same_choice(rows: Any, a: int, b: int) -> bool:
    """Whether two candidates read the same to the head and neither's table row or dialog names the goal's
    resource: the same action on a twin element (the toolbar's "Create VPC" link and the empty table's).
    Measured on the oracle's episodes: 5 of the 28 first steps away from the follower were such twins; as
    corrections they teach the head to distrust the follower for nothing it could tell apart."""
    from consoleagent.policies.ranker_features import COS_DOC, COS_GOAL, SCALAR_FEATURES

    context_goal = SCALAR_FEATURES.index("context_goal")
    kind_and_role = slice(len(SCALAR_FEATURES), None)
    return (float(rows[a, COS_GOAL]) == float(rows[b, COS_GOAL]) and float(rows[a, COS_DOC]) == float(rows[b, COS_DOC])
            and bool((rows[a, kind_and_role] == rows[b, kind_and_role]).all())
            and float(rows[a, context_goal]) == float(rows[b, context_goal]) == 0.0)


def preferred_episodes(directories: list[str | Path], specs: dict[str, Any] | None = None, split: str = "train"
                       ) -> tuple[list[Any], dict[str, str], dict[str, Any]]:
    """The kept episodes of the collections, teachers in order of preference: each task's come from the
    first collection that has a kept (successful) episode of it. Also returns task → that collection,
    and the task specs (the suite's, with any self-exploration collection's own tasks)."""
    if not directories:
        raise ValueError("no collection given")
    kept: list[Any] = []
    taught: dict[str, str] = {}
    for directory in directories:
        episodes, specs = _split_episodes(directory, specs, split)
        for episode in episodes:
            if taught.setdefault(episode.task_id, str(directory)) == str(directory):
                kept.append(episode)
    return kept, taught, specs or {}


def _split_episodes(results_dir: str | Path, specs: dict[str, Any] | None, split: str
                    ) -> tuple[list[Any], dict[str, Any]]:
    """A collection's episodes that pass the task filter, refusing any of a task outside the suite's ``split``
    (training data from the train split, validation data from the val split: never the held-out test split)."""
    from consoleagent.training.explore import explored_tasks
    from consoleagent.training.filters import ground_truth, load_ledger, task_filter

    episodes = load_ledger(results_dir)
    if specs is None:
        from consoleagent.suite.catalog import shipped_tasks

        specs = shipped_tasks()
    specs = {**specs, **explored_tasks(results_dir)}  # a self-exploration collection's own tasks (explore.jsonl)
    unknown = sorted({e.task_id for e in episodes if e.task_id not in specs})
    if unknown:
        raise ValueError(f"{results_dir}: episodes of tasks the suite does not have: {', '.join(unknown[:5])}")
    other = sorted({e.task_id for e in episodes if getattr(specs[e.task_id], "split", "train") != split})
    if other:
        raise ValueError(f"{results_dir}: holds episodes of tasks outside the {split} split ({', '.join(other[:5])}): "
                         f"collect with --tasks split={split}, so that held-out tasks never reach training or "
                         "validation")
    truth = ground_truth({e.task_id: specs[e.task_id] for e in episodes})
    kept, _ = task_filter(episodes, truth)
    return kept, specs


@dataclass
class ReplayedStep:
    """One parsed step of a recorded episode, rebuilt as the ranker saw it."""

    number: int
    record: dict[str, Any]
    goal: str
    document: list[str]
    context: Any  # the episode's EpisodeContext (goal and document, encoded once)
    observation: Observation
    candidates: list[Any]
    index: int | None  # the recorded action among the candidates; None when no candidate is it
    action: Any  # the recorded action, parsed
    history: list[str]  # the texts of the actions before this one
    proposal: str | None = None  # what the documentation follower, run alongside, would have done here


def replayed_steps(episode: Any, spec: Any, steps: list[Any], read_unmarked: bool = False) -> Iterator[ReplayedStep]:
    """Every parsed step of an episode with its observation, candidates and history: what SFT examples,
    the prefilter's recall and the encoder benchmarks all read from a collection (``read_unmarked``: as the
    head to be trained reads documents, ``policies.ranker.build_head``)."""
    from consoleagent.actions.parser import parse_action
    from consoleagent.policies.candidates import build_candidates, match_action, with_proposal
    from consoleagent.policies.follower_shadow import FollowerShadow
    from consoleagent.policies.ranker_features import EpisodeContext

    header_task = _header_task(episode.trajectory)
    goal, document = header_task.get("goal", spec.goal), list(header_task.get("document") or [])
    context = EpisodeContext.build(goal, document, read_unmarked)
    shadow = FollowerShadow()
    shadow.reset(goal, document)
    history: list[str] = []
    for item in steps:
        record = item.record
        if record.get("parsed") is None:
            continue
        observation = observation_from_record(record, goal, document, header_task)  # its referenced pages too
        proposal = shadow.propose(observation)  # every step, kept or not: the follower lives the episode too
        candidates, _ = with_proposal(build_candidates(observation, read_unmarked=read_unmarked), observation, proposal)
        action = parse_action(record["action"])
        index = match_action(candidates, action)
        yield ReplayedStep(item.number, record, goal, document, context, observation, candidates, index, action,
                           list(history), proposal)
        history.append(candidates[index].text if index is not None else action.name.replace("_", " "))


def episode_examples(episode: Any, spec: Any, wanted: set[int], encoder: Any,
                     steps: list[Any], read_unmarked: bool = False) -> tuple[list[RankerExample], dict[str, int]]:
    """The examples of one episode's kept steps (``wanted``), history rebuilt from all its steps."""
    from consoleagent.policies.ranker_features import features

    examples: list[RankerExample] = []
    counts: Counter[str] = Counter()
    for step in replayed_steps(episode, spec, steps, read_unmarked):
        if int(step.record["step"]) not in wanted:
            continue
        if step.index is None:
            counts[f"unmatched {step.action.name}"] += 1
            continue
        rows = features(encoder, step.context, step.observation, step.candidates, step.history[-12:], len(step.history),
                        proposal=step.proposal)
        examples.append(RankerExample(episode.task_id, _document_of(spec), int(step.record["step"]), rows, step.index,
                                      step.record["action"]))
        counts["examples"] += 1
    return examples, dict(counts)


def _header_task(trajectory: Path | None) -> dict[str, Any]:
    from consoleagent.trajectory.reader import read_trajectory

    return dict(read_trajectory(trajectory).header.get("task") or {}) if trajectory else {}
