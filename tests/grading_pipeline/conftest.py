import pytest


def pytest_collection_modifyitems(config, items):
    """The pipeline tests run their own parallel workers: keep them on one xdist worker."""
    for item in items:
        if "grading_pipeline" in str(item.fspath):
            item.add_marker(pytest.mark.xdist_group("grading_pipeline"))
            item.add_marker(pytest.mark.slow)
