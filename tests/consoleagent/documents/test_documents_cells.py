"""Parameter-table cells are read as what they ask for: a literal, an example, "leave empty", the
console's default, no value, or an instruction to interpret; a number with a unit keeps its unit."""

from __future__ import annotations

import pytest

from consoleagent.documents import Table
from consoleagent.documents.cells import interpret_cell, table_fields, table_parameters


@pytest.mark.parametrize(("cell", "example", "kind", "text"), [
    ("`5`", False, "literal", "5"),
    ("Select **Pay-as-you-go**.", False, "literal", "Pay-as-you-go"),
    ("doc-vpc-01 (192.168.0.0/16)", False, "literal", "doc-vpc-01 (192.168.0.0/16)"),
    ("doc-web-01", True, "example", "doc-web-01"),
    ("for example `web-01`", False, "example", "web-01"),
    ("Enter a name. For example, **sg-app-01**.", False, "example", "sg-app-01"),
    ("Leave this field empty.", False, "empty", "Leave this field empty."),
    ("None (use a CIDR block)", True, "empty", "None (use a CIDR block)"),
    ("Do not select a key pair.", False, "empty", "Do not select a key pair."),
    ("-", False, "unspecified", "-"),
    ("N/A", True, "unspecified", "N/A"),
    ("Keep the default value.", False, "default", ""),
    ("Default: 5 Mbps", False, "default", "5 Mbps"),
    ("Select the security group of the application servers.", False, "instruction",
     "Select the security group of the application servers."),
    ("the VPC you created earlier", False, "instruction", "the VPC you created earlier"),
])
def test_a_cell_is_read_as_what_it_asks_for(cell: str, example: bool, kind: str, text: str) -> None:
    value = interpret_cell(cell, example)
    assert (value.kind, value.text) == (kind, text)


def test_units_are_kept_apart_from_the_amount() -> None:
    value = interpret_cell("5 Mbps")
    assert (value.kind, value.text, value.amount, value.unit, value.bare) == ("literal", "5 Mbps", "5", "Mbps", "5")
    months = interpret_cell("3 Months", example=True)
    assert (months.text, months.bare, months.unit) == ("3 Months", "3", "Months")  # an option is selected as written
    assert interpret_cell("Zone H (cn-hangzhou-h)").unit is None


def test_instruction_cells_name_their_options() -> None:
    value = interpret_cell("Select **Allow** or **Deny**.")
    assert value.kind == "instruction" and value.options == ["Allow", "Deny"] and not value.typed


def test_a_table_without_a_value_column_takes_instructions_from_the_description() -> None:
    table = Table(["Parameter", "Description"], [
        ["**Name**", "Optional. The name of the EIP."],
        ["**Peak bandwidth**", "Enter **5**."],
        ["**Security group**", "Select the security group of the application servers."],
        ["**Description**", "Leave this field empty."],
    ])
    specs = table_parameters(table)
    assert [(s.label, s.value.kind if s.value else None, s.required) for s in specs] == [
        ("Name", None, False), ("Peak bandwidth", "literal", None), ("Security group", "instruction", None),
        ("Description", "empty", None)]
    assert table_fields(table) == [("Peak bandwidth", "5")]


def test_a_required_column_and_an_example_column() -> None:
    table = Table(["Parameter", "Required", "Example"], [["Name", "Yes", "web-01"], ["Tag", "No", "-"]])
    specs = table_parameters(table)
    assert [(s.label, s.required, s.value.kind) for s in specs] == [  # type: ignore[union-attr]
        ("Name", True, "example"), ("Tag", False, "unspecified")]
    assert table_fields(table) == [("Name", "web-01")]


def test_a_switch_rows_description_names_the_fields_it_shows_with_their_unit() -> None:
    """"Select it to assign a public IP address, and set the **Peak Bandwidth** in Mbps": turning the switch on
    shows **Peak Bandwidth**, whose value the goal gives in Mbps; other bold words of a description are no fields."""
    from consoleagent.documents.instructions import instructions_from, revealed_fields
    step = ("Configure the network.\n| Parameter | Description | Example |\n| --- | --- | --- |\n"
            "| **Assign Public IPv4 Address** | Select it to assign a public IP address, and set the **Peak Bandwidth** "
            "in Mbps. | Cleared |\n| **Image** | **Public Image** or **Custom Image**. | Public Image |")
    switch, image = instructions_from(step)
    assert [(f.kind, f.target, f.value, f.unit) for f in switch.reveals] == [("fill", "Peak Bandwidth", "", "Mbps")]
    assert image.reveals == []
    assert [(f.target, f.unit) for f in revealed_fields("Then enter the **Tag Value**.")] == [("Tag Value", None)]
