import pytest


def pytest_collection_modifyitems(config, items):
    """The pipeline tests start kernels (they run on one xdist worker: tests/conftest.py)."""
    for item in items:
        if "grading_pipeline" in str(item.fspath):
            item.add_marker(pytest.mark.slow)
