"""Benchmark: grade a generated class three ways and compare wall times.

    .venv/bin/python benchmarks/grade_class.py                 # 40 students, 01 + 02
    .venv/bin/python benchmarks/grade_class.py --students 8    # a quick look

The class: N students, each submitting every assignment (default 01_derivatives and
02_chain_rule, one notebook each), with a deterministic mix of correct answers (the
solution), partially wrong ones (the solution with one exercise left as released, a different
one per student) and broken ones (the untouched release, or a first solution cell that raises).

Three runs on identical copies of the class:
1. backprop-grade (this package): parallel, sandboxed, feedback and report included;
2. `nbgrader autograde ASSIGNMENT` for every assignment, the plain sequential baseline;
3. the floor: the same submitted notebooks executed by plain nbclient in a process pool with
   the same number of workers (no sandbox, no nbgrader, no gradebook, no feedback).

Printed: the three wall times, ours / floor and nbgrader / ours. Not a test: it takes minutes
(about half an hour for 40 students on 2 cores) and the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import nbformat  # noqa: E402

from grader.instructor.nbgrader_env import ensure_venv_on_path, nbgrader_api  # noqa: E402
from grader.instructor.notebook_cells import fill_release, solution_sources  # noqa: E402


def make_class(root: Path, assignments: list[str], students: int) -> dict[str, int]:
    """A course in `root` with `students` submissions per assignment; returns the mix."""
    (root / "course").mkdir(parents=True)
    shutil.copy(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    api = nbgrader_api(root, db_url=f"sqlite:///{root / 'gradebook.db'}")
    mix = {"correct": 0, "partially wrong": 0, "broken": 0}
    for name in assignments:
        shutil.copytree(REPO / "course" / name, root / "course" / name)
        made = api.generate_assignment(name, force=True, create=True)
        assert made["success"], made["log"]
        source = nbformat.read(root / "course" / name / f"{name}.ipynb", as_version=4)
        release = nbformat.read(root / "exercises" / name / f"{name}.ipynb", as_version=4)
        solutions = solution_sources(source)
        stubs = solution_sources(release)
        for i in range(students):
            kind = ("correct", "partially wrong", "partially wrong", "correct", "broken")[i % 5]
            if kind == "correct":
                nb = fill_release(release, solutions)
            elif kind == "partially wrong":
                left = sorted(solutions)[i % len(solutions)]
                nb = fill_release(release, {**solutions, left: stubs[left]})
            elif i % 2:
                nb = release
            else:
                first = next(iter(solutions))
                nb = fill_release(release, {**solutions, first: "raise RuntimeError('not done yet')"})
            mix[kind] += 1
            folder = root / "submitted" / f"student{i:03d}" / name
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{name}.ipynb")
    return mix


def run_ours(root: Path, workers: int) -> float:
    from grader.instructor.grading.pipeline import Options, grade

    start = time.perf_counter()
    summary = grade(Options(course_dir=root, assignment="all", workers=workers, progress=lambda _: None))
    elapsed = time.perf_counter() - start
    assert not summary.failed, summary.failed
    return elapsed


def run_nbgrader(root: Path, assignments: list[str]) -> float:
    ensure_venv_on_path()
    nbgrader = str(Path(sys.executable).with_name("nbgrader"))
    start = time.perf_counter()
    for name in assignments:
        subprocess.run(
            [nbgrader, "autograde", name, "--force"],
            cwd=root,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return time.perf_counter() - start


def _execute(path: str, timeout: int) -> float:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="floor-") as scratch:
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": scratch}},
        ).execute()
    return time.perf_counter() - start


def run_floor(root: Path, workers: int, threads: int) -> float:
    paths = sorted(str(p) for p in (root / "submitted").glob("*/*/*.ipynb"))
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))  # what backprop-grade gives its kernels
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        list(pool.map(_execute, paths, [120] * len(paths)))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--assignments", nargs="+", default=["01_derivatives", "02_chain_rule"])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", type=Path, help="keep the generated courses here")
    args = parser.parse_args()
    threads = max(1, (os.cpu_count() or 1) // args.workers)
    base = Path(tempfile.mkdtemp(prefix="bench-grade-")) if args.keep is None else args.keep
    try:
        mix = make_class(base / "ours", args.assignments, args.students)
        for other in ("nbgrader", "floor"):
            shutil.copytree(base / "ours", base / other)
        n = args.students * len(args.assignments)
        print(
            f"class: {args.students} students x {len(args.assignments)} notebooks "
            f"({', '.join(args.assignments)}) = {n} notebooks; submissions: {mix}"
        )
        print(
            f"machine: {os.cpu_count()} cores, {args.workers} workers, load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        ours = run_ours(base / "ours", args.workers)
        print(f"backprop-grade (sandboxed, parallel, feedback + report): {ours:8.1f} s", flush=True)
        seq = run_nbgrader(base / "nbgrader", args.assignments)
        print(f"nbgrader autograde (sequential):                         {seq:8.1f} s", flush=True)
        floor = run_floor(base / "floor", args.workers, threads)
        print(
            f"floor: nbclient only, {args.workers} workers:                       {floor:8.1f} s", flush=True
        )
        print(f"speed-up over sequential nbgrader: {seq / ours:.2f}x (target >= 1.8x)")
        print(f"overhead over the floor:           {100 * (ours / floor - 1):+.0f} % (target <= +25 %)")
        print(f"load average after the runs: {os.getloadavg()[0]:.1f}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
