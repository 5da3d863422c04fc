"""The doc follower on documents as people write them: parameter tables whose cells are instructions,
"configure the following and click Next" (fill first), "Log on to the X console", reference pages that
never say how to open their dialog, and renames that share no word with the document's label.

Unit tests on synthetic observations (marks and page text); the sentence encoder is the real
all-MiniLM-L6-v2 when installed (the lexical fallback otherwise: tests that need meaning say so).
The end-to-end tests in the real console are in tests/test_docfollower_console.py.
"""

from __future__ import annotations

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.encoder import backend_name
from consoleagent.observation.types import Mark, Observation
from consoleagent.documents.instructions import instructions_from
from consoleagent.policies.docfollow.semantic import find_rename, opposed
from consoleagent.policies.docfollower import DocFollowerPolicy

TABLE_STEP = ("In the **Create Security Group** dialog box, configure the following parameters and click **Next**.\n"
              "| Parameter | Value |\n| --- | --- |\n"
              "| Security group name | Enter a name for the group. For example, `sg-app-01`. |\n"
              "| VPC | Select the VPC in which the application servers are deployed. |\n"
              "| Description | Leave this field empty. |\n"
              "| Bandwidth | 5 Mbps |")


def page(url: str, marks: list[Mark], text: str = "", error: str | None = None) -> Observation:
    return Observation(url=f"http://console.test{url}", title=url, text=text or "\n".join(
        f'[{m.id}] {m.role} "{m.name}"' for m in marks), marks=marks, last_error=error)


def policy_for(goal: str, steps: list[str]) -> DocFollowerPolicy:
    policy = DocFollowerPolicy()
    policy.reset(goal, steps)
    return policy


def test_a_table_after_the_sentence_is_filled_before_its_button_is_clicked() -> None:
    got = [(i.kind, i.target, i.value) for i in instructions_from(TABLE_STEP)]
    assert got == [("fill", "Security group name", "sg-app-01"),
                   ("choose", "VPC", "Select the VPC in which the application servers are deployed."),
                   ("fill", "Bandwidth", "5 Mbps"), ("click", "Next", "")]
    # a click in an earlier sentence (it opens the form) stays first
    opened = instructions_from("Click **Create**. Configure these parameters:\n| Field | Value |\n| --- | --- |\n| Name | `a1` |")
    assert [i.kind for i in opened] == ["click", "fill"]


def test_cells_are_interpreted_never_typed_as_sentences() -> None:
    policy = policy_for("Create a security group named web-sg.", [TABLE_STEP])
    form = [Mark(1, "textbox", "Security group name", states=["required"]),
            Mark(2, "combobox", "VPC", tag="select", value="Select a VPC"),
            Mark(3, "textbox", "Description"), Mark(4, "spinbutton", "Bandwidth", value="1"),
            Mark(5, "button", "Next")]
    typed = [parse_action(policy.act(page("/ecs/sg/create", form)).action)]
    assert (typed[0].name, typed[0].args) == ("type", (1, "web-sg"))  # the goal's name, not the example
    probe = parse_action(policy.act(page("/ecs/sg/create", form)).action)
    assert probe.name == "select" and probe.args[0] == 2  # asks the list for its options
    error = '[2] has no option "x"; its options are: "Select a VPC", "db-vpc (10.1.0.0/16)", "app-servers-vpc (10.2.0.0/16)"'
    chosen = parse_action(policy.act(page("/ecs/sg/create", form, error=error)).action)
    assert chosen.name == "select" and chosen.args[0] == 2
    if backend_name() != "lexical":  # by meaning: the VPC of the application servers
        assert chosen.args[1] == "app-servers-vpc (10.2.0.0/16)"
    else:
        assert chosen.args[1] in ("db-vpc (10.1.0.0/16)", "app-servers-vpc (10.2.0.0/16)")
    form[1] = Mark(2, "combobox", "VPC", tag="select", value=chosen.args[1])  # the page now shows the choice
    rest = [parse_action(policy.act(page("/ecs/sg/create", form)).action) for _ in range(2)]
    # "Leave this field empty." is never typed; "5 Mbps" goes into a number field as 5; then Next
    assert [(a.name, a.args) for a in rest] == [("type", (4, "5")), ("click", (5,))]


def test_log_on_to_the_console_goes_to_the_product_from_the_home_page() -> None:
    policy = policy_for("Create a VPC.", ["Log on to the VPC console.", "Click **Create VPC**."])
    home = [Mark(1, "link", "Elastic Compute Service Virtual machines, disks and images"),
            Mark(2, "link", "Virtual Private Cloud Isolated networks, vSwitches and EIPs"), Mark(3, "link", "Home")]
    go = parse_action(policy.act(page("/console", home)).action)
    assert (go.name, go.args) == ("click", (2,))
    on_vpc = parse_action(policy.act(page("/vpc", [Mark(7, "button", "Create VPC")])).action)
    assert (on_vpc.name, on_vpc.args) == ("click", (7,))  # already in the VPC console: nothing more for step 1
    ecs = policy_for("Stop web-01.", ["Log on to the Elastic Compute Service (ECS) console."])
    assert parse_action(ecs.act(page("/console", home)).action).args == (1,)


def test_a_dialog_the_document_never_says_how_to_open_is_searched_for() -> None:
    policy = policy_for("Create Security Group Dialog, following the document.",
                        ["Open the **Create Security Group** dialog.", "Click **Create**."])
    home = [Mark(1, "link", "Virtual Private Cloud Isolated networks"), Mark(2, "link", "Elastic Compute Service "
            "Instances, disks, security groups"), Mark(3, "button", "Sign out")]
    first = parse_action(policy.act(page("/console", home)).action)
    assert first.name == "click" and first.args in ((1,), (2,))
    ecs = [Mark(10, "link", "Instances"), Mark(11, "link", "Security Groups"), Mark(12, "link", "Disks"),
           Mark(13, "button", "Delete")]
    visited = [first.args[0]]
    url = "/ecs" if first.args == (2,) else "/vpc"
    marks = ecs if url == "/ecs" else [Mark(20, "link", "VPCs"), Mark(21, "link", "Route tables")]
    for _ in range(6):  # a bounded walk that never clicks Delete or Sign out, and goes back from a dead end
        decision = parse_action(policy.act(page(url, marks)).action)
        assert not (decision.name == "click" and decision.args[0] in (3, 13))
        if decision.name == "goto":
            url, marks = decision.args[0], home
            continue
        if decision.name == "click" and decision.args == (11,):
            break
        if decision.name == "click" and decision.args[0] in (1, 2):
            url, marks = ("/ecs", ecs) if decision.args == (2,) else ("/vpc", [Mark(20, "link", "VPCs")])
        visited.append(decision.args[0])
    else:
        pytest.fail(f"the walk never reached the Security Groups page: {visited}")
    dialog = [Mark(30, "button", "Create Security Group"), Mark(31, "link", "sg-1")]
    opened = parse_action(policy.act(page("/ecs/security-groups", dialog)).action)
    assert (opened.name, opened.args) == ("click", (30,))


@pytest.mark.skipif(backend_name() == "lexical", reason="renames that share no word need the sentence encoder")
def test_a_rename_that_shares_no_word_is_reported_as_label_changed_and_followed() -> None:
    policy = policy_for("Apply for an EIP.", ["Click **Apply for EIP**."])
    marks = [Mark(1, "button", "Create EIP"), Mark(2, "button", "Release"), Mark(3, "link", "Routing")]
    report = parse_action(policy.act(page("/vpc/eips", marks)).action)
    assert report.name == "report_discrepancy" and report.args[1:] == ("label_changed", "Apply for EIP", "Create EIP")
    follow = parse_action(policy.act(page("/vpc/eips", marks)).action)
    assert (follow.name, follow.args) == ("click", (1,))


@pytest.mark.skipif(backend_name() == "lexical", reason="calibrated on the sentence encoder")
def test_rename_threshold_on_the_changelogs_renames() -> None:
    """Every rename of the stratus changelog with no spelling rule behind it is found among the page's other
    labels, and none of the opposites and neighbours is taken for one."""
    renamed = {"Apply for EIP": "Create EIP", "Release": "Delete", "Create VPC": "Create a VPC",
               "Instances & Images": "Instances", "Inbound": "Inbound Rules"}
    others = ["Modify", "Stop", "Start", "Renew", "Outbound Rules", "Routing", "Attach", "Cancel", "Create Snapshot"]
    for old, new in renamed.items():
        found = find_rename(old, others + [new])
        assert found is not None and found.name == new, (old, found)
    for old in ("Stop", "Attach", "Inbound", "Create VPC"):
        assert find_rename(old, ["Start", "Detach", "Outbound Rules", "Delete"]) is None, old
    assert opposed("Inbound", "Outbound Rules") and not opposed("Inbound", "Inbound Rules")


def test_a_required_range_the_hint_bounds_gets_a_free_block_inside_it() -> None:
    """The reference page of the vSwitch dialog gives no CIDR block, and the field's placeholder "For
    example, 192.168.1.0/24" lies outside the VPC: a person reads the hint under the field ("Must be
    within the VPC CIDR block 10.0.0.0/16") and types a block of that range no listed vSwitch uses."""
    from consoleagent.policies.goal_values import GoalValues, free_block

    steps = ["Use the fields of the **Create vSwitch** dialog to describe the vSwitch:\n"
             "a. Use the **IPv4 CIDR block** field to specify the address range of the vSwitch. It must lie within "
             "the CIDR block of the VPC.", "Click **OK**."]
    policy = policy_for("Create vSwitch Dialog, following the document.", steps)
    dialog = 'dialog "Create vSwitch"'
    cidr = Mark(7, "textbox", "IPv4 CIDR block", tag="input", placeholder="For example, 192.168.1.0/24",
                states=["required"], context=dialog)
    ok = Mark(8, "button", "OK", context=dialog)
    text = ("row: web-vsw 10.0.1.0/24 Available\n"
            '[7] textbox "IPv4 CIDR block" placeholder="For example, 192.168.1.0/24" (required)\n'
            "Must be within the VPC CIDR block 10.0.0.0/16, with a mask between /16 and /29.\n"
            '[8] button "OK"')
    assert policy.act(page("/vpc/vswitches", [cidr, ok], text=text)).action == 'type(7, "10.0.2.0/24")'
    # the rule underneath: the goal's own block first, the hint's range next, the placeholder's example last
    values = GoalValues("Create a vSwitch with the CIDR block 10.0.8.0/24.")
    assert values.for_instruction("IPv4 CIDR block", "", "For example, 192.168.1.0/24", within=["10.0.0.0/16"]) == "10.0.8.0/24"
    assert GoalValues("").for_instruction("IPv4 CIDR block", "", "For example, 192.168.1.0/24") == "192.168.1.0/24"
    assert free_block(["10.0.0.0/16"], ["10.0.0.0/16", "10.0.1.0/24", "10.0.2.0/23"]) == "10.0.4.0/24"
    assert free_block(["192.168.5.0/28"]) == "192.168.5.0/28"  # smaller than a /24: the range itself
    assert free_block(["10.0.0.0/16"], ["10.0.0.0/8"]) is None  # everything overlaps: no block to offer


def test_a_document_with_no_markup_is_followed_by_the_labels_its_phrasing_names() -> None:
    policy = policy_for("Create a route table named rt-01.", ["In the left-side navigation pane, choose VPC > Route tables.",
                                                             "On the Route tables page, click Create route table."])
    nav = [Mark(1, "link", "Overview"), Mark(2, "link", "VPC"), Mark(3, "link", "Route tables"), Mark(4, "link", "NAT gateways")]
    first = parse_action(policy.act(page("/vpc", nav)).action)
    assert (first.name, first.args) == ("click", (3,))  # the path's last label that the page shows
    listing = nav + [Mark(5, "button", "Create route table"), Mark(6, "textbox", "Search")]
    second = parse_action(policy.act(page("/vpc/route-tables", listing)).action)
    assert (second.name, second.args) == ("click", (5,))
