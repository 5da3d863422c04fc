"""The documents a page refers its reader to ("For more information, see Attach a data disk."), read from real
files: by title, not by file name, never the page itself, never a title no document has."""

from __future__ import annotations

from pathlib import Path

from consoleagent.documents.references import references, titles
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.tasks.spec import load_task_file


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def _one_step_pages(root: Path, pages: list[tuple[str, str]]) -> None:
    """Pages of one step each ("Click **<the title's verb>**."), by file name and title; the title cache is
    cleared so that ``references`` sees them."""
    for name, title in pages:
        _write(root, name, f"# {title}\n\n## Procedure\n\n1. Click **{title.split()[0]}**.\n")
    titles.cache_clear()


def test_a_see_sentence_names_another_documents_procedure_by_its_title(tmp_path: Path) -> None:
    """The title may wrap onto the next line of its paragraph (vpc/allocate-eip.md: "see Associate an\\nEIP with
    an ECS instance.")."""
    create = _write(tmp_path, "create.md", "# Create a widget\n\n## Procedure\n\n1. Click **Create**.\n2. Click **OK**.\n\n"
                    "## What to do next\n\nAttach the widget. For more information, see Attach a\nwidget.\n"
                    "Delete it later; see Remove a gadget. To start over, see Create a widget.\n")
    _write(tmp_path, "attach-a-thing.md", "# Attach a widget\n\n## Procedure\n\n1. Find the widget and click **Attach**.\n"
           "2. Select the **Host** and click **OK**.\n")
    _write(tmp_path, "notes.md", "# Widget notes\n\nNo procedure here.\n")
    titles.cache_clear()
    assert references(create, tmp_path).procedures == {"Attach a widget": [
        "Find the widget and click **Attach**.", "Select the **Host** and click **OK**."]}  # not itself, not the unknown
    (tmp_path / "more").mkdir()
    _write(tmp_path / "more", "remove.md", "# Remove a gadget\n\n## Procedure\n\n1. Click **Remove**.\n")
    titles.cache_clear()
    assert list(references(create, tmp_path).procedures) == ["Attach a widget", "Remove a gadget"]
    assert list(references(create).procedures) == ["Attach a widget"]  # a lone file: its folder, not subfolders


def test_a_suite_task_carries_the_procedures_its_document_refers_to() -> None:
    spec = load_task_file(DOCUMENTS_ROOT.parent / "tasks" / "ecs" / "ecs-disk-create-03.yaml").spec
    task = spec.to_task(DOCUMENTS_ROOT)
    assert list(task.related) == ["Attach a data disk"]
    assert any("**Attach**" in step for step in task.related["Attach a data disk"])
    assert spec.to_task(None).related == {}  # without the documents, no references either


def test_a_title_cited_with_words_left_out_names_the_one_title_that_has_them_in_order(tmp_path: Path) -> None:
    """vpc/associate-route-table.md cites "Unassociate a route table from a vSwitch"; the page is titled *Unassociate
    a custom route table from a vSwitch*. Two titles that would both do, or a two-word citation, name none."""
    cite = _write(tmp_path, "cite.md", "# Bind a widget\n\n## Procedure\n\n1. Click **Bind**.\n\n## What to do next\n\n"
                  "To undo it, see Unbind a widget from a host. To tidy up, see Remove widget. See Paint a widget.\n")
    _write(tmp_path, "unbind.md", "# Unbind a custom widget from a host\n\n## Procedure\n\n1. Click **Unbind**.\n")
    _write(tmp_path, "remove.md", "# Remove a widget\n\n## Procedure\n\n1. Click **Remove**.\n")
    _write(tmp_path, "paint-red.md", "# Paint a red widget\n\n## Procedure\n\n1. Click **Red**.\n")
    _write(tmp_path, "paint-blue.md", "# Paint a blue widget\n\n## Procedure\n\n1. Click **Blue**.\n")
    titles.cache_clear()
    assert list(references(cite, tmp_path).procedures) == ["Unbind a widget from a host"]
    task = load_task_file(DOCUMENTS_ROOT.parent / "tasks" / "vpc" / "vpc-associate-route-table-03.yaml").spec.to_task(DOCUMENTS_ROOT)
    assert list(task.related) == ["Unassociate a route table from a vSwitch"]
    assert any("**Unassociate**" in step for step in task.related["Unassociate a route table from a vSwitch"])


def test_a_page_cited_as_another_way_is_an_alternative(tmp_path: Path) -> None:
    """sg-quick-add-rule.md: "To allow only some addresses, add the rule with the rule form instead. For more
    information, see Add an inbound security group rule." The page is cited as another way to do the document's
    operation; a page cited for what comes next is not, nor one after a paragraph that said "instead"."""
    quick = _write(tmp_path, "quick.md", "# Open a port quickly\n\n## Prerequisites\n\n- A group exists. For more "
                   "information, see Create a group.\n- To allow only some addresses, add the rule with the\n  rule form "
                   "instead. For more information, see Add a rule.\n\n## Procedure\n\n1. Click **Quick Add**.\n\n"
                   "## What to do next\n\nFor more information, see Modify a rule.\n")
    _one_step_pages(tmp_path, [("create.md", "Create a group"), ("add.md", "Add a rule"), ("modify.md", "Modify a rule")])
    found = references(quick, tmp_path)
    assert list(found.procedures) == ["Create a group", "Add a rule", "Modify a rule"]
    assert found.alternatives == ["Add a rule"]
    task = load_task_file(DOCUMENTS_ROOT.parent / "tasks" / "ecs" / "ecs-sg-quick-add-03.yaml").spec.to_task(DOCUMENTS_ROOT)
    assert task.alternatives[0] == "Add an inbound security group rule" and task.to_dict()["alternatives"] == task.alternatives


def test_the_operations_a_what_to_do_next_section_names_without_citing_them_are_referred_to(tmp_path: Path) -> None:
    """vpc/create-nat-gateway.md ends "Associate an EIP with the NAT gateway and add a route entry that points to
    it." and cites no page; a reader whose goal goes on looks both up by title. A clause names a title when it has
    all of the title's words, or all but one that is not its verb: "add a route entry" is *Add a custom route
    entry*, never *Delete a custom route entry*; two titles that do equally well are named by neither."""
    nat = _write(tmp_path, "nat.md", "# Create a gateway\n\n## Procedure\n\n1. Click **Create**.\n\n## What to do next\n\n"
                 "Associate an address with the gateway and add a route entry that points\nto it, or paint it.\n\n"
                 "## See also\n\nAttach a disk.\n")
    rst = _write(tmp_path, "nat.rst", "Create a gateway\n================\n\n1. Click *Create*.\n\nWhat to do next\n"
                 "---------------\n\nAdd a route entry to the gateway.\n\nNotes\n-----\n\nAttach a disk.\n")
    _one_step_pages(tmp_path, [("associate.md", "Associate an address with a gateway"), ("add.md", "Add a custom route entry"),
                               ("delete.md", "Delete a custom route entry"), ("attach.md", "Attach a disk"),
                               ("red.md", "Paint a red gateway"), ("blue.md", "Paint a blue gateway")])
    assert list(references(nat, tmp_path).procedures) == ["Associate an address with a gateway", "Add a custom route entry"]
    assert list(references(rst, tmp_path).procedures) == ["Add a custom route entry"]  # not the next section's
    task = load_task_file(DOCUMENTS_ROOT.parent / "tasks" / "vpc" / "vpc-create-nat-gateway-02.yaml").spec.to_task(DOCUMENTS_ROOT)
    assert list(task.related) == ["Associate an EIP with a NAT gateway", "Add a custom route entry"]


def test_the_other_way_a_page_covers_has_the_cited_forms_counterpart_as_its_alternative(tmp_path: Path) -> None:
    """sg-quick-add-rule.md covers both directions ("click the **Inbound** tab, or the **Outbound** tab for an
    outbound rule") but cites only *Add an inbound security group rule* as the other way: for an outbound goal
    (ecs-sg-quick-add-05, training split) the follower had no page to go on with. The page with the opposite word
    is an alternative too, when the document uses that word; never a page the document has no word for."""
    quick = _write(tmp_path, "quick.md", "# Open a port quickly\n\n## Prerequisites\n\n- To allow only some addresses, "
                   "add the rule with the rule form instead. For more information, see Add an inbound rule.\n\n"
                   "## Procedure\n\n1. Click the **Inbound** tab, or the **Outbound** tab for an outbound rule.\n"
                   "2. Click **Quick Add**.\n")
    _one_step_pages(tmp_path, [("in.md", "Add an inbound rule"), ("out.md", "Add an outbound rule"),
                               ("del.md", "Delete an inbound rule")])
    found = references(quick, tmp_path)
    assert found.alternatives == ["Add an inbound rule", "Add an outbound rule"]  # not Delete: the page never says it
    assert found.procedures["Add an outbound rule"] == ["Click **Add**."]
    task = load_task_file(DOCUMENTS_ROOT.parent / "tasks" / "ecs" / "ecs-sg-quick-add-05.yaml").spec.to_task(DOCUMENTS_ROOT)
    assert task.alternatives == ["Add an inbound security group rule", "Add an outbound security group rule"]
