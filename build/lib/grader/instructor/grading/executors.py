"""Where the jobs run: a local process pool, or the workers of a Dask scheduler.

Both take `Job`s and hand back `(job, Result)` pairs as they finish; a worker that dies is
reported as a failed `Result` for its notebook (the rest of the class goes on).
"""

from __future__ import annotations

import time

from grader.instructor.grading.records import Job, Result


def crash_result(job: Job, reason: str) -> Result:
    """A notebook whose worker died or failed before it could report (host unknown)."""
    return Result.failed(job.key, reason, job.limits.sandbox.mode, host="?", seconds=0.0)


class LocalExecutor:
    """A process pool; a crashed worker is replaced and its job retried once."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers
        self._ctx = multiprocessing.get_context("fork")
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=self._ctx)
        self._jobs: dict = {}  # future -> (job, tries)
        self._retry_later: list[tuple[Job, int]] = []

    def submit(self, job: Job, tries: int = 0) -> None:
        from grader.instructor.grading.execute import run_job

        try:
            future = self._pool.submit(run_job, job)
        except Exception:  # the pool broke: start a new one
            self._restart()
            future = self._pool.submit(run_job, job)
        self._jobs[future] = (job, tries)

    def _restart(self) -> None:
        from concurrent.futures import ProcessPoolExecutor

        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx)

    def pending(self) -> int:
        return len(self._jobs)

    def done(self, timeout: float) -> list[tuple[Job, Result]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        if not self._jobs:
            return []
        finished, _ = wait(list(self._jobs), timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        broken = False
        for future in finished:
            job, tries = self._jobs.pop(future)
            try:
                out.append((job, future.result()))
            except BrokenProcessPool:
                broken = True
                if tries < 1:
                    self._retry_later.append((job, tries + 1))
                else:
                    out.append((job, crash_result(job, "the grading worker crashed twice on this notebook")))
            except Exception as err:  # pragma: no cover - run_job catches what students do
                out.append((job, crash_result(job, f"worker error: {type(err).__name__}: {err}")))
        if broken:
            self._resubmit_all()
        return out

    def _resubmit_all(self) -> None:
        """After a crash: a new pool, and every job of the old one submitted again."""
        self._restart()
        retry, self._retry_later = self._retry_later, []
        stranded = list(self._jobs.values())
        self._jobs.clear()
        for job, tries in retry + stranded:
            self.submit(job, tries)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class DaskExecutor:
    """The workers of a Dask distributed scheduler (`tcp://host:8786`)."""

    def __init__(self, address: str):
        from distributed import Client

        self.client = Client(address, timeout="30s")
        self.workers = max(
            1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info().get("workers", {}).values())
        )
        self._jobs: dict = {}  # future -> job

    def submit(self, job: Job, tries: int = 0) -> None:
        from grader.instructor.grading.execute import run_job

        key = "backprop-grade-" + "-".join(job.key) + f"-{time.monotonic_ns()}"
        future = self.client.submit(run_job, job, key=key, pure=False, retries=1)
        self._jobs[future] = job

    def pending(self) -> int:
        return len(self._jobs)

    def done(self, timeout: float) -> list[tuple[Job, Result]]:
        from distributed import wait

        if not self._jobs:
            return []
        try:
            finished, _ = wait(list(self._jobs), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        out = []
        for future in finished:
            job = self._jobs.pop(future)
            try:
                out.append((job, future.result()))
            except Exception as err:
                out.append((job, crash_result(job, f"Dask worker error: {type(err).__name__}: {err}")))
        return out

    def close(self) -> None:
        for future in self._jobs:
            future.cancel()
        self.client.close()
