"""Lesson 09 (convolution): the experiments (receptive fields, the tiny conv net) and their views."""
