"""Lesson 10 (the vanilla RNN): the checks, their seeded problems and the PyTorch references."""
