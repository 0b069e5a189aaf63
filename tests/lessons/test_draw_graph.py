"""grader.lessons.autograd.draw_graph: trace, layout and a matplotlib-only picture of a computation graph."""

import math
import os
import subprocess
import sys
import textwrap

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.patches import Circle, FancyBboxPatch  # noqa: E402

from grader.lessons.autograd.draw_graph import GraphDrawing, draw_graph, layout, trace  # noqa: E402


class V:
    """The smallest Value-like node: what draw_graph reads, nothing more."""

    def __init__(self, data, parents=(), op="", label=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(parents)
        self._op = op
        self.label = label

    def __add__(self, other):
        return V(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return V(self.data * other.data, (self, other), "*")

    def tanh(self):
        return V(math.tanh(self.data), (self,), "tanh")


def circuit():
    """Notebook 02's circuit: x feeds a and b (depth 1) and L (the last operation)."""
    x, y = V(0.5, label="x"), V(1.4, label="y")
    a = x * y
    b = x + y
    c = a * b
    d = c.tanh()
    L = d + x
    return dict(x=x, y=y, a=a, b=b, c=c, d=d, L=L)


def test_the_picture_is_told_in_words_node_by_node():
    g = circuit()
    words = draw_graph(g["L"], names={g["a"]: "a"}).words()
    assert words.startswith("Computation graph of 7 values, each after the values it is made from: ")
    assert "x, an input: data 0.5000, grad " in words
    assert "a = * of x, y: data 0.7000, grad " in words
    assert "= + of node 6, x: data 1.3692, grad " in words  # d has no name: its place in the order


def test_trace_is_topological_and_counts_every_use():
    g = circuit()
    nodes, edges = trace(g["L"])
    assert len(nodes) == 7 and nodes[-1] is g["L"]
    assert len({id(n) for n in nodes}) == 7
    index = {id(n): i for i, n in enumerate(nodes)}
    for parent, child in edges:
        assert index[id(parent)] < index[id(child)]
    assert len(edges) == 9  # a, b, c: two each; d: one; L: two
    uses_of_x = [e for e in edges if e[0] is g["x"]]
    assert len(uses_of_x) == 3


def test_trace_keeps_both_edges_of_a_node_used_twice():
    a = V(3.0)
    sq = a * a
    nodes, edges = trace(sq)
    assert nodes == [a, sq]
    assert edges == [(a, sq), (a, sq)]


def test_trace_is_iterative_on_a_deep_chain():
    v = V(0.1)
    for _ in range(5 * sys.getrecursionlimit()):
        v = v.tanh()
    nodes, edges = trace(v)
    assert len(nodes) == 5 * sys.getrecursionlimit() + 1
    assert len(edges) == len(nodes) - 1


def test_layout_columns_are_depths_and_rows_do_not_collide():
    g = circuit()
    nodes, edges = trace(g["L"])
    grid = layout(nodes, edges)
    col = {name: grid[id(v)][0] for name, v in g.items()}
    assert col == dict(x=0, y=0, a=1, b=1, c=2, d=3, L=4)
    cells = list(grid.values())
    assert len(set(cells)) == len(cells)
    for parent, child in edges:
        assert grid[id(parent)][0] < grid[id(child)][0]


def test_layout_puts_a_late_constant_next_to_its_consumer():
    x = V(2.0)
    one = V(1.0)
    out = x.tanh().tanh().tanh() + one
    nodes, edges = trace(out)
    grid = layout(nodes, edges)
    assert grid[id(x)][0] == 0
    assert grid[id(one)][0] == grid[id(out)][0] - 1


def test_layout_is_deterministic():
    g1, g2 = circuit(), circuit()
    l1 = layout(*trace(g1["L"]))
    l2 = layout(*trace(g2["L"]))
    assert list(l1.values()) == list(l2.values())


def test_draw_shows_every_node_with_data_and_grad():
    g = circuit()
    g["L"].grad, g["x"].grad = 1.0, 1.8212028
    names = {g["a"]: "a", g["L"]: "L"}
    drawing = draw_graph(g["L"], names=names, show_order=True, title="circuit")
    assert isinstance(drawing, GraphDrawing)
    boxes = [p for p in drawing.ax.patches if isinstance(p, FancyBboxPatch)]
    circles = [p for p in drawing.ax.patches if isinstance(p, Circle)]
    assert len(boxes) == 7
    assert len(circles) == 5  # one per operation
    texts = [t.get_text() for t in drawing.ax.texts]
    assert "x\ndata 0.5000\ngrad 1.8212" in texts  # the node's own label
    assert "a\ndata 0.7000\ngrad 0.0000" in texts  # a name from `names`
    assert "L\ndata 1.3692\ngrad 1.0000" in texts
    assert "#1" in texts and "#7" in texts
    assert {"+", "*", "tanh"} <= set(texts)
    assert "circuit" in texts


def test_draw_returns_a_png_shown_once():
    drawing = draw_graph(circuit()["L"])
    png, metadata = drawing._repr_png_()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert metadata == {"alt": drawing.words(), "legibility": []}
    assert repr(drawing) == "<computation graph: 7 nodes, 9 edges>"
    # Not a pyplot figure: the inline backend does not show it a second time.
    import matplotlib.pyplot as plt

    assert drawing.fig not in [plt.figure(n) for n in plt.get_fignums()]


def test_draw_into_given_axes_leaves_showing_to_the_caller():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        drawing = draw_graph(circuit()["L"], ax=ax)
        assert drawing.ax is ax and drawing.fig is fig
        assert drawing._repr_png_() is None
    finally:
        plt.close(fig)


def test_names_can_be_pairs_and_numbers_can_be_formatted():
    x = V(1.0)
    y = x.tanh()
    drawing = draw_graph(y, names=[(x, "input")], fmt="{:.2f}")
    texts = [t.get_text() for t in drawing.ax.texts]
    assert "input\ndata 1.00\ngrad 0.00" in texts
    assert "data 0.76\ngrad 0.00" in texts


def test_a_long_edge_is_routed_around_boxes():
    g = circuit()
    drawing = draw_graph(g["L"])
    # x -> L crosses the columns of a/b, c and d: it is a path, not a straight arrow.
    paths = [p for p in drawing.ax.patches if getattr(p, "_path_original", None) is not None]
    assert len(paths) == 1


def test_too_many_nodes_is_refused_with_advice():
    v = V(0.0)
    for _ in range(200):
        v = v.tanh()
    with pytest.raises(ValueError, match="201 nodes"):
        draw_graph(v)
    assert len(draw_graph(v, max_nodes=201).nodes) == 201


def test_needs_no_system_binary():
    """Draw in a fresh interpreter with an empty PATH and process spawning disabled."""
    code = textwrap.dedent(
        """
        import os, subprocess, sys
        import matplotlib
        matplotlib.use("Agg")
        sys.path.insert(0, "tests/lessons")
        from test_draw_graph import circuit
        from grader.lessons.autograd.draw_graph import draw_graph

        def refuse(*args, **kwargs):
            raise AssertionError(f"tried to run {args!r}")

        subprocess.Popen = os.system = os.posix_spawn = refuse
        png, _alt = draw_graph(circuit()["L"])._repr_png_()
        assert png.startswith(b"\\x89PNG")
        assert not [m for m in sys.modules if "graphviz" in m]
        """
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {"PATH": "", "MPLBACKEND": "Agg", "HOME": os.environ.get("HOME", "/tmp")}
    result = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
