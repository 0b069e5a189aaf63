"""Lesson 13 (the leaky abstraction): the references and hints of its checks."""
