"""Single-step chat samples: the one format shared by SFT and RL (docs/formats.md, "Training samples").

A sample is one step of a trajectory in TRL's conversational prompt-completion form: the prompt is
the system prompt and the observation text the policy saw at that step (``Observation.render()``:
goal, document, current document step, previous actions, last error, page), the completion is the
ReAct answer (``Thought / Step / Action``) that ``parse_react`` reads back. ``messages_for`` builds
the prompt messages for both training and acting (``HFPolicy`` calls it), so the two never drift.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from consoleagent.policies.prompts import (  # the acting policy's chat prompt and answer format, shared with the samples
    completion_text,
    messages_for,
    teacher_thought,
)

SAMPLE_KEYS = ("id", "task_id", "trajectory", "step", "document_step", "reward", "prompt", "completion", "action")
_RUN_IN_NAME = re.compile(r"-run(\d+)$")


class SampleFormatError(ValueError):
    """A samples file line that is not a sample; the message names the file, line and field."""


def shared_system_prompt(samples: Iterable[dict[str, Any]]) -> str | None:
    """The system message every sample shares (None when they differ or there are none)."""
    systems = {sample["prompt"][0]["content"] for sample in samples}
    return systems.pop() if len(systems) == 1 else None


def make_sample(*, task_id: str, trajectory: str, run: int, record: dict[str, Any], reward: float,
                system: str | None = None) -> dict[str, Any]:
    """One trajectory step record (``StepRecord.to_dict()``) as a sample (``system``: the system
    message, the full prompt when None)."""
    step = int(record["step"])
    document_step = record.get("document_step")
    return {
        "id": f"{task_id}-r{run}-s{step}", "task_id": task_id, "trajectory": trajectory, "step": step,
        "document_step": document_step, "reward": float(reward),
        "prompt": messages_for(record["observation"], system),
        "completion": [{"role": "assistant", "content": completion_text(teacher_thought(record), record["action"],
                                                                        document_step)}],
        "action": record["action"],
    }


def run_index(path: Path) -> int:
    """The run number in a harness trajectory name (``<task>-run<i>.jsonl``), else 0."""
    match = _RUN_IN_NAME.search(path.stem)
    return int(match.group(1)) if match else 0


def samples_from_trajectory(path: str | Path, reward: float = 1.0, *, steps: Iterable[int] | None = None,
                            run: int | None = None, task_id: str | None = None,
                            system: str | None = None) -> list[dict[str, Any]]:
    """Every step of a trajectory file as a sample (only the step numbers in ``steps`` when given).

    Steps whose action did not parse are skipped: a completion must read back to its action."""
    from consoleagent.trajectory.reader import read_trajectory

    trajectory = read_trajectory(path)
    wanted = set(steps) if steps is not None else None
    task = task_id or str(trajectory.header.get("task", {}).get("id") or Path(path).stem)
    number = run_index(Path(path)) if run is None else run
    return [make_sample(task_id=task, trajectory=str(path), run=number, record=record, reward=reward, system=system)
            for record in trajectory.steps
            if (wanted is None or record["step"] in wanted) and record.get("action") and record.get("parsed") is not None]


def write_samples(samples: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write samples as JSONL (one per line); returns how many were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for sample in samples:
            handle.write(json.dumps(sample, ensure_ascii=False) + "\n")
            count += 1
    return count


def load_samples(path: str | Path) -> list[dict[str, Any]]:
    """Read a samples JSONL file, checking every line has the sample's fields."""
    path = Path(path)
    samples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SampleFormatError(f"{path}:{number}: not a JSON line ({exc})") from None
        check_sample(sample, f"{path}:{number}")
        samples.append(sample)
    return samples


def check_sample(sample: Any, where: str) -> None:
    """Raise SampleFormatError naming the first missing or malformed field."""
    if not isinstance(sample, dict):
        raise SampleFormatError(f"{where}: a sample is a JSON object, got {type(sample).__name__}")
    missing = [k for k in SAMPLE_KEYS if k not in sample]
    if missing:
        raise SampleFormatError(f"{where}: missing field(s) {', '.join(missing)}")
    for key, roles in (("prompt", ("system", "user")), ("completion", ("assistant",))):
        messages = sample[key]
        if not isinstance(messages, list) or [m.get("role") if isinstance(m, dict) else None for m in messages] != list(roles):
            raise SampleFormatError(f"{where}: {key}: expected messages with roles {list(roles)}")


def to_dataset(source: str | Path | list[dict[str, Any]]) -> Any:
    """Samples (a JSONL path or a list) as a ``datasets.Dataset`` with the same columns."""
    from datasets import Dataset

    samples = load_samples(source) if isinstance(source, (str, Path)) else list(source)
    return Dataset.from_list(samples)
