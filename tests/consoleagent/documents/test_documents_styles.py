"""Documents in the styles people write them, read into one model: a cloud task topic with a parameter
table (Markdown), a reference page that describes a dialog field by field (reStructuredText), a
tutorial in prose (Markdown) and a task topic saved from a documentation site (HTML): the suite's own
documents in these styles, read where they ship."""

from __future__ import annotations

import pytest

from consoleagent.documents import load_document, load_procedure
from consoleagent.policies.docfollower import instructions_from
from consoleagent.suite import DOCUMENTS_ROOT

SUITE_STYLES = sorted((DOCUMENTS_ROOT / "stratus").glob("*/styles/*"), key=lambda p: p.name)
STYLE = {path.name: path for path in SUITE_STYLES}


def _inputs(step) -> list[tuple[str, str | None, str]]:
    return [(s.label, s.value.kind if s.value else None, s.value.text if s.value else "") for s in step.all_inputs()]


def test_the_suite_ships_documents_in_four_other_styles() -> None:
    assert sorted(p.name for p in SUITE_STYLES) == [
        "alibaba-apply-eip.md", "alibaba-attach-data-disk.md", "alibaba-create-security-group.md", "howto-delete-vswitch.md",
        "html-sphinx-create-vpc.html", "html-stop-instance.html", "kb-release-eip.html", "readme-restart-instance.md",
        "reference-create-security-group-dialog.rst", "reference-create-vswitch-dialog.rst", "runbook-create-key-pair.md",
        "sphinx-guilabel-create-route-table.rst", "tutorial-first-vswitch.md"]


def test_labels_written_as_code_prerequisites_in_a_lead_in_and_a_title_in_an_article_header() -> None:
    """The six documents held out from the follower's tuning: a README writes labels as code spans and its
    requirement in a bold lead-in; a how-to writes a menu path as code; a help-center article keeps its
    title in a header (the page title adds the site's name); a runbook numbers its steps as headings."""
    readme = load_document(STYLE["readme-restart-instance.md"]).procedures[0]
    assert readme.prerequisites == ["a running ECS instance named web-01 exists."]
    assert readme.steps[0].navigation == [["Instances & Images", "Instances"]]
    assert readme.steps[1].text == "In the row of the instance, click **Restart** in the **Actions** column."
    assert readme.steps[2].text == "Confirm with **Confirm** in the dialog."
    assert [(i.kind, i.target) for i in instructions_from(readme.steps[2].text)] == [("click", "Confirm")]
    assert readme.steps[3].text.startswith("Wait for the status to go back to **Running**; `Refresh`")  # not after a verb
    howto = load_document(STYLE["howto-delete-vswitch.md"]).procedures[0]
    assert howto.steps[0].navigation == [["VPC", "vSwitches"]]
    assert howto.steps[1].text == "In the row of `old-vsw`, click **Delete**."  # a name to find, not a label
    article = load_document(STYLE["kb-release-eip.html"])
    assert article.title == "How do I release an EIP that I no longer need?"
    assert article.procedures[0].prerequisites == [
        "An EIP named old-eip exists and is not associated with an instance or a NAT gateway."]
    runbook = load_document(STYLE["runbook-create-key-pair.md"]).procedures[0]
    assert [s.number for s in runbook.steps] == [1, 2, 3] and runbook.steps[0].navigation == [["Network & Security", "Key Pairs"]]
    guilabel = load_document(STYLE["sphinx-guilabel-create-route-table.rst"]).procedures[0]
    assert guilabel.steps[1].navigation == [["VPC", "Route tables"]] and guilabel.steps[2].ui_labels == ["Create route table"]


def test_cloud_task_topic_with_a_parameter_table_of_instructions() -> None:
    document = load_document(STYLE["alibaba-create-security-group.md"])
    assert document.format == "markdown" and document.id == "styles-alibaba-create-security-group"
    procedure = document.procedures[0]
    assert procedure.shape == "steps" and procedure.console == "ECS" and procedure.navigation_known
    assert procedure.prerequisites == ["A VPC named app-vpc exists in the region."]
    assert procedure.result.startswith('The message "Security group sg-... was created." appears')
    steps = procedure.steps
    assert [s.number for s in steps] == [1, 2, 3, 4] and [s.line for s in steps] == [19, 20, 21, 22]
    assert steps[0].console == "ECS"
    assert steps[1].navigation == [["Network & Security", "Security Groups"]]
    assert steps[3].ui_labels[:2] == ["Create Security Group", "Create"]
    # the table after "configure the following parameters and click Create" belongs to that step, cells interpreted
    assert _inputs(steps[3]) == [("Security group name", "example", "sg-app-01"),
                                 ("VPC", "instruction", "Select the VPC in which the application servers are deployed."),
                                 ("Security group type", "literal", "Basic Security Group"),
                                 ("Description", "empty", "Leave this field empty.")]
    # only what a person would type or select is a field value; "Leave this field empty." is not one
    assert steps[3].fields == [("Security group name", "sg-app-01"), ("Security group type", "Basic Security Group")]
    assert [n.split(":")[0] for n in steps[3].notes] == ["Warning", "Note"]
    assert all(s.source.endswith("alibaba-create-security-group.md") for s in steps)


def test_reference_page_becomes_open_fill_save_with_the_navigation_unknown() -> None:
    document = load_document(STYLE["reference-create-vswitch-dialog.rst"])
    assert document.format == "rst" and document.title == "Create vSwitch Dialog"
    assert document.front_matter == {"id": "styles-reference-create-vswitch-dialog", "product": "vpc",
                                     "release": "2026.03", "pages": ["/vpc/vswitches"]}
    procedure = document.procedures[0]
    assert procedure.shape == "reference" and not procedure.navigation_known and procedure.console is None
    assert procedure.prerequisites == ["A VPC named ref-vpc with the CIDR block 10.0.0.0/16 exists in the region."]
    opening, fill, save = procedure.steps
    assert opening.synthesized and opening.find == "Create vSwitch dialog" and opening.text == "Open the **Create vSwitch** dialog."
    assert fill.text == "Use the fields of the **Create vSwitch** dialog to describe the vSwitch:" and fill.line == 28
    assert [(s.label, s.control) for s in fill.all_inputs()] == [
        ("VPC", "drop-down listbox"), ("Zone", "drop-down listbox"), ("vSwitch name", "field"), ("IPv4 CIDR block", "field")]
    assert [s.value.text for s in fill.all_inputs()] == [  # type: ignore[union-attr]
        "select the VPC the vSwitch belongs to", "select the zone of the vSwitch",
        "provide a name that identifies the vSwitch in the list", "specify the address range of the vSwitch"]
    assert [s.line for s in fill.substeps] == [30, 32, 34, 36]
    assert fill.notes == ["Note: The first and last three IP addresses of each vSwitch CIDR block are reserved by the system."]
    assert save.synthesized and save.text == "Click **OK**." and save.ui_labels == ["OK"]  # the legend's save button


def test_tutorial_in_prose_with_quoted_and_italic_labels_and_a_settings_list() -> None:
    procedure = load_procedure(STYLE["tutorial-first-vswitch.md"])
    assert procedure.shape == "prose" and procedure.console == "VPC" and procedure.navigation_known
    assert procedure.prerequisites == ["A VPC named tutorial-vpc with the CIDR block 192.168.0.0/16 exists."]
    first, create, fill, done = procedure.steps
    assert first.text.startswith("First, log on to the VPC console. In the left-side navigation pane, expand **VPC** "
                                 "and click **vSwitches**.")  # quoted labels after a UI verb
    assert first.ui_labels == ["VPC", "vSwitches"] and first.line == 18
    assert create.ui_labels == ["Create vSwitch"]
    assert fill.synthesized and [s.text for s in fill.substeps][2] == "**vSwitch name**: `tutorial-vsw`"
    assert _inputs(fill) == [("VPC", "instruction", "the VPC you created for this tutorial"),
                             ("Zone", "instruction", "any zone"), ("vSwitch name", "literal", "tutorial-vsw"),
                             ("IPv4 CIDR block", "literal", "192.168.10.0/24")]
    # marked values of the settings list are values to type, and the doc follower reads them from the step text
    assert [pair for sub in fill.substeps for pair in sub.fields] == [("vSwitch name", "tutorial-vsw"),
                                                                      ("IPv4 CIDR block", "192.168.10.0/24")]
    fills = [(i.target, i.value) for i in instructions_from(fill.full_text()) if i.kind == "fill"]
    assert fills == [("vSwitch name", "tutorial-vsw"), ("IPv4 CIDR block", "192.168.10.0/24")]
    assert done.ui_labels == ["OK", "Available"]  # *OK* and *Available*: italics read as labels
    assert done.expected == ["After a few seconds the status of the new vSwitch changes to **Available**."]


def test_html_page_saved_from_a_documentation_site() -> None:
    document = load_document(STYLE["html-stop-instance.html"])
    assert document.format == "html" and document.title == "Stop an instance"
    assert document.front_matter["pages"] == ["/ecs/instances"] and document.release == "2026.03"
    procedure = document.procedures[0]
    assert procedure.context.startswith("You can stop an ECS instance")
    assert "Stopping an instance interrupts the services" in procedure.context
    assert procedure.prerequisites == ["A running ECS instance named web-01 exists."]
    assert procedure.result == ("The status of the instance changes from **Running** to **Stopping** and then to "
                                "**Stopped**.")
    texts = procedure.step_texts()
    assert texts[0] == "Log on to the ECS console."
    assert texts[1] == "In the left-side navigation pane, choose **Instances & Images** > **Instances**."
    assert texts[3] == ("In the **Stop** dialog box, click **Confirm**.\n"
                        "> Note: If the instance does not respond, it is stopped forcibly after a few minutes.")
    steps = procedure.steps
    assert procedure.console == "ECS" and steps[1].navigation == [["Instances & Images", "Instances"]]
    assert steps[2].ui_labels == ["Instances", "Stop", "Actions"]
    assert [s.line for s in steps] == [38, 39, 40, 41, 44]
    # the site around the topic (header, breadcrumb, sidebar, feedback, footer) is not read
    everything = " ".join(texts) + procedure.context + procedure.result
    assert "Was this page helpful" not in everything and "Restart an instance" not in everything


def test_task_topic_with_units_a_required_column_and_step_results() -> None:
    procedure = load_procedure(STYLE["alibaba-apply-eip.md"])
    configure = procedure.steps[3]
    assert [(s.label, s.required, s.value.kind, s.value.text, s.value.bare) for s in configure.inputs] == [  # type: ignore[union-attr]
        ("Metering method", True, "example", "Pay-by-data-transfer", "Pay-by-data-transfer"),
        ("Peak bandwidth", True, "example", "5 Mbps", "5"), ("Name", False, "empty", "Leave this field empty.",
                                                              "Leave this field empty.")]
    assert configure.notes == ["Notice: An EIP is billed from the moment it is allocated, even while it is not "
                               "associated with an instance."]
    assert procedure.steps[4].expected == ['The message "The EIP is allocated." appears.']
    assert procedure.result.startswith("The new EIP is listed on the **Elastic IP addresses** page")


def test_reference_page_with_a_default_and_options() -> None:
    procedure = load_procedure(STYLE["reference-create-security-group-dialog.rst"])
    assert procedure.steps[0].find == "Create Security Group dialog" and procedure.steps[-1].text == "Click **Create**."
    kind = next(s for s in procedure.steps[1].all_inputs() if s.label == "Security group type")
    assert kind.value is not None and (kind.value.kind, kind.value.text, kind.value.options) == (
        "default", "Basic Security Group", ["Basic Security Group", "Advanced Security Group"])
    assert procedure.steps[1].notes[0].startswith("Warning: A new security group has no inbound rules")


def test_html_saved_from_a_sphinx_site() -> None:
    document = load_document(STYLE["html-sphinx-create-vpc.html"])
    assert document.title == "Creating a VPC"  # the permalink "¶" is not part of it
    assert document.front_matter["pages"] == ["/vpc/vpcs", "/vpc/vpcs/create"]
    procedure = document.procedures[0]
    assert procedure.id == "steps" and procedure.console == "VPC"
    assert [s.ui_labels for s in procedure.steps[1:3]] == [["VPCs"], ["Create VPC"]]  # :guilabel: spans
    fill = procedure.steps[3]
    assert [(s.label, s.value.kind, s.value.text) for s in fill.inputs] == [  # type: ignore[union-attr]
        ("Name", "example", "sphinx-vpc"), ("IPv4 CIDR block", "literal", "172.16.0.0/12"),
        ("Description", "empty", "Leave this field empty.")]
    assert fill.notes == ["Note: You can change the name and the description later, but not every CIDR block change "
                          "is allowed."]
    assert "Network Guide" not in " ".join(procedure.step_texts())  # the sidebar is not read


@pytest.mark.parametrize("name", [p.name for p in SUITE_STYLES])
def test_every_style_yields_followable_steps(name: str) -> None:
    """Each step names UI labels in the one canonical form the doc follower reads, or the console it starts in."""
    procedure = load_procedure(STYLE[name])
    assert procedure.steps
    for step in procedure.steps:
        assert "**" in step.full_text() or step.console, step.text
