import pytest


def pytest_collection_modifyitems(config, items):
    """The pipeline tests start kernels (they run on one xdist worker: tests/conftest.py)."""
    for item in items:
        if "grading/pipeline" in item.nodeid:
            item.add_marker(pytest.mark.slow)
