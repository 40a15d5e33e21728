"""One SVG badge per implementation and edition, in the shields.io "flat" style
(docs/matrix.md#badges): the verdict, the passed count, the fail-open count and the catalogue.

Written here rather than with a badge library: the template is twenty lines of the matrix's own
Jinja2 (autoescaped like every page of the site, so a target's name cannot become markup), and
the libraries at hand did not fit (pybadges imports ``imghdr``, gone from Python 3.13, and
pulls in requests; anybadge numbers its masks from a process-wide counter, so one badge's
bytes would depend on how many were drawn before it, and the matrix must be byte-for-byte the
same on every rebuild). Text widths are estimated per character class of Verdana 11 px; each
text carries ``textLength``, so a renderer fits it to exactly that width, as shields does.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Approximate advance widths of Verdana at 11 px, by character class.
_NARROW = set("iIjl.,:;'|!()[]{}`")
_WIDE = set("mwMW@%")
_PADDING = 10.0
#: shields' colours
GREEN, YELLOW, RED, GREY = "#4c1", "#dfb317", "#e05d44", "#9f9f9f"


def text_width(text: str) -> float:
    width = 0.0
    for char in text:
        if char == " ":
            width += 3.9
        elif char in _NARROW:
            width += 3.7
        elif char in _WIDE:
            width += 10.7
        elif char.isdigit() or char.islower():
            width += 7.0 if char.isdigit() else 6.6
        else:
            width += 7.6
    return round(width, 1)


@dataclass(frozen=True)
class Badge:
    """What the template draws: two texts, their boxes, and the message's colour."""

    label: str
    message: str
    colour: str

    @property
    def label_text(self) -> float:
        return text_width(self.label)

    @property
    def message_text(self) -> float:
        return text_width(self.message)

    @property
    def label_box(self) -> float:
        return self.label_text + _PADDING

    @property
    def message_box(self) -> float:
        return self.message_text + _PADDING

    @property
    def width(self) -> float:
        return round(self.label_box + self.message_box, 1)


def badge(edition: str, verdict: str, passed: int, fail_open: int, catalogue: str) -> Badge:
    """The badge of one certificate: green only when certified with nothing failing open."""
    if verdict == "CERTIFIED":
        colour = GREEN if fail_open == 0 else YELLOW
    else:
        colour = RED if verdict == "FAILED" else GREY
    message = (f"{verdict} | {passed} passed | {fail_open} fail-open | "
               f"catalogue {catalogue[:8]}")
    return Badge(label=f"subagent-tck {edition}", message=message, colour=colour)
