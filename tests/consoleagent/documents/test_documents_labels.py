"""How UI labels, menu paths and consoles are recognised in step text, whatever the writer's habit."""

from __future__ import annotations

import pytest

from consoleagent.documents.loader import parse_procedure
from consoleagent.documents.labels import code_or_path, console_named, emphasised, is_label_like, mark_quoted_labels, menu_path


@pytest.mark.parametrize(("sentence", "console"), [
    ("Log on to the ECS console.", "ECS"),
    ("Log on to the Elastic Compute Service (ECS) console.", "ECS"),
    ("First, log on to the VPC console and open the vSwitches page.", "VPC"),
    ("Sign in to the Virtual Private Cloud console", "Virtual Private Cloud"),
    ("Open the **VPC** console.", "VPC"),
    ("Log in to the console.", None),
    ("The console shows the instance.", None),
])
def test_the_console_a_step_starts_in(sentence: str, console: str | None) -> None:
    assert console_named(sentence) == console


@pytest.mark.parametrize(("text", "label"), [
    ("Name", True), ("Connect now?", True), ("Create - Server", True), ("Instances & Images", True),
    ("not", False), ("only", False), ("This is a whole sentence that explains a lot of things.", False),
    ("Note:", False), ("", False),
])
def test_emphasis_that_reads_as_a_label(text: str, label: bool) -> None:
    assert is_label_like(text) is label


@pytest.mark.parametrize(("text", "before", "written"), [
    ("Always", "a status for the trigger: **Enable** **Disable**, **Replica** ", "**Always**"),  # a choice among choices
    ("LAST", "the placement of NULL values. Specify FIRST or ", "**LAST**"),
    ("Always", "", "Always"),  # "*Always* back up first": stress at a sentence's start
    ("Always", "Take a backup first. ", "Always"),
    ("always", "you should ", "always"),  # stress inside a sentence is written in lower case
    ("Replica", "", "**Replica**"),
])
def test_a_stressed_word_capitalised_inside_a_sentence_is_a_label(text: str, before: str, written: str) -> None:
    assert emphasised(text, before) == written


def test_an_rst_list_of_choices_keeps_its_last_choice() -> None:
    """pgAdmin's event trigger page ends its list with "*Replica* *Always*.": the last choice was read as a
    stressed word, so the follower took "replicas" in a goal "fires always (on replicas too)" for **Replica**."""
    procedure = parse_procedure("Event trigger\n=============\n\n* Select a value from the drop down of *Trigger Enabled*"
                                " field to specify a status\n  for the trigger: *Enable* *Disable*, *Replica* *Always*.\n",
                                "page.rst")
    field = procedure.steps[1].substeps[0].inputs[0]
    assert (field.label, field.value.options) == ("Trigger Enabled", ["Enable", "Disable", "Replica", "Always"])


def test_menu_paths_in_one_span() -> None:
    assert menu_path("Object > Create > Database") == ["Object", "Create", "Database"]
    assert menu_path("Tools --> Query Tool") == ["Tools", "Query Tool"]
    assert menu_path("a > b is true when a is larger") is None  # prose, not a path
    assert code_or_path("Object > Create > Database") == "**Object** > **Create** > **Database**"
    assert code_or_path("0.0.0.0/0") == "`0.0.0.0/0`"


def test_quoted_labels_after_a_verb_or_before_a_control_noun() -> None:
    assert mark_quoted_labels('Click "Create VPC", then fill in the \'Name\' field.') == \
        "Click **Create VPC**, then fill in the **Name** field."
    message = 'The message "The EIP is allocated." appears.'
    assert mark_quoted_labels(message) == message  # a quoted message is not a label


def test_a_document_that_marks_no_label_has_its_labels_found_from_their_phrasing() -> None:
    from consoleagent.documents.labels import mark_unmarked_labels

    steps = ["In the left-side navigation pane, choose Storage & Snapshots > Snapshots and note the name.",
             "On the Custom Images tab, find the image and choose More > Delete in the Actions column.",
             "In the Networking step, select the Network (VPC), vSwitch and Security Group, and click Next.",
             "In the Key Pair Name field, enter kp-01, then click Create.",
             "Click Refresh until the status of the disk changes from Attaching to In Use.",
             "In the top navigation bar, select the region of the disk. Select the check box of each VPC.",
             "Configure the parameters.\n| Parameter | Value |\n| --- | --- |\n| Name | web-01 |\n"
             "| Disk category | ESSD, Standard SSD or Ultra Disk. | Ultra Disk |",
             "In the Modify Image Information dialog box, change the Custom image name and the Description.",
             "Optionally enter a Tag Key and Tag Value. Wait until the status changes to Running.",
             "| Billing Method | Pay-as-you-go (billed by the hour) or Subscription (paid in advance). | x |",
             "| Logon Credential | Key Pair (Linux only), Custom Password, or Set Later to reset it later. | x |",
             "Choose VPC > vSwitches, click Apply for EIP, then the service: SSH (22), HTTP (80) or RDP (3389).",
             "If a > b then click Cancel. Filter by names, tags or descriptions."]
    assert mark_unmarked_labels(steps) == [
        "In the left-side navigation pane, choose **Storage & Snapshots** > **Snapshots** and note the name.",
        "On the **Custom Images** tab, find the image and choose **More** > **Delete** in the **Actions** column.",
        "In the **Networking** step, select the **Network (VPC)**, **vSwitch** and **Security Group**, and click **Next**.",
        "In the **Key Pair Name** field, enter kp-01, then click **Create**.",
        "Click **Refresh** until the status of the disk changes from **Attaching** to **In Use**.",
        "In the top navigation bar, select the region of the disk. Select the check box of each VPC.",  # lower case
        "Configure the parameters.\n| Parameter | Value |\n| --- | --- |\n| Name | web-01 |\n"  # names by position
        "| Disk category | **ESSD**, **Standard SSD** or **Ultra Disk**. | Ultra Disk |",  # a cell's choices
        # a capitalised "Modify" names a dialog; a lower-case one asks for a change
        "In the **Modify Image Information** dialog box, change the **Custom image name** and the **Description**.",
        "Optionally enter a **Tag Key** and **Tag Value**. Wait until the status changes to **Running**.",
        # a parenthesis in lower-case words explains a choice and stays outside its label
        "| Billing Method | **Pay-as-you-go** (billed by the hour) or **Subscription** (paid in advance). | x |",
        "| Logon Credential | **Key Pair** (Linux only), **Custom Password**, or **Set Later** to reset it later. | x |",
        "Choose **VPC** > **vSwitches**, click **Apply for EIP**, then the service: **SSH (22)**, **HTTP (80)** or **RDP (3389)**.",
        "If a > b then click **Cancel**. Filter by names, tags or descriptions."]  # no menu, no choices


def test_a_table_row_names_labels_after_a_verb_and_through_its_example() -> None:
    from consoleagent.documents.labels import mark_unmarked_labels

    rows = ["| Assign Public IPv4 | Select it to assign a public IP address, and set the Peak Bandwidth in Mbps. | Cleared |",
            "| Metering | Pay-by-data-transfer charges for outbound traffic; Pay-by-bandwidth charges for the peak. | "
            "Pay-by-data-transfer |",
            "| Resize method | Online (the instance keeps running) for an attached disk, or Offline (the disk is detached) "
            "for a detached disk. | Offline (the disk is detached) |",
            "| Type | Basic Group: members reach each other. Advanced Group: all traffic is denied. | Basic Group |",
            "| Family | Filters the instance types, for example ecs.g7 · General Purpose. | ecs.g7 · General Purpose |",
            "| Disk | The category of the disk. The default is Ultra Disk. | Ultra Disk |",
            "| Name | The name of the VPC, such as doc-vpc. Enter a name. | doc-vpc |"]
    assert mark_unmarked_labels(rows) == [
        # a verb names a label in a description cell; the field's own cell is read by position, the example is a value
        "| Assign Public IPv4 | Select it to assign a public IP address, and set the **Peak Bandwidth** in Mbps. | Cleared |",
        # the example leads a clause: each clause beside it is led by a choice of as many words
        "| Metering | **Pay-by-data-transfer** charges for outbound traffic; **Pay-by-bandwidth** charges for the peak. | "
        "Pay-by-data-transfer |",
        "| Resize method | **Online** (the instance keeps running) for an attached disk, or **Offline** (the disk is "
        "detached) for a detached disk. | Offline (the disk is detached) |",
        "| Type | **Basic Group**: members reach each other. **Advanced Group**: all traffic is denied. | Basic Group |",
        # the example named in the description's prose
        "| Family | Filters the instance types, for example **ecs.g7 · General Purpose**. | ecs.g7 · General Purpose |",
        "| Disk | The category of the disk. The default is **Ultra Disk**. | Ultra Disk |",
        # an example with no capitalised word is a value, not a label
        "| Name | The name of the VPC, such as doc-vpc. Enter a name. | doc-vpc |"]


def test_a_document_that_marks_a_label_anywhere_is_left_as_written() -> None:
    from consoleagent.documents.labels import mark_unmarked_labels

    steps = ["On the Instances page, click **Start**.", "Click Refresh until the status changes to Running."]
    assert mark_unmarked_labels(steps) == steps
