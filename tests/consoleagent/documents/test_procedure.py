"""The Markdown procedure parser on the VPC fixture document and on the untidy and broken
Markdown that real documentation contains."""

from __future__ import annotations

from tests import FIXTURES

import pytest

from consoleagent.documents import ProcedureError, load_procedure, parse_procedure
from consoleagent.documents.procedure import is_separator_row, parse_pipe_table

DOCS = FIXTURES / "docs"


def test_create_vpc_fixture() -> None:
    proc = load_procedure(str(DOCS / "create_vpc.md"))
    assert proc.title == "Create a VPC"
    assert proc.context.startswith("A virtual private cloud (VPC) is a private network")
    assert proc.prerequisites == ["You have an account and can log on to the console.",
                                  "The VPC quota of the region is not used up. Each region allows 10 VPCs by default."]
    assert [s.number for s in proc.steps] == [1, 2, 3, 4, 5, 6, 7]
    assert proc.steps[1].text == "In the left-side navigation pane, click **VPCs**."
    assert proc.steps[1].ui_labels == ["VPCs"]
    assert proc.steps[3].ui_labels == ["Create VPC"]
    assert proc.steps[3].line == 19
    params = proc.steps[4]
    assert params.fields == [("Name", "doc-vpc-01"), ("IPv4 CIDR block", "192.168.0.0/16"),
                             ("Description", "Created from the documentation")]
    assert params.ui_labels == ["Name", "IPv4 CIDR block", "Description"]
    assert params.notes and params.notes[0].startswith("Note: After the VPC is created")
    assert proc.steps[6].text == "Wait until the status of the VPC changes to **Available**."
    assert "**Creating** to **Available**" in proc.result


def test_step_texts_carry_tables_and_notes() -> None:
    texts = load_procedure(str(DOCS / "create_vpc.md")).step_texts()
    assert len(texts) == 7
    assert texts[0] == "Log on to the VPC console."
    lines = texts[4].split("\n")
    assert lines[0] == "On the Create VPC page, configure the parameters in the VPC section."
    assert lines[1] == "| Parameter | Description | Example |"
    assert lines[3].startswith("| **Name** |") and lines[3].endswith("| doc-vpc-01 |")
    assert lines[-1].startswith("> Note: After the VPC is created")


def test_paren_numbers_nested_substeps_navigation_and_sentence_fields() -> None:
    doc = """---
title: Create an instance
---
# Create an instance

Intro text.

## Procedure

1) In the left-side navigation pane, choose **Instances & Images** > **Instances**.
2) Click **Create Instance**.
3) Configure the network:
   1. Select **vpc-main** from the **VPC** drop-down list.
   2. In the **Instance Name** field, enter **web-01**.
   3. Enter **8** in the **Count** field and set **Billing Method** to **Pay-as-you-go**.
4) Select the **I have read and agree to the terms** check box, and click **Create**.
"""
    proc = parse_procedure(doc, source="instance.md")
    assert proc.title == "Create an instance" and proc.context == "Intro text."
    assert [s.number for s in proc.steps] == [1, 2, 3, 4]
    assert proc.steps[0].line == 10  # front matter kept the line numbers
    assert proc.steps[0].navigation == [["Instances & Images", "Instances"]]
    sub = proc.steps[2].substeps
    assert [s.number for s in sub] == [1, 2, 3]
    assert sub[0].fields == [("VPC", "vpc-main")]
    assert sub[1].fields == [("Instance Name", "web-01")]
    assert sub[2].fields == [("Count", "8"), ("Billing Method", "Pay-as-you-go")]
    assert proc.step_texts()[2].split("\n")[1] == "a. Select **vpc-main** from the **VPC** drop-down list."
    assert proc.steps[3].ui_labels == ["I have read and agree to the terms", "Create"]


def test_list_broken_by_unindented_table_and_note() -> None:
    doc = """# Allocate an EIP

## Procedure

1. Click **Allocate EIP**.
2. Configure the parameters.

| Parameter | Value |
|---|---|
| **Bandwidth** | `5` |
| **Name** | - |

> **Note:** Billing starts now.

3. Click **OK**.
"""
    proc = parse_procedure(doc)
    assert [s.text for s in proc.steps] == ["Click **Allocate EIP**.", "Configure the parameters.", "Click **OK**."]
    assert proc.steps[1].fields == [("Bandwidth", "5")]  # "-" means no value
    assert proc.steps[1].notes == ["Note: Billing starts now."]


def test_steps_grouped_under_subheadings() -> None:
    doc = "# T\n\n## Procedure\n\n### Step 1: open\n\n1. Click **A**.\n\n### Step 2: save\n\n1. Click **B**.\n"
    assert [s.text for s in parse_procedure(doc).steps] == ["Click **A**.", "Click **B**."]


def test_no_procedure_section_names_source_and_line() -> None:
    with pytest.raises(ProcedureError) as err:
        parse_procedure("# Title\n\nText.\n\n## Prerequisites\n\n- none\n", source="bad.md")
    assert str(err.value).startswith("bad.md:5: no 'Procedure' section")
    assert err.value.line == 5 and err.value.source == "bad.md"


def test_procedure_without_numbered_steps() -> None:
    with pytest.raises(ProcedureError, match=r"^bad\.md:3: the 'Procedure' section has no numbered steps"):
        parse_procedure("# Title\n\n## Procedure\n\n- Click **A**.\n- Click **B**.\n", source="bad.md")


def test_empty_document() -> None:
    with pytest.raises(ProcedureError, match=r"^<doc>:1: no 'Procedure' section \(section headings found: none\)"):
        parse_procedure("")


@pytest.mark.parametrize(("line", "rule"), [("| --- | --- |", True), ("|-|:-:|", True), ("  | :--- | ---: |  ", True),
                                            ("| - |  |", True), ("| | |", False), ("| Name | --- |", False),
                                            ("--- | ---", False), ("| a \\| b | c |", False)])
def test_a_table_rule_is_dashes_and_colons_between_pipes(line: str, rule: bool) -> None:
    """The readers of pipe tables (the step parser, the doc follower's ``documented``, the ranker's parameter rows)
    all ask ``is_separator_row``; until session 60 each had its own pattern, and they disagreed on ``| | |``."""
    assert is_separator_row(line) is rule


def test_a_pipe_table_leaves_out_its_rule_and_empty_rows_and_keeps_escaped_pipes() -> None:
    table = parse_pipe_table(["| Parameter | Example |", "|:-|-:|", "| | |", "| Filter | a \\| b |"])
    assert table is not None and table.header == ["Parameter", "Example"] and table.rows == [["Filter", "a | b"]]
    assert parse_pipe_table(["| Parameter | Example |", "| --- | --- |"]) is None  # a header alone is no table
