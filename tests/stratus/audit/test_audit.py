"""The audit trail is the ground truth of rewards: every call once, right actor, tamper-evident."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import update

from stratus.audit.trail import AuditEvent, verify_chain
from stratus.sdk import StratusError
from tests.conftest import Cloud, Tenant, make_cloud


def events(tenant: Tenant, **filters: str) -> list[dict]:
    """Every delivered record of the tenant (the lookup itself is recorded too, after it answers)."""
    return tenant.provisioner.call("actiontrail", "LookupEvents", PageSize=500, **filters)["Events"]


def test_success_failure_and_read_each_recorded_once_with_actor(cloud: Cloud, tenant: Tenant) -> None:
    tenant.sdk.call("actiontrail", "LookupEvents")  # a read
    with pytest.raises(StratusError):
        tenant.sdk.call("resourcecenter", "GetResource", ResourceId="vpc-doesnotexist")  # a failure
    tenant.provisioner.call("resourcecenter", "SearchResources", Keyword="x")  # another actor
    records = events(tenant)
    names = [(r["eventName"], r["actor"], r["errorCode"]) for r in reversed(records)]
    assert names == [
        ("LookupEvents", "sdk", None),
        ("GetResource", "sdk", "NotFound"),
        ("SearchResources", "provisioner", None),
    ]
    failure = next(r for r in records if r["eventName"] == "GetResource")
    assert failure["eventRW"] == "Read" and failure["errorMessage"]
    assert failure["userIdentity"]["accountId"] == tenant.account_id
    assert failure["userIdentity"]["accessKeyId"] == tenant.creds["access_key_id"]


def test_unknown_action_and_invalid_parameters_are_recorded(cloud: Cloud, tenant: Tenant) -> None:
    with pytest.raises(StratusError) as exc:
        tenant.sdk.call("nosuch", "DoThing")
    assert exc.value.code == "InvalidAction.NotFound"
    with pytest.raises(StratusError) as exc:
        tenant.sdk.call("actiontrail", "LookupEvents", PageSize=0)
    assert exc.value.code == "InvalidParameter.PageSize"
    with pytest.raises(StratusError) as exc:
        tenant.sdk.call("actiontrail", "LookupEvents", Bogus=1)
    assert exc.value.code == "InvalidParameter.Bogus"
    codes = [r["errorCode"] for r in reversed(events(tenant))]
    assert codes == ["InvalidAction.NotFound", "InvalidParameter.PageSize", "InvalidParameter.Bogus"]


def test_secrets_are_redacted(cloud: Cloud, tenant: Tenant) -> None:
    with pytest.raises(StratusError):
        tenant.sdk.call("nosuch", "SetPassword", Password="Sup3r-secret!", Nested={"LoginPassword": "x1"})
    record = events(tenant, EventName="SetPassword")[0]
    assert record["requestParameters"]["Password"] == "******"
    assert record["requestParameters"]["Nested"]["LoginPassword"] == "******"
    assert "Sup3r-secret!" not in json.dumps(record)


def test_chain_verifies_and_detects_modification(cloud: Cloud, tenant: Tenant) -> None:
    for _ in range(5):
        tenant.sdk.call("actiontrail", "LookupEvents")
    with cloud.runtime.session() as db:
        assert verify_chain(db).ok
        record = json.loads(db.get(AuditEvent, 3).record)
        record["eventName"] = "DeleteEverything"
        db.execute(update(AuditEvent).where(AuditEvent.seq == 3).values(record=json.dumps(record, sort_keys=True)))
        db.commit()
        report = verify_chain(db)
    assert not report.ok and report.first_bad_seq == 3 and "hash" in report.problem
    assert cloud.admin.verify_trail()["ok"] is False


def test_chain_detects_deleted_records(cloud: Cloud, tenant: Tenant) -> None:
    for _ in range(4):
        tenant.sdk.call("actiontrail", "LookupEvents")
    with cloud.runtime.session() as db:
        db.delete(db.get(AuditEvent, 2))
        db.commit()
        assert verify_chain(db).first_bad_seq == 2
    with cloud.runtime.session() as db:  # removing the newest record is caught through the head
        db.delete(db.get(AuditEvent, 4))
        db.commit()
        assert not verify_chain(db).ok


def test_delivery_delay_hides_records_until_due() -> None:
    cloud = make_cloud(audit_delivery_delay=30.0)
    tenant = cloud.tenant("delayed")
    tenant.sdk.call("resourcecenter", "SearchResources", Keyword="web")
    assert [r["eventName"] for r in events(tenant)] == []
    cloud.advance(29)
    assert [r["eventName"] for r in events(tenant, EventName="SearchResources")] == []
    cloud.advance(2)
    assert [r["eventName"] for r in events(tenant, EventName="SearchResources")] == ["SearchResources"]
    assert "SearchResources" in cloud.admin.export_events(include_undelivered=True)


def test_lookup_filters_and_pagination_newest_first(cloud: Cloud, tenant: Tenant, other_tenant: Tenant) -> None:
    for i in range(7):
        tenant.sdk.call("resourcecenter", "SearchResources", Keyword=f"k{i}")
        cloud.advance(1)
    other_tenant.sdk.call("resourcecenter", "SearchResources", Keyword="other")
    first = tenant.provisioner.call("actiontrail", "LookupEvents", EventName="SearchResources", PageSize=3)
    second = tenant.provisioner.call("actiontrail", "LookupEvents", EventName="SearchResources", PageSize=3, PageNumber=2)
    assert first["TotalCount"] == 7  # the other account's call is not visible
    keywords = [e["requestParameters"]["Keyword"] for e in first["Events"] + second["Events"]]
    assert keywords == ["k6", "k5", "k4", "k3", "k2", "k1"]
    window = tenant.provisioner.call("actiontrail", "LookupEvents", EventName="SearchResources",
                                     StartTime="2026-01-05T08:00:02Z", EndTime="2026-01-05T08:00:04Z")
    assert [e["requestParameters"]["Keyword"] for e in window["Events"]] == ["k4", "k3", "k2"]
    assert tenant.provisioner.call("actiontrail", "LookupEvents", Actor="provisioner")["TotalCount"] >= 2
    with pytest.raises(StratusError) as exc:
        tenant.sdk.call("actiontrail", "LookupEvents", StartTime="yesterday")
    assert exc.value.code == "InvalidParameter.StartTime"


def test_export_is_jsonl_in_chain_order(cloud: Cloud, tenant: Tenant) -> None:
    tenant.sdk.call("actiontrail", "LookupEvents")
    tenant.sdk.call("resourcecenter", "SearchResources", Keyword="a")
    lines = cloud.admin.export_events(account_id=tenant.account_id).splitlines()
    assert [json.loads(line)["eventName"] for line in lines] == ["LookupEvents", "SearchResources"]
