"""The bioimage pack's programs: preprocess, segment, count, measure.

One small script so the pack runs anywhere NumPy does: scikit-image is used when it
is installed (Gaussian filter, Otsu threshold, connected-component labelling), and
scipy.ndimage / NumPy equivalents otherwise. Each sub-command prints the lines the
pack's `log_parsing` patterns read; outputs go to the current (run) directory.

    python3 bioimage_tool.py preprocess IMAGE PREFIX   -> PREFIX_preprocessed.npy
    python3 bioimage_tool.py segment IMAGE PREFIX      -> PREFIX_labels.npy
    python3 bioimage_tool.py count LABELS PREFIX
    python3 bioimage_tool.py measure LABELS PREFIX     -> PREFIX_measurements.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def load_image(path: Path) -> np.ndarray:
    """A 2-D float image from .npy, or TIFF/PNG through scikit-image or Pillow."""
    if path.suffix.lower() == ".npy":
        image = np.load(path)
    else:
        try:
            from skimage.io import imread
        except ImportError:
            from PIL import Image

            image = np.asarray(Image.open(path))
        else:
            image = imread(path)
    image = np.asarray(image, dtype=float)
    return image.mean(axis=-1) if image.ndim == 3 else image


def smooth(image: np.ndarray, sigma: float = 1.0) -> np.ndarray:
    try:
        from skimage.filters import gaussian
    except ImportError:
        from scipy.ndimage import gaussian_filter

        return gaussian_filter(image, sigma)
    return gaussian(image, sigma)


def otsu(image: np.ndarray) -> float:
    try:
        from skimage.filters import threshold_otsu
    except ImportError:
        counts, edges = np.histogram(image, bins=256)
        centres = (edges[:-1] + edges[1:]) / 2
        weight = np.cumsum(counts)
        mean = np.cumsum(counts * centres)
        total_weight, total_mean = weight[-1], mean[-1]
        background = weight[:-1]
        foreground = total_weight - background
        valid = (background > 0) & (foreground > 0)
        between = np.zeros_like(background, dtype=float)
        mu_b = mean[:-1][valid] / background[valid]
        mu_f = (total_mean - mean[:-1][valid]) / foreground[valid]
        between[valid] = background[valid] * foreground[valid] * (mu_b - mu_f) ** 2
        # Empty bins between the classes give a plateau of maxima: take its middle.
        best = np.flatnonzero(np.isclose(between, between.max(), rtol=1e-6))
        return float(centres[best].mean())
    return float(threshold_otsu(image))


def label(mask: np.ndarray) -> np.ndarray:
    try:
        from skimage.measure import label as sk_label
    except ImportError:
        from scipy.ndimage import label as nd_label

        return nd_label(mask)[0]
    return sk_label(mask)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    command, source, prefix = argv[0], Path(argv[1]), argv[2]
    if command == "preprocess":
        image = smooth(load_image(source))
        image = (image - image.min()) / (np.ptp(image) or 1.0)
        np.save(f"{prefix}_preprocessed.npy", image)
        print(f"Image mean: {image.mean():.4f}")
    elif command == "segment":
        image = load_image(source)
        threshold = otsu(image)
        labels = label(image > threshold)
        np.save(f"{prefix}_labels.npy", labels)
        print(f"Otsu threshold: {threshold:.4f}")
        print(f"Objects segmented: {int(labels.max())}")
    elif command == "count":
        labels = np.load(source)
        print(f"Objects counted: {len(np.unique(labels[labels > 0]))}")
    elif command == "measure":
        labels = np.load(source)
        ids, areas = np.unique(labels[labels > 0], return_counts=True)
        rows = ["label,area"] + [f"{i},{a}" for i, a in zip(ids, areas, strict=True)]
        Path(f"{prefix}_measurements.csv").write_text("\n".join(rows) + "\n")
        print(f"Objects measured: {len(ids)}")
        print(f"Mean area: {areas.mean() if len(areas) else 0.0:.2f}")
    else:
        print(f"ERROR: unknown command {command!r}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
