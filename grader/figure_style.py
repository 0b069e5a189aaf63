"""The course's default line colours and styles: told apart without colour vision of the usual kind.

Matplotlib's default cycle (tab10) differs by colour alone, and its green and red, orange and green
look alike to protanopes and deuteranopes. In a lesson's kernel the cycle is Okabe & Ito's palette
(designed for colour-vision deficiencies) and, with it, a line style per colour, so that no two
default lines differ by colour only (`grader.figure_colours` checks every solved figure).

    install()    # done once, when `grader` is imported in a kernel
    cycle()      # the cycle itself (for a figure drawn outside a kernel, as the kernel would)
"""

from __future__ import annotations

#: Okabe & Ito (2008): blue, vermillion, bluish green, reddish purple, orange, sky blue, black.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
#: Solid, dashed, dotted, dash-dot, and three more dash patterns: one per colour.
STYLES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (3, 1, 1, 1, 1, 1))]


def install(shell=None) -> None:
    """Make COLOURS × STYLES matplotlib's default cycle in `shell`'s kernel (by default the
    running IPython, if any; nothing outside a kernel). Idempotent."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is None:
        return
    import matplotlib as mpl

    mpl.rcParams["axes.prop_cycle"] = cycle()


def cycle():
    """COLOURS × STYLES as a matplotlib property cycle (a `cycler.Cycler`)."""
    from cycler import cycler

    return cycler(color=COLOURS) + cycler(linestyle=STYLES)
