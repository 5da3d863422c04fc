"""The real-time clock of security checks: signature freshness, nonce memory, sign-in lockouts.

These checks defend against attackers who act in real time, and the clients they judge (the SDK,
a browser) only know real time. The runtime's clock may be virtual (a ``ScaledClock`` running 20x
would shrink a 15-minute window to 45 real seconds; a ``ManualClock`` would never let a lockout
expire and would refuse every SDK date), so these checks read the wall clock (UTC) instead. A test
may give a runtime its own ``security_clock`` (any object with ``now()``) to move this time by hand.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any


def security_now(runtime: Any) -> datetime:
    """Now, for security checks: the runtime's ``security_clock`` if a test set one, else wall time."""
    clock = getattr(runtime, "security_clock", None)
    return clock.now() if clock is not None else datetime.now(timezone.utc)
