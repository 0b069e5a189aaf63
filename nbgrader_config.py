"""nbgrader settings for backprop-course (read by every `nbgrader` command run here)."""

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.course_id = "backprop-course"
# The instructor notebooks live in course/, the student release in exercises/.
c.CourseDirectory.source_directory = "course"
c.CourseDirectory.release_directory = "exercises"

# Gradient checks on a few thousand parameters take seconds, not minutes; a cell that
# needs longer is stuck (an infinite loop), and nbgrader interrupts it and goes on.
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True
# A graded kernel has nothing to save: stop it at once when its notebook is done instead of
# asking it to shut down and waiting (half a second per notebook, for a whole class).
c.Execute.shutdown_kernel = "immediate"
# Graded kernels print plain Python tracebacks (IPython's "Plain" mode: each frame's file, line
# and code) instead of IPython's default five highlighted lines around every frame. Feedback on
# a failed cell is shorter, and a traceback takes milliseconds instead of ~60 ms (stack_data and
# pygments): an untouched release fails dozens of cells.
c.Execute.extra_arguments = ["--InteractiveShell.xmode=Plain"]

# nbgrader gives zero to a test cell that wrote anything to stderr. In this course
# failures are exceptions; stderr only ever carries warnings (numpy RuntimeWarning,
# torch UserWarning), which must never cost a correct answer its points.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"[\s\S]"

# Keep a runaway print loop from producing a multi-megabyte notebook.
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100

# Feedback never shows the hidden tests (nbgrader shows them by default, nbgrader #917): their
# source is cleared, and tracebacks and outputs that quote a hidden line are scrubbed.
# grader/instructor/grading/feedback.py; tested by tests/grading/test_feedback.py.
from grader.instructor.grading.feedback import FEEDBACK_PREPROCESSORS  # noqa: E402  (the one list)

c.GenerateFeedback.preprocessors = FEEDBACK_PREPROCESSORS
