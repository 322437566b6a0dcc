"""The report in headless Chromium: it renders, every image loads, and nothing injected runs.

Chromium (Debian's `chromium` package, installed by .ci/run) is driven over the DevTools protocol
on a pipe (tests/data/cdp.py): the page is the unmodified index.html, the screenshot is of the
whole page, and the image check reads `naturalWidth` of every <img> after load.
"""

import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402
from cdp import Browser, find_chromium  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from synthetic import write_results  # noqa: E402
from kopsim.rules.load import load_ruleset  # noqa: E402

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                "(.ci/run installs Debian's chromium package)")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Random-play results of three variants (one with victory-card sessions) plus a variant
    whose ruleset description carries a script/onerror payload."""
    root = tmp_path_factory.mktemp("browser")
    cheap = fx.cheap_rules()
    src = write_results(root / "results", [("kop", load_ruleset("kop")),
                                           ("kop-trzy-dychy", load_ruleset("kop-trzy-dychy")),
                                           ("cheap", cheap),
                                           ("victory", load_ruleset("kop-victory-cards"))],
                        hands=4000, seed=3,
                        experiment={"name": "browser check", "description": fx.PAYLOAD})
    out, _, _ = build_report(src, root / "report")
    return out


def test_report_renders_and_every_image_loads(report, tmp_path):
    shot = Path(report) / "screenshot.png"
    with Browser(CHROMIUM) as browser:
        page = browser.open((Path(report) / "index.html").resolve().as_uri())
        images = page.eval("Array.from(document.images).map(i => ({alt: i.alt, "
                           "complete: i.complete, w: i.naturalWidth, h: i.naturalHeight}))")
        scripts = page.eval("document.scripts.length")
        injected = page.eval("document.querySelectorAll('[onerror], [onload], iframe, svg')"
                             ".length")
        title = page.eval("document.querySelector('h1').textContent")
        tables = page.eval("document.querySelectorAll('table').length")
        page.screenshot(str(shot))
    assert [i["alt"] for i in images] == ["Contract mix", "Declarer win rate per contract",
                                          "Card points of the old side", "Seat advantage",
                                          "Payout distribution", "Session length",
                                          "Paired differences"]
    broken = [i["alt"] for i in images if not (i["complete"] and i["w"] > 0 and i["h"] > 0)]
    assert broken == [], f"images that did not load: {broken}"
    assert scripts == 0 and injected == 0
    assert title == "browser check"
    assert tables >= 12
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width == 1280 and height > 4000  # the whole page, not just the first screen
