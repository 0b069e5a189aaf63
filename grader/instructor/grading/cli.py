"""backprop-grade: grade a whole class in one command.

    backprop-grade 01_derivatives submissions.zip          # an LMS download
    backprop-grade all ~/inbox/                             # a folder, every assignment
    backprop-grade 02_chain_rule                            # what is already in submitted/
    backprop-grade all --scheduler tcp://10.0.0.5:8786      # on a Dask cluster

Run it in the nbgrader course folder (or pass --course-dir). It copies the submissions into
submitted/, executes every notebook in parallel in a sandbox, autogrades with nbgrader (the
gradebook is updated as `nbgrader autograde` would), writes feedback/, and writes
grading/grades.csv and grading/report.{md,html}. Re-running grades only new or changed
submissions; --force regrades all. See docs/instructors.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from traitlets import TraitError

from grader.instructor.grading.autograde import GradingPipelineError
from grader.instructor.grading.pipeline import Options, grade, print_summary
from grader.instructor.grading.settings import BackpropGrade, course_settings


def _help(name: str) -> str:
    trait = BackpropGrade.class_traits()[name]
    where = f"c.BackpropGrade.{name} in nbgrader_config.py"
    return f"{trait.help} (default: {where}, else {trait.default_value!r})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="backprop-grade",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument("assignment", help="assignment name (e.g. 01_derivatives) or `all`")
    parser.add_argument(
        "submissions",
        nargs="?",
        type=Path,
        help="folder or .zip of submissions (default: the course's submitted/)",
    )
    parser.add_argument(
        "--course-dir", type=Path, default=Path("."), help="nbgrader course folder (default: .)"
    )
    # Unset options come from the course's nbgrader_config.py (c.BackpropGrade), else the defaults
    # of grading/settings.py: the help says both.
    parser.add_argument("--workers", type=int, help=_help("workers"))
    parser.add_argument("--scheduler", metavar="ADDRESS", help=_help("scheduler"))
    parser.add_argument("--memory", help=_help("memory"))
    parser.add_argument(
        "--cell-timeout", type=int, help="seconds per cell (default: the course's Execute.timeout)"
    )
    parser.add_argument("--notebook-timeout", type=float, help=_help("notebook_timeout"))
    parser.add_argument("--force", action="store_true", help="regrade everything, not only what changed")
    parser.add_argument(
        "--output", type=Path, help="where grades.csv and the report go (default: COURSE/grading)"
    )
    parser.add_argument("--no-feedback", action="store_true", help="do not write feedback HTML "
                        "(c.BackpropGrade.feedback = False)")
    sand = parser.add_mutually_exclusive_group()
    sand.add_argument(
        "--require-sandbox",
        action="store_true",
        help="fail instead of grading unsandboxed when bubblewrap is not available",
    )
    sand.add_argument("--no-sandbox", action="store_true", help="run kernels unsandboxed (loudly)")
    parser.add_argument("--quiet", action="store_true", help="only the final summary")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = course_settings(args.course_dir)
        if args.memory is not None:
            settings.memory = args.memory
    except TraitError as err:
        print(f"backprop-grade: {err}", file=sys.stderr)
        return 2
    sandbox = "require" if args.require_sandbox else "none" if args.no_sandbox else settings.sandbox
    options = Options(
        course_dir=args.course_dir,
        assignment=args.assignment,
        submissions=args.submissions,
        workers=settings.workers if args.workers is None else args.workers,
        scheduler=args.scheduler or settings.scheduler,
        memory=settings.memory,
        cell_timeout=args.cell_timeout,
        notebook_timeout=args.notebook_timeout if args.notebook_timeout is not None
        else settings.notebook_timeout,
        force=args.force,
        sandbox=sandbox,
        output_dir=args.output,
        feedback=settings.feedback and not args.no_feedback,
        progress=(lambda line: None) if args.quiet else None,
    )
    try:
        summary = grade(options)
    except GradingPipelineError as err:
        print(f"backprop-grade: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nbackprop-grade: interrupted; what was graded is kept, run the same command to finish.",
            file=sys.stderr,
        )
        return 130
    print_summary(summary)
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main())
