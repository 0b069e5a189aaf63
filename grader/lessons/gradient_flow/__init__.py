"""Lesson 07 (gradient flow): the three interactive views and the exercises' checks.

Nothing here implements a graded function. The views *call* the student's functions, passed in
by the notebook (``xavier_init``, ``he_init``, ``dead_fraction``, ``layer_gradient_norms``) and
the activations the notebook defines; the dead-ReLU trainer gets its gradients from PyTorch's
autograd. While a student function is unfinished (it raises ``NotImplementedError``), the view
says so where its picture would be, and the notebook keeps running.

This module is what the notebook imports; the code lives in

- `grader.lessons.gradient_flow.views` — `GradientFlowExplorer`, `SaturationExplorer`,
  `DeadReluTrainer`, each a `LiveFigure` (`grader.lessons.live_figure`: controls that redraw
  one picture in place, with a static picture of the default state where no kernel runs);
- `grader.lessons.gradient_flow.experiments` — the numerical experiments behind them;
- `grader.lessons.student_calls` — `NotReady`, `call_student`: a student's function called
  from a view;
- `grader.lessons.gradient_flow.init_variance` — `check_init_variance`, `check_initialiser`;
- `grader.lessons.gradient_flow.checks` — the exercises' checks (against PyTorch or numerical
  gradients), which name the usual mistakes (`HINT_CODES`);
- `grader.lessons.gradient_flow.steady_variance` — what a layer does to a variance, measured, and
  the mistakes those measurements reveal.
"""

from __future__ import annotations

from ..live_figure import LiveFigure
from ..student_calls import NotReady, call_student
from .experiments import ACTIVATION_NAMES
from .init_variance import check_init_variance, check_initialiser
from .views import DeadReluTrainer, GradientFlowExplorer, SaturationExplorer

__all__ = [
    "ACTIVATION_NAMES",
    "DeadReluTrainer",
    "GradientFlowExplorer",
    "LiveFigure",
    "NotReady",
    "SaturationExplorer",
    "call_student",
    "check_init_variance",
    "check_initialiser",
]
