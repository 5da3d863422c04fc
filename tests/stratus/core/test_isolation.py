"""Isolation: no action lets one account see or touch another's resources.

Every registered action must have an example in ``tests/isolation_examples.py`` (a new action
without one fails ``test_every_action_has_an_example``). For each action:
  1. account B calls it with account A's resource ids: it must fail with NotFound/Forbidden, or,
     for actions without A's ids (creates, lists), succeed without revealing any of A's ids;
  2. A's complete state is byte-identical before and after B's call;
  3. A calls it with the same parameters and is NOT refused as NotFound/Forbidden, proving the
     example really reaches the ownership check (so step 1 is meaningful).
A's estate is restored from a snapshot before each action.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from stratus.api.dispatch import Caller, invoke
from stratus.api.registry import ACTIONS
from stratus.core.identity import Principal
from tests.conftest import make_cloud
from tests.estate import build_estate
from tests.isolation_examples import EXAMPLES, resolve

REFUSED = {"NotFound", "Forbidden"}


@pytest.fixture(scope="module")
def world() -> Any:
    cloud = make_cloud()
    a, b = cloud.tenant("owner"), cloud.tenant("intruder")
    build_estate(cloud, b.provisioner, prefix="b")  # B has resources of its own too
    estate = build_estate(cloud, a.provisioner)
    estate.update(build_extras(cloud, a.provisioner, estate))
    cloud.advance(30)
    a.sdk.call("resourcecenter", "SearchResources", Keyword="settle")
    snapshot = cloud.admin.snapshot(a.account_id)["snapshot_id"]
    owner_ids = {v for k, v in estate.items() if "-" in v and not k.startswith("zone")}
    yield cloud, a, b, estate, snapshot, owner_ids
    cloud.runtime.close()


def build_extras(cloud: Any, client: Any, estate: dict[str, str]) -> dict[str, str]:
    """Resources the base estate lacks, so every action has something of A's to aim at."""
    from tests.isolation_examples import EXTRAS

    return EXTRAS(cloud, client, estate)


def _principal(tenant: Any) -> Principal:
    return Principal(tenant.account_id, None, "root", "sdk", access_key_id=tenant.creds["access_key_id"])


def test_every_action_has_an_example() -> None:
    assert sorted(set(ACTIONS) - set(EXAMPLES)) == [], "add an example for each new action"
    assert sorted(set(EXAMPLES) - set(ACTIONS)) == [], "examples of actions that no longer exist"


@pytest.mark.parametrize("key", sorted(ACTIONS), ids=lambda k: f"{k[0]}/{k[1]}")
def test_action_is_isolated(world: Any, key: tuple[str, str]) -> None:
    cloud, a, b, estate, snapshot, owner_ids = world
    example = EXAMPLES.get(key)
    if example is None:
        pytest.fail(f"no isolation example for {key}")
    cloud.admin.restore(snapshot)
    params, uses_owner_ids = resolve(example, estate)
    before = cloud.admin.account_state(a.account_id)

    spec = ACTIONS[key]
    intruder = invoke(cloud.runtime, Caller(_principal(b)), key[0], key[1], dict(params))
    sent = json.dumps(params)
    leaked = {i for i in owner_ids if i in json.dumps(intruder.body) and i not in sent}
    assert not leaked, f"{key}: B's response reveals A's ids {leaked}"
    if uses_owner_ids and (spec.rw == "Write" or not intruder.ok):
        assert not intruder.ok, f"{key}: B succeeded on A's resources: {intruder.body}"
        assert intruder.body["Code"] in REFUSED, f"{key}: B got {intruder.body['Code']}, expected NotFound/Forbidden"
    assert cloud.admin.account_state(a.account_id) == before, f"{key}: B's call changed A's state"

    owner = invoke(cloud.runtime, Caller(_principal(a)), key[0], key[1], dict(params))
    assert owner.ok or owner.body["Code"] not in REFUSED, f"{key}: the example fails for the owner too: {owner.body}"
    if not owner.ok:
        assert not owner.body["Code"].startswith(("MissingParameter", "InvalidParameter")), (
            f"{key}: the example is invalid even for the owner: {owner.body}")
    elif uses_owner_ids and spec.rw == "Read" and intruder.ok:
        # A filtered read answered B with nothing; the same filter must find A's resource for A,
        # otherwise B's empty answer proves nothing.
        referenced = {i for i in owner_ids if i in sent}
        assert referenced & {i for i in owner_ids if i in json.dumps(owner.body)}, (
            f"{key}: the owner's answer does not contain the filtered resource either: {owner.body}")
