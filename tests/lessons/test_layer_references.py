"""grader.lessons.layers.references: lesson 04's referees against plain NumPy, inputs untouched."""

import numpy as np

from grader.lessons.layers.references import reference_affine, reference_affine_relu


def test_reference_affine_flattens_each_example_and_adds_the_bias():
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(3, 2, 4)), rng.normal(size=(8, 5)), rng.normal(size=5)
    copies = x.copy(), w.copy(), b.copy()
    out = reference_affine(x, w, b)
    assert out.shape == (3, 5) and out.dtype == np.float64
    np.testing.assert_allclose(out, x.reshape(3, 8) @ w + b, rtol=1e-13)
    relu = np.maximum(0, x.reshape(3, 8) @ w + b)
    np.testing.assert_allclose(reference_affine_relu(x, w, b), relu, rtol=1e-13)
    assert all(np.array_equal(a, c) for a, c in zip((x, w, b), copies, strict=True))


def test_reference_affine_takes_integer_inputs_as_float64():
    out = reference_affine(np.arange(6).reshape(2, 3), np.eye(3, 2, dtype=int), np.zeros(2, dtype=int))
    np.testing.assert_array_equal(out, [[0.0, 1.0], [3.0, 4.0]])
