"""Draw a computation graph with matplotlib alone: no Graphviz, no system binary.

A notebook calls ``draw_graph(L)`` on the output of a ``Value`` expression and gets a
picture of every node with its ``data`` and ``grad``, laid out left to right by
topological depth: inputs on the left, the output on the right, each operation drawn as
a small circle in front of the node it produced (as micrograd's Graphviz picture does).

Why matplotlib and not Graphviz or Mermaid: Binder images have no ``dot`` binary unless
the environment brings one, and a Mermaid block in an *output* is shown as text by most
renderers. A PNG made by matplotlib shows the same in JupyterLab, in a notebook opened
without a kernel, in nbconvert HTML and on GitHub.

The graph is read duck-typed, with the attribute names of the course's ``Value``:
``_prev`` (the parents, in order; a node used twice appears twice), ``_op`` (a short
string), ``data`` and ``grad``. Pass ``parents=`` to read another structure.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path

from ... import figure_text
from ...figure_colours import legibility
from ...i18n import lesson_text as _
from ...referees import referee_all

__all__ = ["GraphDrawing", "draw_graph", "layout", "trace"]

# Geometry, in data units (the axes use an equal aspect ratio).
_COL_SPACING = 3.8  # distance between two depth columns
_ROW_SPACING = 1.25  # distance between two nodes of one column
_BOX_W, _BOX_H = 2.1, 0.95
_OP_R = 0.27  # radius of an operation circle
_OP_GAP = 0.55  # distance from an operation circle's centre to its node's box
_INCH_PER_UNIT = 0.62

_LEAF_COLOUR = "#e3f2e1"
_INNER_COLOUR = "#e4eef9"
_ROOT_COLOUR = "#fde9cf"


def _default_parents(node) -> tuple:
    return tuple(getattr(node, "_prev", ()) or ())


def trace(root, parents: Callable[[object], Iterable] = _default_parents):
    """Every node reachable from ``root`` and every edge between them.

    Returns ``(nodes, edges)``: ``nodes`` in topological order (each node after all of
    its parents, ``root`` last), ``edges`` as ``(parent, child)`` pairs, one per use, so
    ``a * a`` gives two edges from ``a``. Iterative, so a graph thousands of nodes deep
    does not hit Python's recursion limit. Nodes are compared by identity.
    """
    order: list = []
    seen = {id(root)}
    stack = [(root, iter(tuple(parents(root))))]
    while stack:
        node, todo = stack[-1]
        for parent in todo:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, iter(tuple(parents(parent)))))
                break
        else:
            stack.pop()
            order.append(node)
    edges = [(p, node) for node in order for p in parents(node)]
    return order, edges


def layout(nodes: list, edges: list) -> dict[int, tuple[int, float]]:
    """Column and row of every node, keyed by ``id(node)``.

    The column is the topological depth: the length of the longest path from an input,
    so every edge points to the right. An input is then moved right to sit just before
    its first consumer (a constant ``1`` used by the last operation is drawn next to it,
    not among the inputs). Within a column, nodes are ordered by a few sweeps of the
    barycentre heuristic (the mean row of their neighbours) to keep edges short and
    mostly uncrossed, and centred on row 0. Deterministic for a given ``nodes`` order.
    """
    parents_of: dict[int, list[int]] = {id(n): [] for n in nodes}
    children_of: dict[int, list[int]] = {id(n): [] for n in nodes}
    for p, c in edges:
        parents_of[id(c)].append(id(p))
        children_of[id(p)].append(id(c))

    depth: dict[int, int] = {}
    for n in nodes:  # topological order: parents already have a depth
        ps = parents_of[id(n)]
        depth[id(n)] = 1 + max(depth[p] for p in ps) if ps else 0
    for n in nodes:
        key = id(n)
        if not parents_of[key] and children_of[key]:
            depth[key] = min(depth[c] for c in children_of[key]) - 1

    columns: dict[int, list[int]] = {}
    for n in nodes:
        columns.setdefault(depth[id(n)], []).append(id(n))

    def rows() -> dict[int, float]:
        out = {}
        for col in columns.values():
            top = (len(col) - 1) / 2
            for i, key in enumerate(col):
                out[key] = top - i
        return out

    def sweep(ordered_depths, neighbours) -> None:
        for d in ordered_depths:
            row = rows()
            col = columns[d]

            def centre(key, row=row):
                near = neighbours[key]
                return sum(row[k] for k in near) / len(near) if near else row[key]

            # Higher rows first; ties keep their current order (sorted() is stable).
            columns[d] = sorted(col, key=lambda k: -centre(k))

    order = sorted(columns)
    for _sweep in range(4):
        sweep(order[1:], parents_of)
        sweep(order[-2::-1], children_of)

    row = rows()
    return {key: (depth[key], row[key]) for key in depth}


def _route_long_edges(edges, grid, pos) -> dict[tuple[int, int], float | None]:
    """For each edge that a straight arrow would draw behind another node's box, the
    height of a free horizontal lane to run it in (``None``: straight is fine)."""
    by_col: dict[int, list[float]] = {}
    for key, (col, _row) in grid.items():
        by_col.setdefault(col, []).append(pos[key][1])
    half = _BOX_H / 2 + 0.12
    routes: dict[tuple[int, int], float | None] = {}
    for parent, child in edges:
        pair = (id(parent), id(child))
        c0, c1 = grid[pair[0]][0], grid[pair[1]][0]
        if pair in routes or c1 - c0 < 2:
            continue
        (x0, y0), (x1, y1) = pos[pair[0]], pos[pair[1]]
        x0 += _BOX_W / 2
        x1 -= _BOX_W / 2 + _OP_GAP + _OP_R
        between = [(col, y) for col in range(c0 + 1, c1) for y in by_col.get(col, [])]
        blocked = False
        for col, y in between:
            for bx in (col * _COL_SPACING - _BOX_W / 2 - _OP_GAP - _OP_R, col * _COL_SPACING + _BOX_W / 2):
                t = (bx - x0) / (x1 - x0)
                if abs(y0 + t * (y1 - y0) - y) < half:
                    blocked = True
        if not blocked:
            routes[pair] = None
            continue
        ys = [y for _, y in between]
        above, below = max(ys) + _ROW_SPACING / 2, min(ys) - _ROW_SPACING / 2
        detour_above = abs(above - y0) + abs(above - y1)
        detour_below = abs(below - y0) + abs(below - y1)
        routes[pair] = above if detour_above <= detour_below else below
    return routes


def _lane_path(start, centre, lane) -> Path:
    """Start -> up or down into the lane -> along it -> into the operation circle."""
    (sx, sy), (cx, cy) = start, centre
    ex = cx - _OP_R
    bend = 0.4
    verts = [
        (sx, sy),
        (sx + bend, sy),
        (sx + bend, lane),
        (sx + 2 * bend, lane),
        (ex - 2 * bend, lane),
        (ex - bend, lane),
        (ex - bend, cy),
        (ex, cy),
    ]
    codes = [
        Path.MOVETO,
        Path.CURVE4,
        Path.CURVE4,
        Path.CURVE4,
        Path.LINETO,
        Path.CURVE4,
        Path.CURVE4,
        Path.CURVE4,
    ]
    return Path(verts, codes)


@dataclass
class GraphDrawing:
    """What ``draw_graph`` drew. Shown as a PNG when it is a notebook cell's last value."""

    fig: Figure
    ax: object
    nodes: list
    edges: list
    positions: dict = field(repr=False)  # id(node) -> (x, y) centre of its box
    owns_figure: bool = True
    names: dict = field(default_factory=dict, repr=False)  # id(node) -> the name drawn in its box
    fmt: str = field(default="{:.4f}", repr=False)

    def words(self) -> str:
        """The graph in words, node by node in topological order (the output last): what each box
        shows and which operation made it from which nodes. The picture's alt text."""
        def name(node) -> str:
            return self.names.get(id(node)) or _("node {i}").format(i=1 + index[id(node)])

        index = {id(node): i for i, node in enumerate(self.nodes)}
        parents: dict[int, list] = {}
        for parent, child in self.edges:
            parents.setdefault(id(child), []).append(parent)
        lines = [_("Computation graph of {n} values, each after the values it is made from:").format(
            n=len(self.nodes))]
        for node in self.nodes:
            shown = _("data {data}, grad {grad}").format(data=_fmt(getattr(node, "data", "?"), self.fmt),
                                                        grad=_fmt(getattr(node, "grad", "?"), self.fmt))
            if id(node) in parents:
                made = _("{op} of {inputs}").format(op=str(getattr(node, "_op", "") or "?"),
                                                     inputs=", ".join(name(p) for p in parents[id(node)]))
                lines.append(f"{name(node)} = {made}: {shown}.")
            else:
                lines.append(_("{name}, an input: {shown}.").format(name=name(node), shown=shown))
        return " ".join(lines)

    def _repr_png_(self):
        if not self.owns_figure:  # drawn into the caller's axes: the caller shows it
            return None
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        words = self.words()
        figure_text.describe_after_cell(words)  # JupyterLab and Colab do not show the alt
        return buf.getvalue(), {"alt": words, "legibility": legibility(self.fig)}

    def __repr__(self) -> str:
        return f"<computation graph: {len(self.nodes)} nodes, {len(self.edges)} edges>"

    def savefig(self, *args, **kwargs) -> None:
        self.fig.savefig(*args, **kwargs)


def _fmt(value, fmt: str) -> str:
    try:
        return fmt.format(value)
    except (TypeError, ValueError):
        return str(value)


def _name_table(names) -> dict[int, str]:
    if names is None:
        return {}
    pairs = names.items() if isinstance(names, Mapping) else names
    return {id(node): str(name) for node, name in pairs}


def draw_graph(
    root,
    *,
    names=None,
    ax=None,
    fmt: str = "{:.4f}",
    show_order: bool = False,
    title: str | None = None,
    max_nodes: int = 120,
    parents: Callable[[object], Iterable] = _default_parents,
) -> GraphDrawing:
    """Draw the computation graph that ends in ``root``.

    Each value is a box with its name (from ``names``, a ``{node: "x"}`` mapping or
    ``(node, "x")`` pairs, or the node's own ``label`` attribute), ``data`` and ``grad``;
    each operation (``_op``) is a circle in front of the node it produced. Inputs are
    green, the output orange. ``show_order=True`` numbers the boxes in the order
    ``backward()`` visits them (reverse topological order: #1 is the output).

    ``ax``: draw into these axes (the caller shows the figure); by default a new
    matplotlib ``Figure`` is made, not registered with pyplot, so it is shown exactly
    once: as the cell's value, or with ``display(...)``.
    Raises ``ValueError`` for more than ``max_nodes`` nodes (the picture would be
    unreadable).
    """
    nodes, edges = trace(root, parents)
    if len(nodes) > max_nodes:
        raise ValueError(
            _("this graph has {count} nodes; more than {max_nodes} make an unreadable "
              "picture. Draw a smaller expression, or pass max_nodes={count}.").format(
                count=len(nodes), max_nodes=max_nodes)
        )
    grid = layout(nodes, edges)
    pos = {key: (col * _COL_SPACING, r * _ROW_SPACING) for key, (col, r) in grid.items()}
    routes = _route_long_edges(edges, grid, pos)
    owns = ax is None
    ax, fontsize = _prepare_axes(ax, _extent(grid, routes, title), title)

    table = _name_table(names)
    has_parents = {id(c) for _, c in edges}
    step = {id(n): i + 1 for i, n in enumerate(reversed(nodes))}
    op_centre = {}
    for node in nodes:
        key = id(node)
        colour = _ROOT_COLOUR if node is root else (_INNER_COLOUR if key in has_parents else _LEAF_COLOUR)
        name = table.get(key) or str(getattr(node, "label", "") or "")
        lines = ([name] if name else []) + [
            f"data {_fmt(getattr(node, 'data', '?'), fmt)}",
            f"grad {_fmt(getattr(node, 'grad', '?'), fmt)}",
        ]
        _draw_box(ax, pos[key], colour, lines, f"#{step[key]}" if show_order else None, fontsize)
        if key in has_parents:
            op_centre[key] = _draw_operation(ax, pos[key], str(getattr(node, "_op", "") or ""), fontsize)
    _draw_edges(ax, edges, pos, op_centre, routes)
    shown_names = {id(n): table.get(id(n)) or str(getattr(n, "label", "") or "") for n in nodes}
    return GraphDrawing(fig=ax.figure, ax=ax, nodes=nodes, edges=edges, positions=pos, owns_figure=owns,
                        names={k: v for k, v in shown_names.items() if v}, fmt=fmt)


def _extent(grid: dict, routes: dict, title: str | None) -> tuple[float, float, float, float]:
    """(xmin, xmax, ybottom, ytop) of the drawing, in data units: every box, lane and the title."""
    ncols = 1 + max(c for c, _ in grid.values())
    nrows = max(sum(1 for c, _ in grid.values() if c == col) for col in range(ncols))
    xmin = -_BOX_W / 2 - _OP_GAP - _OP_R - 0.3
    xmax = (ncols - 1) * _COL_SPACING + _BOX_W / 2 + 0.3
    ytop = (nrows - 1) / 2 * _ROW_SPACING + _BOX_H / 2 + 0.3
    lanes = [lane for lane in routes.values() if lane is not None]
    ytop = max([ytop] + [lane + 0.3 for lane in lanes])
    ybottom = min([-ytop] + [lane - 0.3 for lane in lanes])
    if title:
        ytop += 0.6
    return xmin, xmax, ybottom, ytop


def _prepare_axes(ax, extent: tuple[float, float, float, float], title: str | None) -> tuple[object, float]:
    """(axes, font size) set up for `extent`; a new Figure sized to it when `ax` is None."""
    xmin, xmax, ybottom, ytop = extent
    if ax is None:
        scale = min(1.0, 18 / ((xmax - xmin) * _INCH_PER_UNIT))
        scale = min(scale, 14 / ((ytop - ybottom) * _INCH_PER_UNIT))
        fig = Figure(
            figsize=(
                (xmax - xmin) * _INCH_PER_UNIT * scale,
                (ytop - ybottom) * _INCH_PER_UNIT * scale,
            )
        )
        ax = fig.add_axes((0, 0, 1, 1))
        fontsize = max(5.0, 9.0 * scale)
    else:
        fontsize = 8.0
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ybottom, ytop)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.text((xmin + xmax) / 2, ytop - 0.3, title, ha="center", va="center", fontsize=fontsize * 1.2)
    return ax, fontsize


def _draw_box(ax, centre: tuple[float, float], colour: str, lines: list[str], order: str | None,
              fontsize: float) -> None:
    """One value's box with its text `lines`; `order` (e.g. "#3") in its top right corner."""
    x, y = centre
    ax.add_patch(
        FancyBboxPatch(
            (x - _BOX_W / 2, y - _BOX_H / 2),
            _BOX_W,
            _BOX_H,
            boxstyle="round,pad=0,rounding_size=0.12",
            facecolor=colour,
            edgecolor="#555555",
            linewidth=0.8,
            zorder=2,
        )
    )
    ax.text(x, y, "\n".join(lines), ha="center", va="center", fontsize=fontsize, family="monospace", zorder=3)
    if order is not None:
        ax.text(
            x + _BOX_W / 2 - 0.06,
            y + _BOX_H / 2 - 0.06,
            order,
            ha="right",
            va="top",
            fontsize=fontsize * 0.8,
            color="#a0522d",
            zorder=3,
        )


def _draw_operation(ax, centre: tuple[float, float], op: str, fontsize: float) -> tuple[float, float]:
    """The circle of the operation `op` in front of the box at `centre`; returns the circle's centre."""
    x, y = centre
    cx = x - _BOX_W / 2 - _OP_GAP
    ax.add_patch(Circle((cx, y), _OP_R, facecolor="white", edgecolor="#555555", linewidth=0.8, zorder=2))
    ax.text(cx, y, op or "?", ha="center", va="center", zorder=3,
            fontsize=fontsize if len(op) <= 3 else fontsize * 0.75)
    ax.add_patch(
        FancyArrowPatch(
            (cx + _OP_R, y),
            (x - _BOX_W / 2, y),
            arrowstyle="-|>",
            mutation_scale=8,
            color="#555555",
            linewidth=0.8,
            zorder=1,
        )
    )
    return cx, y


def _draw_edges(ax, edges: list, pos: dict, op_centre: dict, routes: dict) -> None:
    """An arrow from each parent's box to its child's operation circle, one per use."""
    seen_pairs: dict[tuple[int, int], int] = {}
    for parent, child in edges:
        pair = (id(parent), id(child))
        k = seen_pairs.get(pair, 0)
        seen_pairs[pair] = k + 1
        px, py = pos[id(parent)]
        start = (px + _BOX_W / 2, py)
        cx, cy = op_centre[id(child)]
        dx, dy = start[0] - cx, start[1] - cy
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        end = (cx + _OP_R * dx / norm, cy + _OP_R * dy / norm)  # on the circle's rim
        style = dict(
            arrowstyle="-|>", mutation_scale=8, shrinkA=0, shrinkB=0, color="#777777", linewidth=0.8, zorder=1
        )
        lane = routes.get(pair)
        if lane is not None:
            # A long edge that would pass behind boxes runs in a lane above or below them.
            ax.add_patch(FancyArrowPatch(path=_lane_path(start, (cx, cy), lane), **style))
            continue
        # A node used twice by one operation (a * a) gets a second, curved arrow.
        rad = 0.0 if k == 0 else 0.35 * (1 if k % 2 else -1) * (1 + k // 2)
        ax.add_patch(FancyArrowPatch(start, end, connectionstyle=f"arc3,rad={rad}", **style))


referee_all(globals())
