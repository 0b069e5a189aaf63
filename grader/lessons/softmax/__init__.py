"""Lesson 05 (softmax and cross-entropy): the true upstream gradients its step checks feed in."""
