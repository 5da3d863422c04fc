"""Release pinning: stratus serves several console releases; each episode's account is put on its task's."""

from __future__ import annotations

from typing import Any

from consoleagent.provisioning.types import PooledAccount, Requirement
from consoleagent.rollout.reset import Prepared, Preparer


class ReleasePinned:
    """A preparer that first puts the leased account on the task's console release."""

    def __init__(self, inner: Preparer, admin: Any, releases: dict[str, str]) -> None:
        self.inner, self.admin, self.releases = inner, admin, releases

    def prepare(self, account: PooledAccount, task_id: str, requirements: list[Requirement]) -> Prepared:
        self.admin.set_release(account.account_id, self.releases.get(task_id))
        return self.inner.prepare(account, task_id, requirements)

    def cleanup(self, account: PooledAccount, prepared: Prepared) -> None:
        self.inner.cleanup(account, prepared)
