"""The real-browser suite: JupyterLab in headless Chromium (see test_widgets_in_browser.py)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: runs JupyterLab in a real headless Chromium (needs Debian's chromium; "
        "deselect with -m 'not browser')",
    )


import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can see whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
