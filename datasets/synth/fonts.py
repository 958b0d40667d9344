"""Bold sans fonts for tile numbers, found on disk (Debian font packages), never downloaded.

``scripts/setup-system.sh`` installs the packages; here we only look for their files.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rummi.datasets.errors import DatasetError

FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
#: File names of bold sans faces that look like tile digits, from the packages the set-up installs.
BOLD_SANS = (
    "DejaVuSans-Bold.ttf",  # fonts-dejavu-core
    "LiberationSans-Bold.ttf",  # fonts-liberation2
    "Arimo-Bold.ttf",  # fonts-croscore
    "Roboto-Bold.ttf",  # fonts-roboto
    "Roboto-Black.ttf",
    "OpenSans-Bold.ttf",  # fonts-open-sans
    "OpenSans-ExtraBold.ttf",
    "FreeSansBold.ttf",  # fonts-freefont-ttf
    "Lato-Bold.ttf",  # fonts-lato
    "Lato-Black.ttf",
)


def missing_fonts() -> tuple[str, ...]:
    """The faces of :data:`BOLD_SANS` not installed. Why it matters: the tile styles take the
    fonts in turn, so with one missing every generated scene of a seed draws other tiles than
    the documented dataset and the benchmark's generated scenes (a machine with DejaVu alone
    read generated modern tiles at F1 0.88 instead of 0.90); the generator and the robustness
    benchmark say so rather than differ silently."""
    found = {path.name for path in tile_fonts()}
    return tuple(name for name in BOLD_SANS if name not in found)


def missing_fonts_warning() -> str | None:
    """One line for the user when fonts are missing (None when all are installed)."""
    missing = missing_fonts()
    if not missing:
        return None
    return (f"warning: {len(missing)} of {len(BOLD_SANS)} tile fonts are not installed ({', '.join(missing)}): "
            "generated scenes differ from the documented ones; install them with "
            "`sudo bash scripts/setup-system.sh`")


@lru_cache(maxsize=1)
def tile_fonts() -> tuple[Path, ...]:
    """Paths of every installed face from :data:`BOLD_SANS`, in that order."""
    found: dict[str, Path] = {}
    for root in FONT_ROOTS:
        if root.is_dir():
            for path in root.rglob("*.ttf"):
                if path.name in BOLD_SANS and path.name not in found:
                    found[path.name] = path
    fonts = tuple(found[name] for name in BOLD_SANS if name in found)
    if not fonts:
        raise DatasetError(
            "no bold sans font found under /usr/share/fonts; install the font packages with "
            "`sudo bash scripts/setup-system.sh` (fonts-dejavu-core, fonts-liberation2, ...)")
    return fonts
