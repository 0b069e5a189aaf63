import sys
from pathlib import Path

# `tests.nbgrader_harness` and friends import as a package from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _cache_alembic_head() -> None:
    """Ask `alembic` for the gradebook schema's head once per test process, not once per course.

    nbgrader stamps every new gradebook with `alembic heads`, a subprocess that takes ~2 s; the
    suite makes dozens of scratch courses. The answer depends only on the installed nbgrader, so
    the first call runs the real command and later ones reuse its answer.
    """
    import functools

    import nbgrader.api

    nbgrader.api.get_alembic_version = functools.cache(nbgrader.api.get_alembic_version)


_cache_alembic_head()


def _gradebooks_without_fsync() -> None:
    """The suite's scratch gradebooks skip SQLite's fsync at each commit (PRAGMA synchronous=OFF).

    nbgrader commits about a hundred times to make one assignment and again for every graded
    notebook, and each commit waits ~20 ms for the disk: seconds per scratch course, spent with
    the core idle. Without the fsync a commit is as safe against a crashed process as before (the
    operating system holds the data); only a crashed machine could lose it, which a scratch
    gradebook need not survive. Engines of this process and of the processes forked from it
    (the grading pipeline's workers) are covered; the toolkit itself keeps SQLite's default.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    @event.listens_for(Engine, "connect")
    def _no_fsync(dbapi_connection, _record) -> None:
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA synchronous=OFF")
            cursor.close()


_gradebooks_without_fsync()


def _warm_kernels() -> None:
    """Kernels forked from a process that imported numpy, torch and matplotlib once
    (tests/warm_kernels.py); `BACKPROP_COLD_KERNELS=1` starts every kernel cold instead."""
    import os

    if not os.environ.get("BACKPROP_COLD_KERNELS"):
        from tests import warm_kernels

        warm_kernels.install()


_warm_kernels()


def pytest_unconfigure(config) -> None:
    from tests import warm_kernels

    warm_kernels.shutdown()


# Longest first: with two workers, a minute-long test collected last leaves one core idle while
# it runs. These modules start kernels for tens of seconds per test; the rest take milliseconds.
_LONG_FIRST = ("tests/grading/test_liars.py", "tests/grading/pipeline/", "tests/grading/test_feedback.py",
               "tests/front_ends/browser/", "tests/grading/test_nbgrader_settings.py",
               "tests/grading/test_solution_and_release.py", "tests/cases/test_corpus.py",
               "tests/cases/test_kernel_matches_nbgrader.py")


def _rank(item) -> int:
    return next((i for i, prefix in enumerate(_LONG_FIRST) if item.nodeid.startswith(prefix)),
                len(_LONG_FIRST))


def pytest_collection_modifyitems(config, items) -> None:
    items.sort(key=_rank)  # stable: the order inside a module is kept


# Tests that share an expensive fixture (the browser's JupyterLab, the pipeline's graded class) or
# start their own parallel workers run on one xdist worker; every other test is scheduled alone.
_ONE_WORKER = ("tests/grading/pipeline/", "tests/front_ends/browser/")


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`, grouped by folder.

    xdist 3.8's own loadgroup tags grouped tests by setting `item._nodeid`, which pytest 9 no
    longer reads (a node's id lives in `item._id`), so its `xdist_group` marks group nothing. This
    scheduler groups by the node id's folder instead, which the controller knows without marks.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FolderScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return next((prefix for prefix in _ONE_WORKER if nodeid.startswith(prefix)), nodeid)

    return FolderScheduling(config, log)
