"""backprop-repair: for plain nbgrader users, every submitted notebook of an assignment aligned with
its release in submitted/ (grading/repair.py does the aligning; backprop-grade repairs as it grades).

    backprop-repair COURSE_DIR ASSIGNMENT   # exit code 1: some notebook could not be aligned
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import nbformat

from grader.instructor.grading.autograde import Course
from grader.instructor.grading.repair import NotThisNotebook, align


def repair_submitted(course_dir: Path, assignment: str, say=print) -> int:
    """Align every submitted notebook of `assignment` with its release, in place (the original
    kept beside it as NAME.ipynb.orig); returns how many notebooks could not be aligned."""
    course = Course(Path(course_dir))
    submitted = Path(course.coursedir.format_path(course.coursedir.submitted_directory, ".", ".")).resolve()
    failed = 0
    for path in sorted(submitted.glob(f"*/{assignment}/*.ipynb")):
        release = course.release_notebook(assignment, path.stem)
        student = path.parent.parent.name
        if release is None:
            raise FileNotFoundError(f"{assignment} has no released {path.name}: run "
                                    f"`nbgrader generate_assignment {assignment}` first")
        try:
            done = align(nbformat.read(path, as_version=4), release)
        except NotThisNotebook as err:
            failed += 1
            say(f"{student} {path.name}: NOT REPAIRED, grade it by hand: {err}")
            continue
        if done.repairs:
            shutil.copy2(path, path.with_name(path.name + ".orig"))
            nbformat.write(done.notebook, path)
            say(f"{student} {path.name}: " + "; ".join(done.repairs))
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="backprop-repair",
        description="Align damaged submissions with their release, in submitted/, for plain nbgrader.")
    parser.add_argument("course_dir", type=Path)
    parser.add_argument("assignment")
    args = parser.parse_args(argv)
    try:
        failed = repair_submitted(args.course_dir, args.assignment)
    except FileNotFoundError as err:
        print(f"repair: {err}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
