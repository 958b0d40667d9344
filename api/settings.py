"""Every knob of the service in one place, read from the environment (prefix ``RUMMI_``).

The limits are what keeps one careless or hostile request from taking the service down: a
60-megapixel photo, a decompression bomb or a megabyte of JSON is refused before it costs memory.

    >>> Settings(max_upload_bytes=1_000_000).max_upload_bytes
    1000000
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from rummi import models
from rummi.places import default_corrections_dir, default_database_url

#: Every JSON route lives under this prefix; a breaking change gets /api/v2 beside it.
API_PREFIX = "/api/v1"
API_VERSION = "1.0.0"

#: Shipped ONNX weights live beside ``models/__init__.py``.
DEFAULT_MODELS_DIR = Path(models.__file__).resolve().parent


class Settings(BaseSettings):
    """The service's configuration; ``RUMMI_MAX_UPLOAD_BYTES=...`` and so on override each field."""

    model_config = SettingsConfigDict(env_prefix="RUMMI_", extra="ignore")

    max_upload_bytes: int = Field(
        default=15 * 1024 * 1024,
        ge=1024,
        description="Largest photo upload (whole multipart body), checked while it streams in.",
    )
    max_megapixels: float = Field(
        default=40.0,
        gt=0,
        description="Largest decoded photo, in millions of pixels; refuses decompression bombs.",
    )
    max_json_bytes: int = Field(
        default=64 * 1024,
        ge=256,
        description="Largest JSON request body.",
    )
    decode_budget_mb: int = Field(
        default=256,
        ge=16,
        description="Memory one photo decode may take (estimated before decoding, after any JPEG "
        "draft); a photo that needs more is refused with 413.",
    )
    trim_memory: bool = Field(
        default=True,
        description="After each scan or correction, give the memory it freed back to the system "
        "(glibc malloc_trim), and map blocks of 16 MB or more on their own (mallopt), so a server "
        "that decoded big photos shrinks back.",
    )
    database_url: str = Field(
        default_factory=default_database_url,
        description="Where games are kept: a SQLite file in the user's data folder (default) or "
        "postgresql://...",
    )
    models_dir: Path = Field(default=DEFAULT_MODELS_DIR, description="Folder of the ONNX models.")
    corrections_dir: Path = Field(
        default_factory=default_corrections_dir,
        description="Where photos with corrected tile labels are saved for the next training run "
        "(default: the user's data folder).",
    )
    max_corrections: int = Field(default=2000, ge=1, description="Most corrected photos kept (507 beyond).")
    max_corrections_mb: int = Field(
        default=2048, ge=1, description="Most megabytes the corrections folder may hold (507 beyond)."
    )
    scan_workers: int = Field(
        default=2,
        ge=1,
        le=32,
        description="Scans that may run at once; the rest wait without blocking other requests.",
    )
    max_queued_scans: int = Field(
        default=8,
        ge=0,
        le=1000,
        description="Scans that may wait for a worker; beyond that a scan is answered 503 with Retry-After.",
    )
    quick_workers: int = Field(
        default=2,
        ge=1,
        le=32,
        description="Hints and verdicts that may run at once, on their own workers (never behind scans).",
    )
    token: str | None = Field(
        default=None,
        min_length=8,
        max_length=200,
        description="The organiser's token. When set, every call that reads or writes games, scans "
        "or corrections needs `Authorization: Bearer <token>` (or a game's join code). "
        "`rummi serve` makes one up on any address but loopback.",
    )
    join_secret: str | None = Field(
        default=None,
        min_length=16,
        max_length=200,
        description="Signs the games' join codes, so they stay the same across restarts. "
        "`rummi serve` keeps one in the data folder (`join-secret`) unless this is set; give "
        "every machine of a scale-out the same one. Without one the codes are signed with the token.",
    )
    public_url: str | None = Field(
        default=None,
        max_length=500,
        description="The page's address as phones reach it (`rummi serve --lan` sets it); "
        "/api/v1/join builds the join URL on it. Default: the address the request came to.",
    )
    trusted_hosts: str = Field(
        default="",
        max_length=2000,
        description="Host names (comma-separated) the service answers to besides IP addresses and "
        "localhost; any other Host header is refused (DNS rebinding).",
    )
    writes_per_minute: int = Field(default=120, ge=1, description="Game writes per client and minute.")
    scans_per_minute: int = Field(default=240, ge=1, description="Photo scans per client and minute.")
    corrections_per_minute: int = Field(default=12, ge=1, description="Corrections per client and minute.")
    frames_per_minute: int = Field(
        default=600, ge=1, description="Watch frames per client and minute (the page sends at most 5 a second)."
    )
    header_timeout_s: float = Field(
        default=10.0, gt=0, le=600, description="A request's headers must arrive within this."
    )
    body_timeout_s: float = Field(
        default=60.0, gt=0, le=3600, description="A request's whole body must arrive within this."
    )
    body_idle_timeout_s: float = Field(
        default=10.0, gt=0, le=600, description="Longest silence while a body streams in."
    )
    keep_alive_s: float = Field(default=5.0, gt=0, le=600, description="Idle keep-alive connections close after this.")
    max_connections: int = Field(
        default=256,
        ge=4,
        le=100_000,
        description="Open connections at most; one more is closed at once (the file descriptors stay free).",
    )

    def trusted_host_names(self) -> frozenset[str]:
        return frozenset(h.strip().lower() for h in self.trusted_hosts.split(",") if h.strip())
