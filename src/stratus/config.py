"""Server settings, read from flags and ``STRATUS_*`` environment variables.

One object carries everything that changes how a server behaves, so a test, the CLI and a
training worker configure a server the same way.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from stratus.releases import BASE_RELEASE, RELEASES


class Settings(BaseSettings):
    """Everything a stratus server needs to start; every field has a ``STRATUS_<NAME>`` variable."""

    model_config = SettingsConfigDict(env_prefix="STRATUS_", extra="forbid")

    database_url: str = Field(
        "sqlite:///stratus.db",
        description="SQLAlchemy URL: sqlite:///file.db, sqlite:// (in memory) or postgresql+psycopg://...",
    )
    seed: int = Field(0, description="Seed for ids, pop-ups and every other random choice.")
    clock: Literal["real", "manual"] = Field(
        "real", description="'real' follows the wall clock (times time_scale); 'manual' only moves when told."
    )
    time_scale: float = Field(1.0, gt=0, description="Virtual seconds per real second (10 makes waits 10x shorter).")
    start_time: str = Field("2026-01-05T08:00:00Z", description="Virtual time at which a manual clock starts.")
    release: str = Field(BASE_RELEASE, description="Console release served to accounts without an override.")
    popup_rate: float = Field(0.0, ge=0, le=1, description="Probability that a console page shows an announcement.")
    audit_delivery_delay: float = Field(
        0.0, ge=0, description="Virtual seconds before an audit record becomes visible to LookupEvents."
    )
    admin_token: str | None = Field(
        None, min_length=16,
        description="Bearer token of the admin API. Unset: a random token is generated on first start and stored "
                    "with the database (`stratus serve` prints it once).",
    )
    cookie_secure: bool = Field(False, description="Mark session cookies Secure (behind HTTPS).")
    audit_key_file: str | None = Field(
        None, description="Key file of the audit trail's signed digests (default: beside a SQLite database, "
                          "~/.stratus/audit-key-<id> for a database server); created with mode 0600 on first start.",
    )

    @field_validator("release")
    @classmethod
    def _known_release(cls, value: str) -> str:
        if value not in RELEASES:
            raise ValueError(f"unknown release {value!r}; known: {', '.join(RELEASES)}")
        return value
