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

from grader.instructor.grading.autograde import GradingPipelineError
from grader.instructor.grading.pipeline import Options, grade, print_summary
from grader.instructor.grading.sandbox import parse_size


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
    parser.add_argument("--workers", type=int, default=0, help="parallel notebooks (default: one per core)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--memory", default="2G", help="memory cap per notebook (default 2G)")
    parser.add_argument(
        "--cell-timeout", type=int, help="seconds per cell (default: the course's Execute.timeout)"
    )
    parser.add_argument(
        "--notebook-timeout", type=float, default=1800.0, help="seconds per notebook (default 1800)"
    )
    parser.add_argument("--force", action="store_true", help="regrade everything, not only what changed")
    parser.add_argument(
        "--output", type=Path, help="where grades.csv and the report go (default: COURSE/grading)"
    )
    parser.add_argument("--no-feedback", action="store_true", help="do not write feedback HTML")
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
        parse_size(args.memory)
    except ValueError:
        print(f"backprop-grade: --memory {args.memory!r} is not a size like 2G or 512M", file=sys.stderr)
        return 2
    options = Options(
        course_dir=args.course_dir,
        assignment=args.assignment,
        submissions=args.submissions,
        workers=args.workers,
        scheduler=args.scheduler,
        memory=args.memory,
        cell_timeout=args.cell_timeout,
        notebook_timeout=args.notebook_timeout,
        force=args.force,
        sandbox="require" if args.require_sandbox else "none" if args.no_sandbox else "auto",
        output_dir=args.output,
        feedback=not args.no_feedback,
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
