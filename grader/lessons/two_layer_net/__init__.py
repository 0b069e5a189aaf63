"""Lesson 06 (a two-layer net): the course's layers (PyTorch-backed building blocks), the checks of
the network's gradients and of the training loop, the plots of the spiral, and the XOR search."""
