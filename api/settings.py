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
from rummi.api import places
from rummi.api.storage.games import default_url

from rummi import models

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
    database_url: str = Field(
        default_factory=default_url,
        description="Where games are kept: a SQLite file (default: rummi.db in the user's data folder) or postgresql://...",
    )
    models_dir: Path = Field(default=DEFAULT_MODELS_DIR, description="Folder of the ONNX models.")
    corrections_dir: Path = Field(
        default_factory=lambda: places.data_dir() / "corrections",
        description="Where photos with corrected tile labels are saved for the next training run.",
    )
    scan_workers: int = Field(
        default=2,
        ge=1,
        le=32,
        description="Scans that may run at once; the rest wait without blocking other requests.",
    )
