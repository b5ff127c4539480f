"""Pixel helpers for the rendering tests."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageChops, ImageStat


def decode(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(BytesIO(data))
    img.load()
    return img.convert("RGB")


def box(at: tuple[float, float], dx0: float, dy0: float, dx1: float, dy1: float
        ) -> tuple[int, int, int, int]:
    x, y = at
    return round(x + dx0), round(y + dy0), round(x + dx1), round(y + dy1)


def near(a: tuple[int, ...], b: tuple[int, ...], tol: float) -> bool:
    return sum((p - q) ** 2 for p, q in zip(a, b, strict=False)) ** 0.5 <= tol


def share_near(img: Image.Image, region: tuple[int, int, int, int], rgb: tuple[int, int, int],
               tol: float = 18) -> float:
    """Share of the region's pixels within ``tol`` (Euclidean, 0-255) of ``rgb``."""
    crop = img.crop(region)
    colours = crop.getcolors(crop.width * crop.height) or []
    hit = sum(n for n, c in colours if near(c, rgb, tol))
    return hit / (crop.width * crop.height)


def dark_pixels(img: Image.Image, region: tuple[int, int, int, int], below: int = 110) -> int:
    grey = img.crop(region).convert("L")
    hist = grey.histogram()
    return sum(hist[:below])


def diff_bbox(a: Image.Image, b: Image.Image, threshold: int = 24
              ) -> tuple[int, int, int, int] | None:
    """Bounding box of the pixels that differ by more than ``threshold`` in any channel."""
    r, g, b_ = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).split()
    most = ImageChops.lighter(ImageChops.lighter(r, g), b_)
    return most.point(lambda v: 255 if v > threshold else 0).getbbox()


def mean_abs_diff(a: Image.Image, b: Image.Image) -> float:
    d = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    return sum(ImageStat.Stat(d).mean) / 3
