"""The ranker's lexical prefilter (``policies.prefilter``): which candidates reach the encoder."""

from __future__ import annotations

import pytest

from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.candidates import build_candidates
from consoleagent.policies.prefilter import id_fits_field, prefilter
from consoleagent.policies.ranker_features import EpisodeContext

GOAL = "Delete the VPC net-041."
DOCUMENT = ["Open the **VPCs** page.", "Find the VPC and click **Delete** in its row.", "Click **OK**."]


def page(rows: int = 60, dialog: bool = False) -> Observation:
    """A table of ``rows`` VPCs (checkbox, link, Delete each) and a search form; optionally a dialog."""
    marks, next_id = [Mark(1, "link", "VPCs"), Mark(2, "searchbox", "Search keyword", context='form "Search"')], 3
    for i in range(rows):
        row = f"row: net-{i:03d} vpc-{i:03d}abcdef | Available"
        for role, name in (("checkbox", f"Select net-{i:03d}"), ("link", f"net-{i:03d}"), ("button", "Delete")):
            marks.append(Mark(next_id, role, name, context=row))
            next_id += 1
    if dialog:
        marks += [Mark(next_id, "button", "OK", context='dialog "Delete VPC"'),
                  Mark(next_id + 1, "button", "Cancel", context='dialog "Delete VPC"')]
    return Observation(url="http://c/vpc/vpcs", title="VPCs", text="", marks=marks, goal=GOAL, document=DOCUMENT)


def test_keeps_the_goal_rows_delete_and_every_page_action() -> None:
    observation = page()
    candidates = build_candidates(observation)
    kept = prefilter(EpisodeContext.build(GOAL, DOCUMENT), observation, candidates, 8)
    texts = [(candidates[i].text, candidates[i].mark.context if candidates[i].mark else "") for i in kept]
    assert sum(1 for i in kept if candidates[i].mark is not None) == 8
    assert ('click button "Delete"', "row: net-041 vpc-041abcdef | Available") in texts
    assert {c.kind for c in candidates if c.mark is None} <= {candidates[i].kind for i in kept}
    assert kept == sorted(kept)  # page order, so mark order is kept for the head and the history


def test_an_open_dialogs_buttons_are_kept_before_the_rows_behind_it() -> None:
    observation = page(dialog=True)
    candidates = build_candidates(observation)
    kept = prefilter(EpisodeContext.build(GOAL, DOCUMENT), observation, candidates, 4)
    names = [candidates[i].mark.name for i in kept if candidates[i].mark is not None]
    assert "OK" in names and "Cancel" in names


def test_keep_zero_or_a_small_page_keeps_everything() -> None:
    observation = page(rows=3)
    candidates = build_candidates(observation)
    context = EpisodeContext.build(GOAL, DOCUMENT)
    assert prefilter(context, observation, candidates, 0) == list(range(len(candidates)))
    assert prefilter(context, observation, candidates, 100) == list(range(len(candidates)))


@pytest.mark.parametrize(("value", "name", "fits"), [
    ("vpc-t5byegrsy3wq88uom", "VPC", True), ("vsw-tawkodpb2hw4gkhml", "vSwitch", True),
    ("ngw-m55tk25udfpn7bak4", "NAT gateway", True), ("i-tv6ntar5o22p1pr01", "ECS instance", True),
    ("vpc-t5byegrsy3wq88uom", "vSwitch", False), ("web-vpc", "VPC", False), ("i-tv6ntar5o22p1pr01", "Name", False)])
def test_a_resource_id_fits_the_drop_down_of_its_kind(value: str, name: str, fits: bool) -> None:
    assert id_fits_field(value, name) is fits


def test_the_ranker_scores_only_the_kept_candidates_and_their_scores_do_not_change() -> None:
    torch = pytest.importorskip("torch")
    from consoleagent.encoder import EncoderUnavailable
    from consoleagent.policies.ranker import RankerPolicy
    from consoleagent.policies.ranker_features import proposed_index

    try:
        full, cut = RankerPolicy(keep=0), RankerPolicy(keep=8)
    except EncoderUnavailable as exc:
        pytest.skip(str(exc))
    observation = page()
    for policy in (full, cut):
        policy.reset(GOAL, DOCUMENT)
    all_candidates, kept = full.candidates(observation), cut.candidates(observation)
    proposed = [c for c in kept if c == all_candidates[proposed_index(all_candidates, cut.proposal)]]
    # 8 elements, scroll x2, back, wait, finish, give up, and the documentation follower's proposal, scored always
    assert len(all_candidates) == cut.listed and len(proposed) == 1 and len(kept) in (8 + 6, 8 + 6 + 1)
    _, all_logits = full.score(observation, all_candidates)
    _, kept_logits = cut.score(observation, kept)
    where = [all_candidates.index(c) for c in kept]
    assert torch.allclose(all_logits[where], kept_logits, atol=1e-5)
    decision = cut.act(observation)
    # the follower proposes once per step: its proposal here (a later step for it) may or may not be cut
    assert decision.meta["candidates"] in (8 + 6, 8 + 6 + 1) and decision.meta["listed"] == len(all_candidates)
