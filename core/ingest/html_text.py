"""HTML contracts (EDGAR filings are mostly .htm) as the plain text the splitter reads.

Read as text, a filing's tags and entities would be clause text and its headings would hide inside
`<p><b>…</b></p>`; rendered the way a browser lays it out (a block element on lines of its own, runs of
spaces collapsed, table cells side by side, scripts and styles dropped) the same splitter that reads
`.txt` filings finds its articles and sections. Standard library only.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

HTML_SUFFIXES = (".htm", ".html", ".xhtml")
# elements that start a new line of text, and those that also leave a blank line (a paragraph)
_LINE = {"br", "li", "tr", "dt", "dd", "ul", "ol", "table", "thead", "tbody", "tfoot", "hr", "caption"}
_PARAGRAPH = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "blockquote", "pre",
              "header", "footer", "center", "address", "body", "page"}
_CELL = {"td", "th"}
_HIDDEN = {"script", "style", "head", "title", "noscript", "template", "svg"}
_SNIFF = re.compile(r"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!doctype\s+html|<html\b|<(?:head|body)\b)",
                    re.I | re.S)


def looks_like_html(text: str) -> bool:
    """Whether a file's text is an HTML document (whatever its name says)."""
    return bool(_SNIFF.match(text[:2000]))


class _Renderer(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.hidden = 0
        self.pre = 0

    def handle_starttag(self, tag, attrs):
        self._open_or_close(tag, opening=True)

    def handle_endtag(self, tag):
        self._open_or_close(tag, opening=False)

    def handle_startendtag(self, tag, attrs):
        if tag in _LINE or tag in _PARAGRAPH:
            self.out.append("\n")

    def _open_or_close(self, tag: str, opening: bool) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden + (1 if opening else -1))
            return
        if tag == "pre":
            self.pre = max(0, self.pre + (1 if opening else -1))
        if tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _LINE:
            self.out.append("\n")
        elif tag in _CELL and not opening:
            self.out.append("  ")

    def handle_data(self, data):
        if self.hidden:
            return
        data = data.replace("\xa0", " ")
        self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    """The text of an HTML document, one block element per paragraph."""
    renderer = _Renderer()
    renderer.feed(html)
    renderer.close()
    lines = [line.strip() for line in "".join(renderer.out).split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
