"""Issue 13, item 6: hypothesis fuzzes every registered action's parameters with hostile values.

The property: no request, whatever its parameters or bytes, gets a response of 500 or more, and
after the run the trail still verifies and holds only strict JSON. Calls go through the real app
(in-process ASGI transport) with the real SDK's signatures; one tenant serves every example so
the run stays well under a minute (the example count is bounded below).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stratus.api.registry import ACTIONS
from stratus.audit.verify import verify_trail
from stratus.sdk import StratusError
from tests.conftest import Cloud, Tenant, make_cloud
from tests.stratus.api.test_hardening import raw_call

ACTION_KEYS = sorted(ACTIONS)
NASTY_STRINGS = ["\ud800", "\udfff", "a\x00b", "\x1b[31m", "[/]", "[bold]x", "../../etc/passwd", "' OR 1=1 --",
                 "%s%n%x", "\u202e", "{{7*7}}", "<script>alert(1)</script>", "[" * 5000, '{"a":' * 200, "x" * 5000,
                 "NaN", "Infinity", "1e999", "-0", "", " ", "vpc-" + "9" * 60, "i-00000000", "cn-hangzhou", "http://x"]
NASTY_NUMBERS = [0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**30, 1e308, -1e308, 0.5, float("nan"), float("inf"),
                 float("-inf")]

leaves = st.one_of(
    st.none(), st.booleans(), st.sampled_from(NASTY_STRINGS), st.sampled_from(NASTY_NUMBERS),
    st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
)
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=4), max_leaves=12)


@pytest.fixture(scope="module")
def fuzz_cloud() -> Iterator[tuple[Cloud, Tenant]]:
    cloud = make_cloud()
    yield cloud, cloud.tenant("fuzzy", balance_cents=10_000_000)
    cloud.runtime.close()


@st.composite
def action_calls(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    product, action = draw(st.sampled_from(ACTION_KEYS))
    fields = list(ACTIONS[(product, action)].request.model_fields)
    names = draw(st.lists(st.sampled_from(fields) | st.text(max_size=12), max_size=6, unique=True))
    return product, action, {name: draw(values) for name in names}


def _status(call: Any) -> tuple[int, str]:
    try:
        call()
        return 200, ""
    except StratusError as exc:
        return exc.status, exc.code


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(call=action_calls())
def test_no_parameters_make_an_action_answer_5xx(fuzz_cloud: tuple[Cloud, Tenant], call: tuple[str, str, dict]) -> None:
    _, tenant = fuzz_cloud
    product, action, params = call
    status, code = _status(lambda: tenant.sdk.call(product, action, **params))
    assert status < 500 and code != "InvalidResponse", (product, action, params, status, code)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.sampled_from(ACTION_KEYS), body=st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
def test_no_body_bytes_make_an_action_answer_5xx(fuzz_cloud: tuple[Cloud, Tenant], key: tuple[str, str],
                                                 body: bytes) -> None:
    _, tenant = fuzz_cloud
    status, answer = raw_call(tenant.sdk, key[0], key[1], body)
    assert status < 500 and answer.get("Code") != "InvalidResponse", (key, body[:80], status, answer)


def test_after_fuzzing_the_trail_verifies_and_is_strict_json(fuzz_cloud: tuple[Cloud, Tenant]) -> None:
    """Runs after the two fuzz tests above (file order): their records are what is checked."""
    cloud, tenant = fuzz_cloud
    with cloud.runtime.session() as db:
        report = verify_trail(db, cloud.runtime.digest_signer)
    assert report.ok, report
    lines = cloud.admin.export_events(include_undelivered=True).splitlines()
    assert len(lines) > 150
    for line in lines:
        json.loads(line, parse_constant=lambda name: pytest.fail(f"non-JSON constant {name} stored: {line[:200]}"))
        line.encode("utf-8")
    page, pages = 1, 1
    while page <= pages:  # every LookupEvents page answers (a stored NaN used to break them)
        answer = tenant.provisioner.call("actiontrail", "LookupEvents", PageSize=100, PageNumber=page)
        pages = answer["TotalCount"] // 100 + 1
        page += 1


def _int_fields(request: Any) -> list[str]:
    """Fields of a request model that accept an integer (int, int | None, ...)."""
    out = []
    for name, info in request.model_fields.items():
        text = str(info.annotation)
        if info.annotation is int or "int" in text.replace("print", ""):
            out.append(name)
    return out


EDGE_INTS = [2**63, -(2**63) - 1]


def test_every_integer_parameter_at_the_64_bit_edges_is_a_4xx(fuzz_cloud: tuple[Cloud, Tenant]) -> None:
    """Deterministic sweep beside the random fuzzing: a page number past 2**63 used to overflow SQLite."""
    _, tenant = fuzz_cloud
    failures = []
    for (product, action), spec in sorted(ACTIONS.items()):
        for field in _int_fields(spec.request):
            for value in EDGE_INTS:
                status, code = _status(lambda: tenant.sdk.call(product, action, **{field: value}))
                if status >= 500 or code == "InvalidResponse":
                    failures.append((product, action, field, value, status, code))
    assert failures == []


def test_every_action_refuses_a_nul_character_in_its_text_parameters(fuzz_cloud: tuple[Cloud, Tenant]) -> None:
    """PostgreSQL refuses NUL in text columns: on it, 91 (action, parameter) pairs answered 500."""
    _, tenant = fuzz_cloud
    wrong = []
    for (product, action), spec in sorted(ACTIONS.items()):
        texts = {name: "a\x00b" for name, info in spec.request.model_fields.items()
                 if "str" in str(info.annotation) and name != "RegionId"}
        if not texts:
            continue
        status, code = _status(lambda: tenant.sdk.call(product, action, **texts))
        if status != 400 or not code.startswith(("InvalidParameter.", "MissingParameter")):
            wrong.append((product, action, status, code))
    assert wrong == []
