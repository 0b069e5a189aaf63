"""A keyboard-only walk through a widget's controls in JupyterLab: Tab from one control to the
next, change each with the keys a keyboard user has, and read what the readout says after it."""

from __future__ import annotations

from tests.front_ends.browser.lab_page import numbers, picture, wait_for_new_picture

# The control that has the keyboard focus: what it is, its value's position, whether it is in `cls`.
_FOCUSED = """cls => {
    const e = document.activeElement;
    const inWidget = !!(e && e.closest('.' + cls));
    if (!e || !inWidget) { return {inWidget: false}; }
    const target = e.closest('.noUi-target');
    if (target && target.hasAttribute('disabled')) { return {inWidget, kind: 'disabled', atEnd: false}; }
    if (e.getAttribute('role') === 'slider') {
        const atEnd = e.getAttribute('aria-valuenow') === e.getAttribute('aria-valuemax');
        return {inWidget, kind: 'slider', atEnd};
    }
    if (e.tagName === 'SELECT') {
        // the key a keyboard user types to pick the next option (type-ahead: its first letter)
        const next = e.options[(e.selectedIndex + 1) % e.options.length].text;
        return {inWidget, kind: 'select', atEnd: false, key: next[0]};
    }
    if (e.tagName === 'INPUT' && e.type === 'checkbox') { return {inWidget, kind: 'checkbox', atEnd: false}; }
    if (e.classList.contains('widget-readout')) { return {inWidget, kind: 'readout', atEnd: false}; }
    if (e.tagName === 'SUMMARY') { return {inWidget, kind: 'summary', atEnd: false}; }
    return {inWidget, kind: e.tagName.toLowerCase(), atEnd: false};
}"""

_KEYS = {"slider": ("ArrowRight", "ArrowLeft"), "select": ("", ""), "checkbox": (" ", " ")}
# Reached on the way and left as they are: a slider's value typed as text, a collapsed text, a
# disabled slider (ipywidgets leaves its handle in the Tab order).
_PASSED = ("readout", "summary", "disabled")

_FIRST_CONTROL = ".{cls} :is([role=slider], select, input):not([disabled])"


def walk(page, cell, css_class: str) -> list[tuple[str, str]]:
    """Focus the widget's first control, then Tab through the rest; change each control with its
    keys and wait for the new picture. Returns [(kind of control, readout after the change)]."""
    cell.locator(_FIRST_CONTROL.format(cls=css_class)).first.focus()
    seen = []
    while True:
        focused = page.evaluate(_FOCUSED, css_class)
        if not focused["inWidget"]:
            return seen
        kind = focused["kind"]
        if kind in _PASSED:
            page.keyboard.press("Tab")
            continue
        assert kind in _KEYS, f"{css_class}: the keyboard reached a {kind}, not a control it can change"
        before_picture = picture(cell)
        page.keyboard.press(focused.get("key") or _KEYS[kind][1 if focused["atEnd"] else 0])
        wait_for_new_picture(page, css_class, before_picture)
        seen.append((kind, numbers(cell)))
        page.keyboard.press("Tab")
