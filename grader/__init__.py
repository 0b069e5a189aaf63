"""backprop-course toolkit."""

from .checks import CheckResult, check_close, check_gradient, check_layer
from .errors import BadReturnValue, CheckFailed, ToolkitInputError
from .hints import HINT_CODES, Hint, diagnose
from .numgrad import (
    eval_numerical_gradient,
    eval_numerical_gradient_array,
    grad_check_sparse,
    rel_error,
)

__all__ = [
    "HINT_CODES",
    "BadReturnValue",
    "CheckFailed",
    "CheckResult",
    "Hint",
    "ToolkitInputError",
    "check_close",
    "check_gradient",
    "check_layer",
    "diagnose",
    "eval_numerical_gradient",
    "eval_numerical_gradient_array",
    "grad_check_sparse",
    "rel_error",
]
