"""Boo for PyTorch (placeholder while the package is assembled)."""
from . import _boo
