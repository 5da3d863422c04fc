"""stratus's audit source: the agent's records of an episode, read through ActionTrail's LookupEvents,
and the reader of a reward rule's ``state:`` checks (stratus API calls as the episode's account)."""

from __future__ import annotations

from typing import Any

from consoleagent.consoles.base import ReadState


def audit_of_episode(account_credentials: Any, console: str, page_size: int = 200) -> list[dict[str, Any]]:
    """The agent's console records of the episode: those of its sign-in session (each episode signs in
    anew; the adapter notes the session's id at sign-in, else the newest delivered sign-in is taken)."""
    from stratus.sdk import Client

    extra = account_credentials.extra
    with Client(console, extra["access_key_id"], extra["access_key_secret"]) as client:
        session = extra.get("session_id")
        if not session:
            signins = client.call("actiontrail", "LookupEvents", EventName="ConsoleSignin", ErrorCode="none", PageSize=1)
            if not signins["Events"]:
                return []
            session = signins["Events"][0]["userIdentity"]["sessionId"]
        records = list(client.paginate("actiontrail", "LookupEvents", "Events", SessionId=session))
    return list(reversed(records))  # oldest first


def account_records(console: str, extra: dict[str, Any], since: str | None = None,
                    until: str | None = None) -> list[dict[str, Any]]:
    """Every record of one account in ``[since, until]``, oldest first (the seam's ``audit_records``)."""
    from stratus.sdk import Client

    params = {k: v for k, v in (("StartTime", since), ("EndTime", until)) if v}
    with Client(console, extra["access_key_id"], extra["access_key_secret"]) as client:
        records = list(client.paginate("actiontrail", "LookupEvents", "Events", **params))
    return list(reversed(records))


def state_reader(console: str, extra: dict[str, Any]) -> ReadState:
    """``(product, action, params) -> response``, called with the episode account's SDK key."""
    from stratus.sdk import Client

    def read(product: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
        with Client(console, extra["access_key_id"], extra["access_key_secret"]) as client:
            return client.call(product, action, **params)

    return read
