"""Lesson 01 (derivatives): the checks of the numerical derivatives and nudges."""
