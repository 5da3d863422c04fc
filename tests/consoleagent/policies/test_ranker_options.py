"""A drop-down's listed options (``Mark.options``) in the ranker's candidates, its features and the follower it runs
alongside.

Measured before this (session 61): 29 of the 40 selects a plain GRPO head made on the held-out split were refused,
"media-01" where the list offers "media-01 (i-97jp…)", the document's example snapshot where the goal names another;
the three snapshot-to-disk tasks and disk-attach-01 failed in every learned head."""

from __future__ import annotations

import pytest

from consoleagent.actions.parser import parse_action
from consoleagent.env.faults import no_option_error
from consoleagent.observation.types import OPTIONS_HEADING, Mark, Observation, rendered_sections
from consoleagent.policies.candidates import build_candidates, match_action, option_meaning
from consoleagent.policies.follower_shadow import FollowerShadow, foreseen_refusal
from consoleagent.policies.ranker_features import SCALAR_FEATURES, EpisodeContext, _exact

ATTACH_GOAL = "Attach the data disk meta-media to the instance media-01."
ATTACH_DOC = ["In the **Attach Disk** dialog box, select the instance from the **Instance** drop-down list.",
              "Click **Attach**."]
SNAPSHOT_GOAL = "Create a 60 GiB data disk named restored-data from the snapshot golden-data."
SNAPSHOT_DOC = ["In the Create Disk dialog box, configure the parameters.\n| Parameter | Description | Example |\n"
                "| --- | --- | --- |\n| Create from snapshot | The snapshot to create the disk from. | before-upgrade (60 GiB) |",
                "Click Create."]


def dialog(goal: str, document: list[str], name: str, options: list[str] | None, values: list[str] | None = None) -> Observation:
    marks = [Mark(1, "combobox", name, tag="select", context='dialog "D"', options=options, option_values=values),
             Mark(2, "button", "OK", context='dialog "D"')]
    return Observation(url="http://c/ecs/disks", title="Block Storage", text='dialog "D"', marks=marks, goal=goal,
                       document=document)


def selects(page: Observation) -> dict[str, str | None]:
    """The select candidates: value -> meaning."""
    return {c.value: c.meaning for c in build_candidates(page) if c.kind == "select"}


def test_a_listed_drop_down_offers_only_its_options_each_read_by_the_value_it_stands_for() -> None:
    page = dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", ["Select an instance", "media-01 (i-97jp)", "media-02 (i-3kd)"],
                  ["", "i-97jp", "i-3kd"])
    assert selects(page) == {"Select an instance": None, "media-01 (i-97jp)": "media-01", "media-02 (i-3kd)": None}
    # unknown options (a recorded step from before drop-downs listed them): the goal's and document's values, as before
    unlisted = dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", None)
    assert "media-01" in selects(unlisted) and all(meaning is None for meaning in selects(unlisted).values())
    # a list that offers nothing is no choice at all
    assert selects(dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", [], [])) == {}


@pytest.mark.parametrize(("option", "value", "wanted", "meaning"), [
    ("media-01 (i-97jp)", "i-97jp", ["media-01"], "media-01"),  # the name before the brackets
    ("Zone H (cn-hangzhou-h)", "cn-hangzhou-h", ["cn-hangzhou-h"], "cn-hangzhou-h"),  # the id in them
    ("Ultra Disk", "cloud_efficiency", ["cloud_efficiency"], "cloud_efficiency"),  # the option's value
    ("media-01 (i-97jp)", "i-97jp", ["media-01 (i-97jp)"], None),  # the option itself: no other meaning
    ("media-010 (i-5)", "i-5", ["media-01"], None),  # never a name that merely begins it
    ("before-upgrade (60 GiB)", "s-1", ["60 GiB", "60"], None),  # words in brackets describe it: no name of it
    ("golden-data (60 GiB)", "s-1", ["60 GiB", "golden-data"], "golden-data"),
    ("shop-02 (i-7x) · Running", "i-7x", ["shop-02"], "shop-02"),  # a status after the brackets
    ("shop-02 (i-7x) · Running", "i-7x", ["Running"], None),  # is no name of it
])
def test_option_meaning(option: str, value: str, wanted: list[str], meaning: str | None) -> None:
    assert option_meaning(option, wanted, value) == meaning


def test_an_option_standing_for_the_goals_value_has_the_goal_value_features() -> None:
    page = dialog(SNAPSHOT_GOAL, SNAPSHOT_DOC, "Create from snapshot", ["None (empty disk)", "golden-data (60 GiB)",
                                                                         "before-upgrade (60 GiB)"], ["", "s-1", "s-2"])
    context = EpisodeContext.build(SNAPSHOT_GOAL, SNAPSHOT_DOC)
    page_signals = {"dialog_open": 1.0, "step": 0.1, "goal_on_page": 0.0, "last_error": 0.0, "last_was_type": 0.0}
    in_goal = SCALAR_FEATURES.index("value_in_goal") - 9
    in_doc = SCALAR_FEATURES.index("value_in_doc") - 9
    rows = {c.value: _exact(context, c, page_signals) for c in build_candidates(page) if c.kind == "select"}
    assert rows["golden-data (60 GiB)"][in_goal] == 1.0
    assert rows["None (empty disk)"][in_goal] == rows["before-upgrade (60 GiB)"][in_goal] == 0.0
    assert rows["before-upgrade (60 GiB)"][in_doc] == 1.0  # the document's example is still the document's


def test_a_recorded_select_by_an_options_value_is_that_options_candidate() -> None:
    page = dialog("Create a vSwitch in the zone cn-hangzhou-h.", ["Select the **Zone**."], "Zone",
                  ["Zone H (cn-hangzhou-h)", "Zone I (cn-hangzhou-i)"], ["cn-hangzhou-h", "cn-hangzhou-i"])
    candidates = build_candidates(page)
    index = match_action(candidates, parse_action('select(1, "cn-hangzhou-i")'))
    assert index is not None and candidates[index].value == "Zone I (cn-hangzhou-i)"
    assert match_action(candidates, parse_action('select(1, "cn-hangzhou-k")')) is None


def test_the_follower_alongside_is_told_the_refusal_its_select_would_get_and_proposes_what_it_does_next() -> None:
    attach = dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", ["Select an instance", "media-01 (i-97jp)"], ["", "i-97jp"])
    snapshot = dialog(SNAPSHOT_GOAL, SNAPSHOT_DOC, "Create from snapshot", ["None (empty disk)", "golden-data (60 GiB)"],
                      ["", "s-1"])
    for page, goal, document, alone, told in [
            (attach, ATTACH_GOAL, ATTACH_DOC, 'select(1, "media-01")', 'select(1, "media-01 (i-97jp)")'),
            (snapshot, SNAPSHOT_GOAL, SNAPSHOT_DOC, 'select(1, "before-upgrade (60 GiB)")', 'select(1, "golden-data (60 GiB)")')]:
        unlisted = dialog(goal, document, page.marks[0].name, None)
        shadow = FollowerShadow()
        shadow.reset(goal, document)
        assert shadow.propose(unlisted) == alone  # without listed options: the follower's guess, as before
        shadow.reset(goal, document)
        assert shadow.propose(page) == told


def test_a_refusal_is_foreseen_only_for_a_value_no_listed_option_has() -> None:
    page = dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", ["Select an instance", "media-01 (i-97jp)"], ["", "i-97jp"])
    assert foreseen_refusal('select(1, "media-01")', page) == no_option_error(1, "media-01", page.marks[0].options or [])
    assert foreseen_refusal('select(1, "MEDIA-01 (i-97jp)")', page) is None  # a label, case aside
    assert foreseen_refusal('select(1, "i-97jp")', page) is None  # an option's value
    assert foreseen_refusal('click(2)', page) is None
    assert foreseen_refusal('select(1, "media-01")', dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", None)) is None


def test_the_rendered_observation_lists_each_drop_downs_options_and_records_stay_small() -> None:
    page = dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", ["Select an instance", 'media-01 "blue"'] + [f"o{i}" for i in range(30)],
                  [""] * 32)
    page.marks.append(Mark(3, "combobox", "Zone", tag="select", options=[], option_values=[]))
    section = rendered_sections(page.render())[OPTIONS_HEADING].splitlines()
    assert section[0].startswith('[1] "Instance": "Select an instance", "media-01 \'blue\'", "o0"')
    assert section[0].endswith('"o17" and 12 more')
    assert section[1] == '[3] "Zone": none'
    assert rendered_sections(page.render())["Page"].startswith("URL: http://c/ecs/disks")
    assert "options" not in page.marks[1].to_dict() and "option_values" not in page.marks[1].to_dict()
    assert Mark.from_dict(page.marks[0].to_dict()) == page.marks[0]
    assert OPTIONS_HEADING not in dialog(ATTACH_GOAL, ATTACH_DOC, "Instance", None).render()
