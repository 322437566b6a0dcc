"""index.html is self-contained and escapes every string from a ruleset or an experiment."""

import html
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from kopsim.report.render import md_esc  # noqa: E402

EVIL = {"name": "<b>bold</b> & <script>alert('name')</script>",
        "description": fx.PAYLOAD,
        "notes": "see <a href=javascript:alert(2)>here</a> <iframe src=//evil.example>",
        "owner": "<svg onload=alert(3)>"}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("html")
    src = fx.tiny(root / "evil", experiment=EVIL)
    out, files, an = build_report(src, root / "out")
    return out


@pytest.fixture(scope="module")
def page(report):
    return (report / "index.html").read_text(encoding="utf-8")


def test_no_markup_from_rulesets_or_experiments_survives(page):
    assert "<script" not in page.lower()
    assert "<iframe" not in page.lower() and "<svg" not in page.lower()
    assert not re.search(r"<[^>]*\son(error|load)\s*=", page)  # no event handler in a tag
    assert "<b>bold</b>" not in page and "<a href=javascript" not in page
    # ... because each is shown as text
    for s in (EVIL["name"], EVIL["notes"], EVIL["owner"], fx.PAYLOAD,
              f"Kop with a cheap zolo du {fx.PAYLOAD}"):
        assert html.escape(s, quote=True) in page


def test_only_our_own_images_and_no_script_is_allowed(page):
    assert re.search(r"<meta http-equiv='Content-Security-Policy' content=\"default-src "
                     r"'none'; img-src data:; style-src 'unsafe-inline'\">", page)
    imgs = re.findall(r"<img [^>]*>", page)
    assert len(imgs) == 6  # the five plots and the paired differences' forest
    assert all(re.match(r"<img src='data:image/png;base64,[A-Za-z0-9+/=]+' ", i) for i in imgs)
    # self-contained: no reference to another file or host
    assert not re.search(r"<[^>]*\s(src|href)=['\"]?(https?:|//|file:|javascript:)", page)
    assert "<link" not in page


def test_markdown_is_escaped_too(report):
    md = (report / "report.md").read_text(encoding="utf-8")
    assert "<script" not in md and "<img src=x" not in md and "<b>" not in md
    assert md.startswith("# &lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;")
    assert md_esc("a | b") == r"a \| b" and md_esc("[x](y)") == r"\[x\](y)"
    assert md_esc("# not a heading", block=True) == r"\# not a heading"
    assert md_esc("1. x", block=True) == r"1\. x" and md_esc("-5 €") == "-5 €"
    assert md_esc("*a* _b_ `c` ~~d~~") == r"\*a\* \_b\_ \`c\` \~\~d\~\~"


def test_page_shows_the_rule_difference(page):
    assert "zolo du lost pays 4 instead of 10" in page
