"""The phone: a perspective view of the table plane, then what a phone camera does to light.

The view maps the plane to the output image by a homography (a phone held at an angle, turned,
nearer or farther); labels go through the same homography, so they stay exact. Photo effects
(uneven light, glare, a cast shadow, colour casts, blur, noise) act on pixels only; JPEG
artefacts come from the quality the writer encodes with.
"""

from __future__ import annotations

import cv2
import numpy as np
from rummi.datasets.synth.textures import value_noise


def view_homography(rng: np.random.Generator, plane: tuple[int, int], out: tuple[int, int],
                    any_rotation: bool) -> np.ndarray:
    """3x3 matrix taking plane pixels to output pixels."""
    ph, pw = plane
    oh, ow = out
    zoom = float(rng.uniform(0.85, 1.12))
    half_w, half_h = ow * zoom / 2, oh * zoom / 2
    source = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]], np.float32)
    tilt = float(rng.uniform(0.0, 0.32)) if rng.random() < 0.8 else 0.0
    source[0, 0] -= tilt * half_w
    source[1, 0] += tilt * half_w
    source[:2, 1] -= tilt * half_h * 0.6  # the far side shows more of the table
    source += rng.normal(0, 0.02, source.shape).astype(np.float32) * np.array([ow, oh], np.float32)
    angle = float(rng.uniform(-180, 180)) if any_rotation else float(rng.normal(0, 6))
    a = np.radians(angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    source = source @ rotation.T + np.array([pw / 2, ph / 2], np.float32)
    source += rng.normal(0, 0.02, 2).astype(np.float32) * np.array([ow, oh], np.float32)
    target = np.array([[0, 0], [ow, 0], [ow, oh], [0, oh]], np.float32)
    return cv2.getPerspectiveTransform(source, target)


def apply_view(matrix: np.ndarray, image: np.ndarray, ids: np.ndarray, out: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    oh, ow = out
    photo = cv2.warpPerspective(image, matrix, (ow, oh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101)
    id_map = cv2.warpPerspective(ids, matrix, (ow, oh), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=0)
    return photo, id_map


def transform_points(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float32), matrix).reshape(-1, 2)


_NOISE_SIDE = 1100
_noise_tile: np.ndarray | None = None


def _noise_patch(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A (h, w, 3) window of unit Gaussian noise, at a random offset in a fixed per-process tile.

    Drawing 2 million fresh normals per photo cost more than everything else in the effects;
    a random window of fixed noise looks the same to a model and stays reproducible.
    """
    global _noise_tile
    if _noise_tile is None:
        _noise_tile = np.random.default_rng(12345).standard_normal((_NOISE_SIDE, _NOISE_SIDE, 3), dtype=np.float32)
    y = int(rng.integers(0, _NOISE_SIDE - h + 1))
    x = int(rng.integers(0, _NOISE_SIDE - w + 1))
    return _noise_tile[y:y + h, x:x + w]


def photo_effects(rng: np.random.Generator, image: np.ndarray) -> tuple[np.ndarray, dict]:
    """Light, glare, shadow, colour, blur and noise; returns the photo and what was applied.

    Everything smooth (light, vignette, shadow, glare, colour cast) is computed on a map a
    quarter of the size and applied in one multiply and one add: the photo is touched at full
    size only a few times, which keeps a scene well under 100 ms.
    """
    h, w = image.shape[:2]
    sh, sw = h // 4 + 1, w // 4 + 1
    applied: dict = {}
    light = 1.0 + value_noise(rng, (sh, sw), 2, 2) * float(rng.uniform(0.05, 0.25))
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    vignette = 1.0 - float(rng.uniform(0, 0.35)) * (((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2) * 2)
    gain = light * vignette * float(rng.uniform(0.7, 1.15))
    if rng.random() < 0.3:
        applied["shadow"] = True
        mask = np.zeros((sh, sw), np.float32)
        points = rng.uniform([-0.3 * sw, -0.3 * sh], [1.3 * sw, 1.3 * sh], (5, 2)).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(points)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(2, 8)))
        gain *= 1.0 - float(rng.uniform(0.2, 0.5)) * mask
    glare = np.zeros((sh, sw), np.float32)
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        applied["glare"] = applied.get("glare", 0) + 1
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
        sx, sy = rng.uniform(0.03, 0.2) * sw, rng.uniform(0.03, 0.2) * sh
        glare += np.exp(-((xx - cx) / sx) ** 2 - ((yy - cy) / sy) ** 2) * float(rng.uniform(40, 140))
    cast = rng.normal(1.0, 0.05, 3).astype(np.float32)
    if rng.random() < 0.4:
        warm = float(rng.uniform(-0.12, 0.12))
        cast *= np.array([1 - warm, 1.0, 1 + warm], np.float32)
    gain3 = cv2.resize(gain[..., None] * cast[None, None, :], (w, h), interpolation=cv2.INTER_LINEAR)
    photo = cv2.multiply(image.astype(np.float32), gain3)
    if glare.any():
        photo = cv2.add(photo, cv2.merge([cv2.resize(glare, (w, h))] * 3))
    if rng.random() < 0.35:
        sigma = float(rng.uniform(0.4, 1.6))
        photo = cv2.GaussianBlur(photo, (0, 0), sigma)
        applied["blur"] = round(sigma, 2)
    elif rng.random() < 0.12:
        length = int(rng.integers(3, 9))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        photo = cv2.filter2D(photo, -1, kernel / max(float(kernel.sum()), 1e-6))
        applied["motion_blur"] = length
    noise_sigma = float(rng.uniform(0.5, 7))
    applied["noise"] = round(noise_sigma, 1)
    photo = cv2.scaleAdd(_noise_patch(rng, h, w), noise_sigma, photo)
    return np.clip(photo, 0, 255).astype(np.uint8), applied
