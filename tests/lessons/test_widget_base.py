"""grader.lessons.widget_base: the controls -> redraw machinery shared by SliderPlot and LiveFigure."""

import base64

import ipywidgets as widgets
import pytest

from grader.lessons import widget_base
from grader.lessons.live_figure import LiveFigure
from grader.lessons.live_plot import SliderPlot
from grader.lessons.widget_base import InPlaceArea, LiveControls, OutputArea


class Counter(LiveControls):
    """A picture that is the current value, as bytes: easy to check."""

    def __init__(self, area, plain_text=None, **options):
        self.plain_text = plain_text
        super().__init__({"n": widgets.IntSlider(value=1)}, area=area, **options)
        self._make_box([widgets.HTML("below")])

    def png(self):
        return f"picture {self.values()['n']}".encode()


class FakeHandle:
    def __init__(self):
        self.images, self.bundles = [], []

    def update(self, obj, metadata=None, raw=False):
        if raw:
            self.bundles.append(obj)
        else:
            self.images.append(obj.data)


@pytest.fixture
def shown(monkeypatch):
    """What `display` was called with: (object, raw) pairs; display_id=True returns a FakeHandle."""
    calls = []

    def fake_display(obj, raw=False, display_id=None, metadata=None):
        calls.append((obj, raw))
        return FakeHandle() if display_id else None

    monkeypatch.setattr(widget_base, "display", fake_display)
    return calls


def test_both_lesson_widgets_share_the_base():
    assert issubclass(SliderPlot, LiveControls) and issubclass(LiveFigure, LiveControls)


def test_output_area_static_picture_above_and_redraws_into_the_output(shown):
    view = Counter(OutputArea())
    assert view.box.children[-1] is view.area.widget  # the Output is the last row of the box
    view._ipython_display_()
    (static, _), (box, _) = shown
    assert static.data == b"picture 1" and box is view.box
    view.controls["n"].value = 4
    (out,) = view.area.widget.outputs
    assert base64.b64decode(out["data"]["image/png"]) == b"picture 4"
    assert out["data"]["text/plain"] == "<plot for {'n': 4}>" and view.redraws == 1


def test_in_place_area_replaces_the_displayed_picture(shown):
    view = Counter(InPlaceArea(), plain_text="[controls]")
    view.controls["n"].value = 2  # before it is shown: counted, nothing to replace
    assert view.redraws == 1 and view.area.handle is None
    view._ipython_display_()
    (bundle, raw), (picture, _), (words, words_raw) = shown
    assert raw and bundle["text/plain"] == "[controls]"
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert picture.data == b"picture 2" and view.box.children[-1].value == "below"
    assert words_raw and "Figure in words" in words["text/markdown"]
    view.alt = "three"
    view.controls["n"].value = 3
    assert view.area.handle.images == [b"picture 3"] and view.redraws == 2
    # the picture's words are replaced with it
    assert "three" in view.area.words.bundles[-1]["text/markdown"]


def test_controls_follow_the_drag_only_when_asked():
    assert Counter(OutputArea()).controls["n"].continuous_update is False
    assert Counter(OutputArea(), continuous_update=True).controls["n"].continuous_update is True


def test_needs_a_control():
    with pytest.raises(ValueError, match="LiveControls needs at least one control"):
        LiveControls({}, area=OutputArea())
