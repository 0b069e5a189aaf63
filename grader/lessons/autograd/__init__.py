"""Lesson 03 (autograd): the drawing of a computation graph."""
