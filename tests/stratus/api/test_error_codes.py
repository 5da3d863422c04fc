"""Every stable error code of the API, triggered once through the SDK, with its typed exception
and HTTP status: the contract that SDK users and reward rules match on."""

from __future__ import annotations

import pytest

from stratus import sdk
from tests.conftest import Cloud, Tenant
from tests.estate import build_estate


def test_every_stable_code(cloud: Cloud, tenant: Tenant, other_tenant: Tenant) -> None:
    estate = build_estate(cloud, tenant.sdk)
    client = tenant.sdk
    cases = [
        ("MissingParameter", sdk.MissingParameterError, 400, lambda: client.call("vpc", "DeleteVpc")),
        ("InvalidParameter.CidrBlock", sdk.InvalidParameterError, 400,
         lambda: client.call("vpc", "CreateVpc", CidrBlock="8.8.8.0/24")),
        ("NotFound", sdk.NotFoundError, 404,
         lambda: other_tenant.sdk.call("ecs", "DescribeInstanceAttribute", InstanceId=estate["instance"])),
        ("DependencyViolation", sdk.DependencyViolationError, 409, lambda: client.call("vpc", "DeleteVpc", VpcId=estate["vpc"])),
        ("IncorrectStatus", sdk.IncorrectStatusError, 409,
         lambda: client.call("ecs", "ModifyInstanceSpec", InstanceId=estate["instance"], InstanceType="ecs.g7.xlarge")),
        ("Idempotency.Conflict", sdk.IdempotencyConflictError, 409, lambda: [
            client.call("vpc", "CreateVpc", CidrBlock="10.0.0.0/8", ClientToken="token-1"),
            client.call("vpc", "CreateVpc", CidrBlock="172.16.0.0/12", ClientToken="token-1")]),
    ]
    cloud.admin.set_quotas(tenant.account_id, **{"ecs.key_pairs": 1})
    cases.append(("QuotaExceeded", sdk.QuotaExceededError, 400, lambda: client.call("ecs", "CreateKeyPair", KeyPairName="second")))
    for code, error_class, status, trigger in cases:
        with pytest.raises(error_class) as exc:
            trigger()
        assert (exc.value.code, exc.value.status) == (code, status), code
        assert exc.value.request_id and exc.value.message

    cloud.admin.set_balance(tenant.account_id, 0)
    with pytest.raises(sdk.InsufficientBalanceError) as exc:
        client.call("vpc", "AllocateEipAddress", Bandwidth=5)
    assert exc.value.code == "InsufficientBalance"

    # Forbidden: the console API without its CSRF header is refused even with a valid session
    sdk.console_sign_in(cloud.http, "root@alpha", "Passw0rd!2026")
    response = cloud.http.post("/api/vpc/DescribeVpcs", json={})
    assert (response.status_code, response.json()["Code"]) == (403, "Forbidden.CSRF")
    assert isinstance(sdk.error_for("Forbidden", "", 403), sdk.ForbiddenError)

    # every failure above is in the trail with its code
    failures = client.call("actiontrail", "LookupEvents", ErrorCode="*", PageSize=100)["Events"]
    recorded = {e["errorCode"] for e in failures}
    assert {"MissingParameter", "InvalidParameter.CidrBlock", "DependencyViolation", "IncorrectStatus",
            "Idempotency.Conflict", "QuotaExceeded", "InsufficientBalance"} <= recorded
