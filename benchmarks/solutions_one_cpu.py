"""Benchmark: every solved notebook on ONE CPU, as Binder runs it: wall time and peak memory.

    taskset -c 0 .venv/bin/python benchmarks/solutions_one_cpu.py         # every lesson
    taskset -c 0 .venv/bin/python benchmarks/solutions_one_cpu.py 07 11   # some lessons
    taskset -c 0 .venv/bin/python benchmarks/solutions_one_cpu.py --edition pt [07 ...]  # solutions/pt/

Binder gives one CPU and 2 GB; the course's budget is 60 s and 1.5 GB per solution. Each
notebook of solutions/ is executed by nbclient with one BLAS/OpenMP thread (what Binder's `start`
sets), while a thread samples the resident memory of the kernel and its children every 50 ms.
Printed: one line per lesson, then the slowest and the largest. Not a test: the figures depend
on the machine (run it pinned to one core with `taskset -c 0`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy, and inherited by the kernels

import nbformat  # noqa: E402
import psutil  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _tree_rss(pid: int) -> int:
    proc = psutil.Process(pid)
    return proc.memory_info().rss + sum(child.memory_info().rss for child in proc.children(recursive=True))


def run(path: Path) -> tuple[float, int]:
    """Execute one notebook. Returns (wall seconds, peak RSS in bytes of kernel + children)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(path.parent)}})
    peak, done = [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            provisioner = client.km.provisioner if client.km else None
            pid = getattr(provisioner, "pid", None)
            if pid:
                try:
                    peak[0] = max(peak[0], _tree_rss(pid))
                except psutil.Error:
                    pass
            done.wait(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.perf_counter()
    try:
        client.execute()
    finally:
        done.set()
        watcher.join()
    return time.perf_counter() - started, peak[0]


def main(prefixes: list[str]) -> int:
    base = REPO / "solutions"
    if prefixes[:1] == ["--edition"] and len(prefixes) >= 2:
        base, prefixes = base / prefixes[1], prefixes[2:]
    folders = sorted(p for p in base.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())
    chosen = [f for f in folders if not prefixes or f.name.startswith(tuple(prefixes))]
    if not chosen:
        print(f"no lesson of solutions/ starts with {' or '.join(prefixes)}", file=sys.stderr)
        return 2
    results = {}
    for folder in chosen:
        seconds, rss = run(folder / f"{folder.name}.ipynb")
        results[folder.name] = (seconds, rss)
        print(f"{folder.name:24s} {seconds:5.1f} s   peak {rss / 2**20:5.0f} MiB", flush=True)
    slowest = max(results, key=lambda n: results[n][0])
    largest = max(results, key=lambda n: results[n][1])
    print(f"slowest: {slowest} {results[slowest][0]:.1f} s; largest: {largest} "
          f"{results[largest][1] / 2**20:.0f} MiB (budget: 60 s, 1536 MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
