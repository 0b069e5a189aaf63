"""Lesson 06 (a two-layer net): the course's layers (PyTorch-backed building blocks), the
plots of the spiral, and the XOR search."""
