"""axe-core (Deque's accessibility engine, from the `axe-playwright-python` wheel) run on a page.

Its rules tagged WCAG 2.0 and 2.1, levels A and AA: what the 2024 ADA Title II rule and EN 301 549
ask of course materials. A violation's impact is minor, moderate, serious or critical.
"""

from __future__ import annotations

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")


def audit(page, context: str | dict | None = None, contrast: bool = True) -> list[dict]:
    """axe's violations on `page` (within `context`, a CSS selector or axe context), WCAG 2.1 A
    and AA rules. `contrast=False` leaves out colour contrast, by far its slowest rule."""
    from axe_playwright_python.sync_playwright import Axe

    options: dict = {"runOnly": {"type": "tag", "values": WCAG_21_AA}, "resultTypes": ["violations"]}
    if not contrast:
        options["rules"] = {"color-contrast": {"enabled": False}}
    return Axe().run(page, context=context, options=options).response["violations"]


def blocking(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v.get("impact") in BLOCKING]


def described(violations: list[dict], nodes: int = 3) -> str:
    """One line per violation and up to `nodes` of its elements: what to fix, where."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} elements): {v['help']} [{v['helpUrl']}]")
        lines += [f"    {' '.join(n['target'])}: {n['html'][:160]}" for n in v["nodes"][:nodes]]
    return "\n".join(lines)
