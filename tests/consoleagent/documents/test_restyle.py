"""A procedure's steps rewritten without markup (``documents.restyle``), checked on a suite document's own steps."""

from __future__ import annotations

import pytest

from consoleagent.documents import load_document
from consoleagent.documents.restyle import AS_WRITTEN, STYLES, UnknownStyle, restyle
from consoleagent.suite import DOCUMENTS_ROOT

ROUTE_TABLE = DOCUMENTS_ROOT / "stratus" / "vpc" / "create-route-table.md"


def test_plain_drops_the_markup_around_labels_and_values_and_keeps_every_word() -> None:
    steps = ["In the left-side navigation pane, choose **VPC** > **Route tables**.",
             "In the **Name** field, enter `doc-rt-01`, then click __OK__.",
             "Select *Custom* (not *System*): 2 * 3 = 6 stays as it is."]
    assert restyle(steps, "plain") == [
        "In the left-side navigation pane, choose VPC > Route tables.",  # the menu path stays
        "In the Name field, enter doc-rt-01, then click OK.",
        "Select Custom (not System): 2 * 3 = 6 stays as it is."]


def test_plain_rewrites_a_suite_documents_steps_and_tables_and_keeps_their_number() -> None:
    steps = load_document(ROUTE_TABLE).procedures[0].step_texts()
    plain = restyle(steps, "plain")
    assert len(plain) == len(steps)
    assert any("**" in step for step in steps) and not any("**" in step or "`" in step for step in plain)
    assert "| VPC | The VPC to which the route table belongs. | doc-vpc-01 (192.168.0.0/16) |" in plain[4]
    assert plain[5] == "Click OK."


def test_as_written_is_a_copy_and_an_unknown_style_names_the_known_ones() -> None:
    steps = ["Click **OK**."]
    copy = restyle(steps, AS_WRITTEN)
    assert copy == steps and copy is not steps
    with pytest.raises(UnknownStyle, match="'bold'.*as_written, plain"):
        restyle(steps, "bold")
    assert STYLES == ("as_written", "plain")
