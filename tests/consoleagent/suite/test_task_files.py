"""Task files, families, selectors and the suite-wide checks: clear errors that name the file, the
line and the field; generated files that match their families; splits disjoint by document; every
documented change covered by a task."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from consoleagent.suite import DOCUMENTS_ROOT, FAMILIES_ROOT, TASKS_ROOT
from consoleagent.suite.catalog import SelectorError, load_all, load_suite, select
from consoleagent.suite.families import generate
from consoleagent.suite.validation import load_documents, suite_problems
from consoleagent.tasks.oracle_steps import OracleStepError, parse_oracle_steps
from consoleagent.tasks.spec import TaskFileError, load_task_file

VALID = """\
id: vpc-demo-01
product: vpc
difficulty: standard
split: train
document: stratus/vpc/create-vpc.md
release: "2026.03"
goal: Create a VPC named demo with the CIDR block 10.0.0.0/16.
reward:
  expect:
    - event: CreateVpc
      params: {VpcName: demo}
oracle:
  - goto: /vpc/vpcs
  - task_complete: done
"""


def write_task(tmp_path: Path, text: str, name: str = "vpc-demo-01") -> Path:
    path = tmp_path / "tasks" / "vpc" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str, name: str = "vpc-demo-01") -> str:
    with pytest.raises(TaskFileError) as caught:
        load_task_file(write_task(tmp_path, text, name))
    return str(caught.value)


def test_a_valid_task_loads(tmp_path: Path) -> None:
    loaded = load_task_file(write_task(tmp_path, VALID))
    assert loaded.spec.id == "vpc-demo-01" and loaded.spec.reward.expect[0].event == "CreateVpc"
    task = loaded.spec.to_task(DOCUMENTS_ROOT)
    assert task.document and "Create VPC" in " ".join(task.document) and task.release == "2026.03"
    assert task.reward == loaded.spec.reward and task.spec is loaded.spec  # what RuleJudge and the oracle read


@pytest.mark.parametrize(("edit", "expected"), [
    (("difficulty: standard", "difficulty: medium"), ":3: difficulty: Input should be 'standard' or 'hard'"),
    (("goal: Create", "gaol: Create"), ":7: gaol: unknown field"),
    (("      params: {VpcName: demo}", "      params: {VpcName: {equal: demo}}"),
     ":11: reward.expect[0].params.VpcName: unknown constraint key(s) equal"),
    (("  - goto: /vpc/vpcs", "  - click: {role: button}"), ":13: oracle: oracle[0].click: a target is"),
    (("difficulty: standard", "difficulty: hard"), "hard_kinds: a hard task names why it is hard"),
    (("split: train", "split: train\nrequires: [{name: a, templat: vpc}]"), "requires: requires[0]: unknown field 'templat'"),
])
def test_errors_name_file_line_and_field(tmp_path: Path, edit: tuple[str, str], expected: str) -> None:
    message = error_of(tmp_path, VALID.replace(*edit))
    assert message.startswith(str(tmp_path / "tasks" / "vpc" / "vpc-demo-01.yaml")), message
    assert expected in message, message


def test_requires_plan_against_the_console_templates_as_the_suite_loads(tmp_path: Path) -> None:
    """The file's schema holds, but its requires: name a template the console lacks: every loader of a
    suite (load_all, behind load_suite, tasks validate, bench) refuses it, naming file, line and entry."""
    path = write_task(tmp_path, VALID.replace("split: train", "split: train\nrequires: [{name: a, template: nosuch}]"))
    assert load_task_file(path).spec.requires  # the shape alone is fine
    with pytest.raises(TaskFileError) as caught:
        load_all(tmp_path / "tasks")
    assert str(caught.value).startswith(f"{path}:5: requires: requires[0] ('a', template 'nosuch')"), caught.value


def test_id_must_match_the_file_name_and_yaml_errors_have_lines(tmp_path: Path) -> None:
    assert "id: 'vpc-demo-01' must equal the file name 'other-name'" in error_of(tmp_path, VALID, name="other-name")
    assert ":3: not valid YAML" in error_of(tmp_path, "id: x\nproduct: [\n  : :\n")
    assert "a task file is a mapping" in error_of(tmp_path, "- just a list\n")


def test_impossible_tasks_expect_unachievable(tmp_path: Path) -> None:
    text = VALID.replace("difficulty: standard", "difficulty: hard\nhard_kinds: [impossible]")
    assert "an 'impossible' task expects 'unachievable'" in error_of(tmp_path, text)
    text = text.replace("reward:\n  expect:\n    - event: CreateVpc\n      params: {VpcName: demo}",
                        "expected: unachievable\nreward: {outcome: unachievable, require_discrepancy: true}")
    assert load_task_file(write_task(tmp_path, text)).spec.expected == "unachievable"


def test_oracle_step_syntax() -> None:
    steps = parse_oracle_steps([{"click": {"role": "button", "name": "OK", "context": "row"}},
                                {"type": {"role": "textbox", "name": "Name"}, "text": "web"},
                                {"wait_until": {"text": "Running", "context": "i-1"}, "timeout_s": 30},
                                {"report_discrepancy": {"step": 2, "kind": "label_changed", "expected": "a", "observed": "b"}},
                                {"task_unachievable": "gone"}])
    assert [s.kind for s in steps] == ["click", "type", "wait_until", "report_discrepancy", "task_unachievable"]
    assert steps[1].value == "web" and steps[2].until_text == "Running" and steps[2].timeout_s == 30
    for bad, message in [([{"type": {"role": "textbox", "name": "N"}}], "needs 'text:'"),
                         ([{"click": {"role": "button", "name": "OK"}, "goto": "/"}], "exactly one of"),
                         ([{"report_discrepancy": {"step": 1, "kind": "typo", "expected": "", "observed": ""}}], "is not one of"),
                         ([{"wait_until": {"text": "x", "absent": "y"}}], "'text:' (appears) or 'absent:'"),
                         ([], "non-empty list")]:
        with pytest.raises(OracleStepError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_oracle_steps(bad)


def test_selectors() -> None:
    specs = [item.spec for item in load_all()]
    assert specs, "the suite has tasks"
    vpc = select(specs, "product=vpc")
    assert vpc and all(s.product == "vpc" for s in vpc)
    both = select(specs, "product=vpc|ecs difficulty=hard")
    assert all(s.difficulty == "hard" for s in both)
    assert [s.id for s in select(specs, "vpc-create-vpc-0[12]")] == ["vpc-create-vpc-01", "vpc-create-vpc-02"]
    with pytest.raises(SelectorError, match="unknown field 'colour'"):
        load_suite("colour=red")
    with pytest.raises(SelectorError, match="selects none"):
        load_suite("no-such-task-*")


def test_generated_task_files_match_their_families() -> None:
    assert generate(FAMILIES_ROOT, TASKS_ROOT, check=True) == []


def test_generate_writes_updates_and_removes(tmp_path: Path) -> None:
    families, tasks = tmp_path / "families", tmp_path / "tasks"
    family = families / "vpc" / "create-vpc.yaml"
    family.parent.mkdir(parents=True)
    shutil.copy(FAMILIES_ROOT / "vpc" / "create-vpc.yaml", family)
    created = generate(families, tasks)
    assert created and all(c.startswith("create ") for c in created)
    assert generate(families, tasks, check=True) == []
    data = yaml.safe_load(family.read_text())
    data["variants"] = data["variants"][:1]
    family.write_text(yaml.safe_dump(data, sort_keys=False))
    removed = generate(families, tasks)
    assert removed and all(c.startswith("remove ") for c in removed) and len(list(tasks.rglob("*.yaml"))) == 1
    data["template"] = data["template"].replace("{{ name }}", "{{ nmae }}", 1)
    family.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(TaskFileError, match=r"variants\[0\] \(vpc-create-vpc-01\): 'nmae' is undefined"):
        generate(families, tasks)


def test_the_shipped_suite_is_consistent() -> None:
    """Documents parse and carry front matter; discrepancies name real changes at real steps; splits are
    disjoint by document; every change on a documented page is expected by some task."""
    assert suite_problems() == []


def test_suite_checks_catch_split_leaks_and_uncovered_changes(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    write_task(tmp_path, VALID)
    write_task(tmp_path, VALID.replace("vpc-demo-01", "vpc-demo-02").replace("split: train", "split: test"), "vpc-demo-02")
    problems = "\n".join(suite_problems(tasks))
    assert "vpc-demo-01 puts the same document in 'train'" in problems
    assert "changelog vpc-2026.09-create-vpc-label" in problems and "no task expects it" in problems
    drifted = VALID.replace('release: "2026.03"', 'release: "2026.09"')
    write_task(tmp_path, drifted.replace("split: train", "split: train\ndiscrepancies: [{change: nope, step: 99}]"))
    problems = "\n".join(suite_problems(tasks))
    assert "discrepancies[0].change: no changelog entry 'nope'" in problems


def test_documents_carry_front_matter_and_parse() -> None:
    documents, problems = load_documents()
    assert problems == [] and documents
    for key, document in documents.items():
        assert document.release == "2026.03" and document.pages, key
        assert document.product in key.split("/"), key
