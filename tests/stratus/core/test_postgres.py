"""stratus on PostgreSQL: the same API semantics, audit chain and snapshots as on SQLite.

Runs when STRATUS_TEST_POSTGRES_URL points at a database this test may fill and empty
(e.g. postgresql+psycopg://postgres@127.0.0.1/stratus_test); skipped otherwise, since CI does
not start a PostgreSQL server.
"""

from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine

from stratus.core.db import Base
from tests.conftest import make_cloud
from tests.estate import build_estate

URL = os.environ.get("STRATUS_TEST_POSTGRES_URL")
pytestmark = [pytest.mark.postgres, pytest.mark.skipif(not URL, reason="STRATUS_TEST_POSTGRES_URL is not set")]


@pytest.fixture
def pg_cloud():  # noqa: ANN201
    engine = create_engine(URL)
    Base.metadata.drop_all(engine)
    engine.dispose()
    cloud = make_cloud(database_url=URL)
    yield cloud
    cloud.runtime.close()


def test_estate_snapshot_restore_and_chain_on_postgres(pg_cloud) -> None:  # noqa: ANN001
    tenant = pg_cloud.tenant("pgsql")
    estate = build_estate(pg_cloud, tenant.provisioner)
    before = pg_cloud.admin.account_state(tenant.account_id)
    snap = pg_cloud.admin.snapshot(tenant.account_id)["snapshot_id"]
    tenant.sdk.call("ecs", "StopInstance", InstanceId=estate["instance"])
    pg_cloud.admin.restore(snap)
    assert pg_cloud.admin.account_state(tenant.account_id) == before
    assert pg_cloud.admin.verify_trail()["ok"] is True
    events = tenant.sdk.call("actiontrail", "LookupEvents", EventName="StopInstance")["Events"]
    assert len(events) == 1 and events[0]["actor"] == "sdk"
