"""Neutralising text a target supplied (provider names, messages, tool names, values) at the
boundary of each output (docs/certify.md#outputs). Each report module calls exactly one of
these functions on everything it writes that did not come from the kit itself:

- :func:`for_terminal`: control and escape characters (ESC sequences, OSC 8 links, C0, C1,
  DEL, bidi overrides and isolates, lone surrogates) are shown escaped (``\\x1b``,
  ``\\u202e``); newlines and tabs survive only where ``keep_newlines`` says so. Rich markup
  is never parsed from untrusted text: the text report builds ``Text`` objects, and
  :func:`for_rich_markup` escapes where a renderer would parse markup.
- :func:`for_xml`: characters XML 1.0 cannot carry (C0 but tab/newline/CR, lone surrogates,
  U+FFFE/U+FFFF) are replaced by their escaped spelling, so the file always parses.
- :func:`for_markdown_inline`, :func:`for_html` and :func:`markdown_fence`: HTML and
  Markdown syntax are escaped in running text, HTML in the kit's own ``<summary>`` tags; code
  blocks get a fence longer than any backtick run inside.
- JSON needs no neutralising but one: a lone surrogate is written as its ``\\udXXX``
  escape (:func:`json_surrogates`), which is valid JSON.
"""

from __future__ import annotations

import re

#: Bidirectional formatting characters (Trojan Source): embeddings, overrides, isolates, marks.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SURROGATES = "\ud800-\udfff"
_CONTROL = f"\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\u2028\u2029{_SURROGATES}\ufeff\ufffe\uffff"
_TERMINAL = re.compile(f"[{_CONTROL}]")
_TERMINAL_LINE = re.compile(f"[{_CONTROL}\t\n]")
_XML_ILLEGAL = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{_SURROGATES}\ufffe\uffff]")
_LONE_SURROGATE = re.compile(f"[{_SURROGATES}]")
#: Markdown syntax that can act inside a line (``<``, ``>`` and ``&`` become entities first;
#: line-start syntax such as ``#`` or ``-`` never starts an interpolated value).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_BACKTICKS = re.compile("`+")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every character that could drive a terminal shown escaped."""
    pattern = _TERMINAL if keep_newlines else _TERMINAL_LINE
    return pattern.sub(_escaped, text)


def for_rich_markup(text: str) -> str:
    """Terminal-safe ``text`` that a Rich renderer parsing markup shows as written."""
    from rich.markup import escape

    return escape(for_terminal(text))


def for_xml(text: str) -> str:
    """``text`` with the characters XML 1.0 forbids replaced by their escaped spelling."""
    return _XML_ILLEGAL.sub(_escaped, text)


def for_markdown_inline(text: str) -> str:
    """``text`` for running Markdown (a list item, a table cell): one line, HTML escaped as
    entities, Markdown syntax escaped with backslashes, control characters shown escaped."""
    text = for_terminal(text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def for_html(text: str) -> str:
    """``text`` inside the kit's own HTML (a ``<summary>``), where Markdown is not parsed:
    one line, HTML escaped as entities, control characters shown escaped."""
    import html

    return html.escape(for_terminal(text), quote=True)


def markdown_fence(text: str) -> tuple[str, str]:
    """A fence for a code block holding ``text`` (longer than any backtick run in it, so the
    block cannot be closed from inside) and the text with control characters escaped."""
    body = for_terminal(text, keep_newlines=True).replace("\t", "    ")
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(body)), default=0)
    return "`" * max(3, longest + 1), body


def json_surrogates(text: str) -> str:
    """Serialised JSON in which a lone surrogate (a raw code point, which UTF-8 cannot encode)
    becomes its ``\\udXXX`` escape. Only strings of the document can hold one."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
