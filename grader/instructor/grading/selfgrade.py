"""backprop-selfgrade: grade your own notebook against the full hidden tests.

    backprop-selfgrade exercises/01_derivatives/01_derivatives.ipynb

For self-learners (Binder or a local clone): the notebook is graded exactly as in a class —
same nbgrader settings, same hidden tests (from the repository's course/ folder), same
sandbox when bubblewrap is available, same feedback page — in a throw-away course folder.
It prints one line per graded cell and writes NOTEBOOK-feedback.html next to the notebook.
(In a class, instructors do not hand out course/: it holds the hidden tests.)
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from grader.instructor.grading.autograde import GradingPipelineError
from grader.instructor.grading.pipeline import Options, grade

from .. import notebook_cells

REPO = Path(__file__).resolve().parents[3]
STUDENT = "me"


def _grade_ids(path: Path) -> set[str]:
    nb = nbformat.read(path, as_version=4)
    return {notebook_cells.grade_id(c) for c in nb.cells} - {None}


def find_target(nb_path: Path, course: Path, assignment: str | None = None) -> tuple[str, str]:
    """(assignment, notebook) a notebook belongs to: by file name (also as Colab's "Copy of ..."),
    else by its graded cell ids, else, given `assignment`, that assignment's only notebook."""
    from grader.instructor.grading.intake import tool_name

    sources = sorted(course.glob(f"{assignment or '*'}/*.ipynb")) if course.is_dir() else []
    stem = tool_name(re.sub(r"(-feedback|-checkpoint|\s*\(\d+\)|-\d+)$", "", nb_path.stem))
    by_name = [p for p in sources if p.stem == stem]
    if len(by_name) == 1:
        return by_name[0].parent.name, stem
    ids = _grade_ids(nb_path)
    best, overlap = None, 0
    for path in sources:
        common = len(ids & _grade_ids(path))
        if common > overlap:
            best, overlap = path, common
    if best is None and assignment and len(sources) == 1:
        best = sources[0]
    if best is None:
        raise GradingPipelineError(f"{nb_path.name} matches no notebook of {course}")
    return best.parent.name, best.stem


def selfgrade(
    nb_path: Path,
    course: Path = REPO / "course",
    assignment: str | None = None,
    feedback_path: Path | None = None,
    sandbox: str = "auto",
    quiet: bool = True,
) -> dict:
    """Grade one notebook; returns {"cells": [(grade_id, score, max, message)], "score", "max_score",
    "feedback": path, "summary": Summary}."""
    from grader.instructor.nbgrader_env import nbgrader_api

    nb_path = Path(nb_path).resolve()
    course = Path(course).resolve()
    config = course.parent / "nbgrader_config.py"
    if not course.is_dir() or not config.is_file():
        raise GradingPipelineError(
            f"{course} with ../nbgrader_config.py is needed (the hidden tests): run this in a clone "
            "of the course repository, or pass --course"
        )
    found_assignment, notebook = find_target(nb_path, course, assignment)
    assignment = assignment or found_assignment
    with tempfile.TemporaryDirectory(prefix="selfgrade-") as tmp:
        root = Path(tmp)
        shutil.copytree(course / assignment, root / "course" / assignment)
        shutil.copy(config, root / "nbgrader_config.py")
        for catalogue in sorted((course.parent / "translations").glob(f"*/{assignment}.po")):
            # the lesson's editions: their plain cells are the instructor's code, as the English ones
            (root / "translations" / catalogue.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(catalogue, root / "translations" / catalogue.parent.name / catalogue.name)
        api = nbgrader_api(root, db_url=f"sqlite:///{root / 'gradebook.db'}")
        made = api.generate_assignment(assignment, force=True, create=True)
        if not made["success"]:
            raise GradingPipelineError(f"could not prepare {assignment}:\n{made['log']}")
        target = root / "submitted" / STUDENT / assignment
        target.mkdir(parents=True)
        shutil.copy(nb_path, target / f"{notebook}.ipynb")
        summary = grade(
            Options(
                course_dir=root,
                assignment=assignment,
                workers=1,
                sandbox=sandbox,
                progress=(lambda line: None) if quiet else None,
                warn_unsandboxed=False,
            )
        )
        if summary.failed:
            raise GradingPipelineError(f"grading failed: {summary.failed[0][2]}")
        graded = nbformat.read(root / "autograded" / STUDENT / assignment / f"{notebook}.ipynb", as_version=4)
        from grader.instructor.grading.feedback import hidden_lines, scrub_notebook

        scrub_notebook(graded, hidden_lines(graded))
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
            sub = gb.find_submission_notebook(notebook, assignment, STUDENT)
            scores = {g.name: (float(g.score), float(g.max_score)) for g in sub.grades}
        cells = []
        for cell in graded.cells:
            gid = notebook_cells.grade_id(cell)
            if cell.cell_type == "code" and gid in scores:
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                message = f"{errors[0]['ename']}: {errors[0]['evalue']}" if errors else ""
                cells.append((gid, *scores[gid], message))
        html = root / "feedback" / STUDENT / assignment / f"{notebook}.html"
        out = feedback_path or nb_path.with_name(f"{nb_path.stem}-feedback.html")
        if html.is_file():
            shutil.copy(html, out)
        return {
            "assignment": assignment,
            "cells": cells,
            "score": sum(c[1] for c in cells),
            "max_score": sum(c[2] for c in cells),
            "feedback": out if html.is_file() else None,
            "summary": summary,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="backprop-selfgrade", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--assignment", help="default: from the file name or the graded cells")
    parser.add_argument("--course", type=Path, default=REPO / "course", help="folder with the hidden tests")
    parser.add_argument("--feedback", type=Path, help="where to write the feedback page")
    parser.add_argument("--no-sandbox", action="store_true")
    args = parser.parse_args(argv)
    if not args.notebook.is_file():
        print(f"backprop-selfgrade: {args.notebook} does not exist", file=sys.stderr)
        return 2
    print(f"grading {args.notebook} against the hidden tests (about a minute)...", flush=True)
    try:
        result = selfgrade(
            args.notebook,
            args.course,
            args.assignment,
            args.feedback,
            sandbox="none" if args.no_sandbox else "auto",
        )
    except GradingPipelineError as err:
        print(f"backprop-selfgrade: {err}", file=sys.stderr)
        return 2
    for gid, score, max_score, message in result["cells"]:
        mark = "✓" if score >= max_score else "✗"
        print(f"{mark} {gid:<45} {score:g}/{max_score:g}")
        if message and score < max_score:
            print(f"    {message[:400]}")
    print(f"\n{result['assignment']}: {result['score']:g} / {result['max_score']:g} points")
    if result["feedback"]:
        print(f"feedback: {result['feedback']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
