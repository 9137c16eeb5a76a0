"""pytest setup for the boo package's tests (scripts/test.sh runs them with
build/python on PYTHONPATH)."""

import pytest
import torch

import boo


@pytest.fixture
def device(request):
    """Runs the test's torch CPU tensors on the Boo device given as the
    test's parameter ("cpu", "emu:gfx942", ...), then goes back."""
    spec = getattr(request, "param", "cpu")
    boo.set_device(spec)
    yield spec
    boo.set_device(None)


@pytest.fixture
def seeded():
    torch.manual_seed(1234)


def count_launches(fn):
    """(fn's result, the Boo launches it made)."""
    before = boo.stats()["launches"]
    result = fn()
    return result, boo.stats()["launches"] - before
