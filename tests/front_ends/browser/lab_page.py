"""Driving JupyterLab (and Notebook 7) pages from Playwright: open, run all, read outputs."""

from __future__ import annotations

# The notebook's kernel is connected and idle. (The toolbar's execution indicator says "idle"
# before the kernel is even connected; commands sent then are silently dropped.)
KERNEL_IDLE = """() => {
    const app = window.jupyterapp;
    const widget = app && app.shell && app.shell.currentWidget;
    const session = widget && widget.sessionContext;
    const kernel = session && session.session && session.session.kernel;
    return !!(widget && widget.context && widget.context.isReady && session.isReady && kernel
              && kernel.connectionStatus === 'connected' && kernel.status === 'idle');
}"""

# The input prompts ("[ ]:", "[*]:", "[7]:") of the notebook on screen: those of the input areas
# (a collapsed input, like the bootstrap cell's, shows a placeholder whose prompt is empty).
_PROMPTS = ("[...window.jupyterapp.shell.currentWidget.node"
            ".querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
            ".map(p => p.textContent.trim())")

_ALL_RUN = (
    "() => {\n"
    f"    const prompts = {_PROMPTS};\n"
    f"    return ({KERNEL_IDLE})() && prompts.length > 0 && !prompts.some(t => t.includes('*'));\n"
    "}"
)


def command(page, name: str) -> None:
    """Start a JupyterLab command; do not wait for its promise (Run All's may never settle)."""
    page.evaluate("name => { window.jupyterapp.commands.execute(name); return true; }", name)


def open_notebook(page, lab: dict, path: str) -> None:
    """Open `path` alone, in a fresh workspace (Lab would otherwise reopen earlier tabs)."""
    workspace = "".join(ch if ch.isalnum() else "-" for ch in path)
    page.goto(f"{lab['url']}/lab/workspaces/{workspace}/tree/{path}?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", state="attached")
    page.wait_for_function(KERNEL_IDLE, timeout=90_000, polling=250)


_START_KERNEL = """async () => {
    const kernel = await window.jupyterapp.serviceManager.kernels.startNew({name: 'python3'});
    return kernel.id;
}"""

# Open `path` in the JupyterLab already loaded (no page reload): true once it is the notebook shown.
_OPEN = """async ([path, kernel]) => {
    const app = window.jupyterapp;
    await app.commands.execute('docmanager:open', {path, factory: 'Notebook', kernel});
    const widget = app.shell.currentWidget;
    await widget.context.ready;
    return widget.context.path === path;
}"""

# Every cell of the notebook shown is on the page, every markdown cell rendered, every output drawn.
_ALL_SHOWN = """() => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    const node = notebook.node;
    const markdown = notebook.widgets.filter(c => c.model.type === 'markdown').length;
    const outputs = notebook.widgets.reduce((n, c) => n + (c.model.outputs ? c.model.outputs.length : 0), 0);
    return node.querySelectorAll('.jp-Cell').length === notebook.widgets.length
        && node.querySelectorAll('.jp-MarkdownCell.jp-mod-rendered').length === markdown
        && node.querySelectorAll('.jp-OutputArea-output').length >= outputs;
}"""

# Close the notebook shown, leaving the kernel it shares with the others running.
_CLOSE = """async () => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (widget) { widget.dispose(); }
    return true;
}"""


def load_lab(page, url: str, workspace: str) -> str:
    """Load JupyterLab once, in a fresh `workspace`, and start the kernel that every notebook
    opened with `open_in_lab` joins (Lab would otherwise start one per notebook). Returns its id."""
    page.goto(f"{url}/lab/workspaces/{workspace}?reset")
    page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)", polling=250)
    page.evaluate("async () => { await window.jupyterapp.restored; return true; }")
    return page.evaluate(_START_KERNEL)


def open_in_lab(page, path: str, kernel_id: str) -> None:
    """Open `path` in the JupyterLab `load_lab` loaded, joined to its kernel, and wait until every
    cell, markdown rendering and output is on the page."""
    assert page.evaluate(_OPEN, [path, {"id": kernel_id}]), f"JupyterLab did not open {path}"
    page.wait_for_function(_ALL_SHOWN, polling=200)


def close_notebook(page) -> None:
    """Close the notebook shown (its kernel goes on)."""
    page.evaluate(_CLOSE)


def run_all(page, timeout_ms: int = 150_000) -> None:
    """Clear the outputs, run every cell (Lab's own commands), wait until the kernel is idle again.

    Run All stops at the first cell that raises; the cells after it stay unnumbered.
    """
    command(page, "notebook:clear-all-cell-outputs")
    page.wait_for_function(f"() => !{_PROMPTS}.some(t => /\\d/.test(t))")
    command(page, "runmenu:run-all")
    page.wait_for_function(f"() => {_PROMPTS}.some(t => /[*\\d]/.test(t))")
    page.wait_for_function(_ALL_RUN, timeout=timeout_ms, polling=250)


def prompts(page) -> list[str]:
    return page.evaluate(f"() => {_PROMPTS}")


def widget_cell(page, css_class: str):
    """The output area of the cell that shows the widget with this CSS class."""
    outputs = page.locator(".jp-Cell-outputArea").filter(has=page.locator(f".{css_class}"))
    outputs.first.scroll_into_view_if_needed()
    return outputs.first


def move_slider(page, cell, index: int = 0, presses: int = 1) -> None:
    handle = cell.locator(".widget-slider .noUi-handle").nth(index)
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(presses):
        handle.press("ArrowRight")


def picture(cell) -> str:
    return cell.locator(".jp-RenderedImage img").first.get_attribute("src") or ""


def numbers(cell) -> str:
    return cell.locator(".gf-numbers").first.inner_text()


_NEW_PICTURE = """([cls, old]) => {
    const area = [...document.querySelectorAll('.jp-Cell-outputArea')].find(a => a.querySelector('.' + cls));
    const img = area && area.querySelector('.jp-RenderedImage img');
    const text = area && area.querySelector('.gf-numbers');
    return img && img.getAttribute('src') !== old && (!text || text.textContent.includes('updated in'));
}"""


def wait_for_new_picture(page, css_class: str, old_src: str, timeout_ms: int = 30_000) -> None:
    """Wait until the widget with this CSS class shows another picture (and says it updated)."""
    page.wait_for_function(_NEW_PICTURE, arg=[css_class, old_src], timeout=timeout_ms)


def drag_slider(page, cell, index: int = 0, dx: float = 30) -> None:
    """Drag a slider's handle `dx` pixels with the mouse (a keyboard press is not always heard)."""
    handle = cell.locator(".widget-slider .noUi-handle").nth(index)
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=5)
    page.mouse.up()
