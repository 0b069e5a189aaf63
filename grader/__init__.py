"""backprop-course toolkit."""

__course__ = "backprop-course"  # the lessons' bootstrap cell recognises this toolkit by this line

import sys as _sys

from . import figure_style as _figure_style
from . import figure_text as _figure_text
from . import trusted as _trusted
from .by_hand import AutogradForbidden, ForbiddenCall, by_hand, count_calls, forbid_calls, forward_first
from .checks import CheckResult, check_close, check_gradient, check_layer
from .errors import BadReturnValue, CheckFailed, ToolkitInputError
from .exercise import Exercise, Exercises, InputModified
from .hints import HINT_CODES, Hint, diagnose
from .i18n import returned_by, set_language, tr
from .numgrad import (
    eval_numerical_gradient,
    eval_numerical_gradient_array,
    grad_check_sparse,
    rel_error,
)
from .report_lines import show_hint
from .trusted import as_array, as_dict, as_float, as_items, verify_environment

__all__ = [
    "HINT_CODES",
    "AutogradForbidden",
    "BadReturnValue",
    "CheckFailed",
    "CheckResult",
    "Exercise",
    "Exercises",
    "Hint",
    "ForbiddenCall",
    "InputModified",
    "ToolkitInputError",
    "as_array",
    "as_dict",
    "as_float",
    "as_items",
    "by_hand",
    "check_close",
    "check_gradient",
    "check_layer",
    "count_calls",
    "diagnose",
    "eval_numerical_gradient",
    "eval_numerical_gradient_array",
    "forbid_calls",
    "forward_first",
    "grad_check_sparse",
    "rel_error",
    "set_language",
    "show_hint",
    "returned_by",
    "tr",
    "verify_environment",
]

# In a kernel, every figure a lesson displays is described in words (grader.figure_text), and its
# default lines differ by style as well as by a colour-vision-safe colour (grader.figure_style).
_figure_text.install()
_figure_style.install()

# From here on, rebinding numpy's, math's, the builtins' or the toolkit's functions is reported
# by every check (grader.trusted.verify_environment).
_trusted.seal(_sys.modules[__name__])
