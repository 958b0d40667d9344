"""Routes that take a photo: scan it, or save it with corrected labels as training data.

Decoding and inference run on the scan workers (:class:`api.deps.Inference`), so a slow scan
never holds up the event loop or a hint; the body limit of these routes is ``max_upload_bytes``.
Every photo is decoded by :func:`decode` under the same limits: at most ``max_megapixels`` as
declared and within ``decode_budget_mb``; a photo to scan, a large JPEG at reduced size
(:func:`rummi.vision.image_io.load_for_scan`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, File, Form, Query, UploadFile
from pydantic import ValidationError
from rummi.api.deps import CorrectionsDep, InferenceDep, SettingsDep
from rummi.api.errors import FieldError, UnsupportedMediaError
from rummi.api.schemas import ERRORS, CorrectionLabels, CorrectionSaved, ScanResponse
from rummi.api.settings import Settings
from rummi.engine.editions import get_edition
from rummi.engine.errors import RummiError
from rummi.vision.image_io import ScanPhoto, load_for_scan, load_image

if TYPE_CHECKING:  # the scanner (onnxruntime) loads on the first scan, not with the app
    from rummi.vision.scanner import ScanResult

router = APIRouter(tags=["photos"])
#: Paths (under the API prefix) whose body may be as large as ``max_upload_bytes``.
UPLOAD_PATHS = ("/scan", "/corrections")

#: Content types a browser or phone gives a photo; anything else is refused before decoding.
PHOTO_TYPES = {"image/jpeg", "image/png", "image/webp", "image/bmp", "image/gif", "image/tiff"}

#: Tells OpenAPI clients (and schemathesis) which content types the ``photo`` part may have.
PHOTO_ENCODING = {
    "requestBody": {
        "content": {
            "multipart/form-data": {"encoding": {"photo": {"contentType": ", ".join(sorted(PHOTO_TYPES))}}}
        }
    }
}

PHOTO_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    413: {"description": "The upload or the decoded photo is larger than the limits."},
    415: {"description": "The file is not a photo in a format the service reads."},
    429: {"description": "Too many requests of this kind from this address (see Retry-After)."},
    503: {"description": "The recognition models are not installed, or too many photos wait."},
    507: {"description": "The corrections folder is full (its quota of photos or bytes)."},
}


def decode(data: bytes, settings: Settings) -> np.ndarray:
    """The photo in full as a BGR array, within the service's pixel and memory limits (to keep
    with corrected labels, which are in the photo's own pixels)."""
    return load_image(
        data,
        max_pixels=int(settings.max_megapixels * 1_000_000),
        max_decode_bytes=settings.decode_budget_mb * 1_000_000,
    )


def decode_for_scan(data: bytes, settings: Settings) -> ScanPhoto:
    """The photo to scan: a big JPEG at reduced size (JPEG draft, as ``rummi scan`` does), within
    the same limits; the scan maps its corners back to the photo's own pixels."""
    return load_for_scan(
        data,
        max_pixels=int(settings.max_megapixels * 1_000_000),
        max_decode_bytes=settings.decode_budget_mb * 1_000_000,
    )


async def _read_photo(photo: UploadFile) -> bytes:
    content_type = (photo.content_type or "").split(";")[0].strip().lower()
    if content_type not in PHOTO_TYPES:
        raise UnsupportedMediaError(
            f"{photo.filename or 'the upload'} is {content_type or 'of no stated type'}, not a photo "
            f"this service reads (send one of {', '.join(sorted(PHOTO_TYPES))})"
        )
    return await photo.read()


@router.post(
    "/scan",
    response_model=ScanResponse,
    summary="Read every tile in a photo",
    description="Upload a photo (multipart field `photo`); get each tile's reading and outline, "
    "the sets on the table, the rack, and the tiles the reader is unsure of.",
    responses=PHOTO_ERRORS,
    openapi_extra=PHOTO_ENCODING,
)
async def scan(
    photo: Annotated[UploadFile, File(description="A JPEG, PNG or WebP photo of a table or a rack.")],
    inference: InferenceDep,
    settings: SettingsDep,
    layout: Annotated[
        Literal["auto", "table", "rack"],
        Query(description="auto: tell sets from the rack; table: every row is a set; rack: all on a rack."),
    ] = "auto",
    edition: Annotated[
        str,
        Query(max_length=40, description="The box (see /editions): Expert's and Twist's jokers are then "
              "named by their colour (Jk Jb Jo Jr, Twist's Jd Jm Jc Js); every other box's are J."),
    ] = "standard",
) -> ScanResponse:
    try:
        box = get_edition(edition).name
    except RummiError as error:
        raise FieldError("edition", error) from None
    data = await _read_photo(photo)

    def work() -> ScanResponse:
        photo = decode_for_scan(data, settings)
        result = inference.scanner.get().scan(photo.image, layout, photo_scale=photo.scale, edition=box)
        return scan_response(result, *photo.size)

    return await inference.scan(work)


def scan_response(result: ScanResult, width: int, height: int) -> ScanResponse:
    """Shape a :class:`vision.scanner.ScanResult` for the API (indices, not copies, for sets)."""
    shown = result.to_json("upload")
    rack = list(result.layout.rack or [])
    rack_tiles = result.rack or []
    return ScanResponse(
        width=width,
        height=height,
        tiles=shown["tiles"],
        sets=[list(s) for s in result.layout.sets],
        rack=rack,
        rack_found=result.layout.rack is not None,
        uncertain=shown["uncertain"],
        advice=shown["advice"],
        table=[[str(t) for t in s if t is not None] for s in result.sets],
        rack_tiles=[str(t) for t in rack_tiles if t is not None],
        timings_ms={k: round(v, 1) for k, v in result.timings_ms.items()},
    )


@router.post(
    "/corrections",
    response_model=CorrectionSaved,
    status_code=201,
    summary="Save a photo with corrected tile labels as training data",
    description="Multipart: the `photo` as scanned and `labels`, a JSON object "
    '`{"tiles": [{"tile": "r5", "corners": [[x,y],...], "corrected": true}], "sets": [[0,1,2]], "rack": []}`. '
    "A tile labelled null is 'not a tile' and is left out.",
    responses=PHOTO_ERRORS,
    openapi_extra=PHOTO_ENCODING,
)
async def save_corrections(
    photo: Annotated[UploadFile, File(description="The photo the labels belong to.")],
    labels: Annotated[str, Form(description="The labels as JSON (see the description).")],
    inference: InferenceDep,
    store: CorrectionsDep,
    settings: SettingsDep,
) -> CorrectionSaved:
    try:
        checked = CorrectionLabels.model_validate_json(labels)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise FieldError(
            f"labels{'.' + where if where else ''}", RummiError(first.get("msg", "invalid"))
        ) from None
    data = await _read_photo(photo)

    def work() -> tuple[str, int, int]:
        return store.save(decode(data, settings), checked)

    name, kept, corrected = await inference.scan(work)
    return CorrectionSaved(name=name, tiles=kept, corrected=corrected, folder=store.folder.name)
