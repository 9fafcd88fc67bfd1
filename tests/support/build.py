"""The checkout, for the tests of packaging and of the image's build context."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout
