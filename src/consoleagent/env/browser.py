"""One Chromium per process, shared by every episode (each episode gets a fresh context).

Starting Chromium costs about a second; a context costs milliseconds. A crashed browser is
relaunched for the next episode, so one crash costs one episode (as env_error), not the run.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from typing import Any

DEFAULT_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")


def default_executable() -> str | None:
    """Debian's Chromium where installed; otherwise let Playwright use its own browser, if any."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class BrowserHost:
    headless: bool = True
    executable_path: str | None = field(default_factory=default_executable)
    args: tuple[str, ...] = DEFAULT_ARGS
    playwright: Any = None  # an already started Playwright to launch from (it stays the caller's to stop)
    _owned: Any = None
    _browser: Any = None

    def browser(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self.playwright is None:
            from playwright.sync_api import sync_playwright

            self.playwright = self._owned = sync_playwright().start()
        self._browser = self.playwright.chromium.launch(
            headless=self.headless, executable_path=self.executable_path, args=list(self.args))
        return self._browser

    def close(self) -> None:
        if self._browser is not None:
            try:
                self._browser.close()
            except Exception:  # already gone
                pass
            self._browser = None
        if self._owned is not None:
            self._owned.stop()
            self._owned = self.playwright = None
