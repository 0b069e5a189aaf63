"""Grading cases for 02_chain_rule: alternative correct solutions and typical mistakes.

Solution cells (grade_id): hand_trace, relu_neuron_backward, circuit_forward, circuit_backward.
Graded cells: test_trace_tanh, test_trace_product, test_trace_dx, test_trace_dy (1 point each),
test_relu_neuron_on (2), test_relu_neuron_off (1), test_circuit_forward (1),
test_circuit_backward_x (2), test_circuit_backward_y (2).

Each alternative replaces one solution cell and runs with the other cells of the instructor
solution, so an alternative `circuit_forward` keeps the cache keys that the solution's
`circuit_backward` reads ("x", "y", "a", "b", "d"), and an alternative `circuit_backward`
reads only keys the solution's `circuit_forward` writes.
"""

ALTERNATIVES = {
    # Numbers worked out on paper and rounded to 4 decimals (and an int for dL_dd).
    "hand_trace": """\
# The backward pass at x = 0.5, y = 1.4, right to left.
dL_dd = 1
dL_dc = 0.2444
dL_da = 0.4644
dL_db = 0.1711
dL_dx = 1.8212
dL_dy = 0.4033
""",
    # The gate as a 0/1 factor, recomputing z; returns a numpy array instead of a tuple.
    "relu_neuron_backward": """\
def relu_neuron_backward(df, cache):
    open_gate = float(cache["w"] * cache["x"] + cache["b"] > 0)
    dz = open_gate * df
    return np.array([dz * cache["w"], dz * cache["x"], dz])
""",
    # numpy's tanh, a tuple unpacking, and extra keys in the cache.
    "circuit_forward": """\
def circuit_forward(x, y):
    a, b = x * y, x + y
    c = a * b
    d = np.tanh(c)
    cache = dict(x=x, y=y, a=a, b=b, c=c, d=d)
    return d + x, cache
""",
    # The paths summed in closed form from x and y alone, with tanh'(c) = 1 / cosh(c)^2.
    "circuit_backward": """\
def circuit_backward(dL, cache):
    x, y = cache["x"], cache["y"]
    a, b = x * y, x + y
    sech2 = 1.0 / math.cosh(a * b) ** 2
    dx = dL * (1.0 + sech2 * (b * y + a))   # direct + via a + via b
    dy = dL * sech2 * (b * x + a)           # via a + via b
    return dx, dy
""",
}

MISTAKES = [
    {
        "name": "hand trace: tanh slope from c",
        "cells": {
            "hand_trace": """\
dL_dd = 1.0
dL_dc = dL_dd * (1 - c**2)
dL_da = dL_dc * b
dL_db = dL_dc * a
dL_dx = dL_da * y + dL_db + 1.0
dL_dy = dL_da * x + dL_db
""",
        },
        # the later steps are right given this dL_dc: error carried forward keeps their points
        "must_fail": ["test_trace_tanh"],
    },
    {
        "name": "relu gradient passed when the unit is off",
        "cells": {
            "relu_neuron_backward": """\
def relu_neuron_backward(df, cache):
    dz = df
    return dz * cache["w"], dz * cache["x"], dz
""",
        },
        "must_fail": ["test_relu_neuron_off"],
    },
    {
        "name": "relu neuron: x and w swapped in the product rule",
        "cells": {
            "relu_neuron_backward": """\
def relu_neuron_backward(df, cache):
    dz = df if cache["z"] > 0 else 0.0
    dx = dz * cache["x"]
    dw = dz * cache["w"]
    return dx, dw, dz
""",
        },
        "must_fail": ["test_relu_neuron_on"],
    },
    {
        "name": "overwrite at fan-out: direct path x -> L lost",
        "cells": {
            "circuit_backward": """\
def circuit_backward(dL, cache):
    x, y, a, b, d = cache["x"], cache["y"], cache["a"], cache["b"], cache["d"]
    dx = dL                 # the direct edge L = d + x
    dc = (1 - d**2) * dL
    da = b * dc
    db = a * dc
    dx = y * da             # `=` where `+=` was needed
    dx += db
    dy = x * da + db
    return dx, dy
""",
        },
        "must_fail": ["test_circuit_backward_x"],
    },
    {
        "name": "overwrite at fan-out: y's path through a lost",
        "cells": {
            "circuit_backward": """\
def circuit_backward(dL, cache):
    x, y, a, b, d = cache["x"], cache["y"], cache["a"], cache["b"], cache["d"]
    dc = (1 - d**2) * dL
    da = b * dc
    db = a * dc
    dx = dL + y * da + db
    dy = x * da
    dy = db                 # `=` where `+=` was needed
    return dx, dy
""",
        },
        "must_fail": ["test_circuit_backward_y"],
    },
    {
        "name": "tanh slope taken from c instead of d",
        "cells": {
            "circuit_forward": """\
def circuit_forward(x, y):
    a = x * y
    b = x + y
    c = a * b
    d = math.tanh(c)
    L = d + x
    cache = {"x": x, "y": y, "a": a, "b": b, "c": c, "d": d}
    return L, cache
""",
            "circuit_backward": """\
def circuit_backward(dL, cache):
    x, y, a, b, c = cache["x"], cache["y"], cache["a"], cache["b"], cache["c"]
    dc = (1 - c**2) * dL    # should be 1 - d**2 = 1 - tanh(c)**2
    da = b * dc
    db = a * dc
    dx = dL + y * da + db
    dy = x * da + db
    return dx, dy
""",
        },
        "must_fail": ["test_circuit_backward_x", "test_circuit_backward_y"],
    },
    {
        "name": "x and y swapped in the product rule of a = x*y",
        "cells": {
            "circuit_backward": """\
def circuit_backward(dL, cache):
    x, y, a, b, d = cache["x"], cache["y"], cache["a"], cache["b"], cache["d"]
    dc = (1 - d**2) * dL
    da = b * dc
    db = a * dc
    dx = dL + x * da + db
    dy = y * da + db
    return dx, dy
""",
        },
        "must_fail": ["test_circuit_backward_x", "test_circuit_backward_y"],
    },
    {
        "name": "hard-coded answer from the hand trace at x=0.5, y=1.4",
        "cells": {
            "circuit_backward": """\
def circuit_backward(dL, cache):
    return 1.8212028053161122 * dL, 0.403269234753448 * dL
""",
        },
        "must_fail": ["test_circuit_backward_x", "test_circuit_backward_y"],
    },
]
