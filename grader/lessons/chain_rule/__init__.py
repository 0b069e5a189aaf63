"""Lesson 02 (the chain rule): the checks of the hand-run circuits and the mistakes they name."""
