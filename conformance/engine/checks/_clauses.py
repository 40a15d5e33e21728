"""The part of each TF and CA statement a failure of its check did not meet, in the statement's
own words (docs/rules.md), so that a failure says what the rule asks and not only what was
seen. ``said(rule, what)`` is the message: what happened, then the rule's words."""

from __future__ import annotations

CLAUSES: dict[str, str] = {
    "TF-01": "a single restriction lets a global tool through only when the name passes the "
             "allow list (if there is one) and is not on the deny list (if there is one)",
    "TF-02": "with several restrictions a global tool is visible only if each of them admits "
             "it, whatever the order they were installed in",
    "TF-03": "an empty allow list hides every global tool while the scope's own tools and "
             "run_code remain; an empty deny list hides nothing",
    "TF-04": "tools registered in the scope join the view after the global filter, so no "
             "restriction can hide them",
    "TF-05": "a local tool under a global's name takes its place in the scope (a single entry, "
             "the local schema and body); other scopes keep the global",
    "TF-06": "run_code, offered in ptc and both modes, stands outside the filter, and no tool "
             "may be registered or shadowed under that name",
    "TF-07": "a restriction with neither an allow nor a deny list fails with a clear error, and "
             "nothing is installed",
    "TF-08": "a restriction naming anything outside the registered global tools fails, the "
             "error lists every such name, and nothing is installed",
    "TF-09": "a deny-only restriction lets through a global registered after it, unless the "
             "list names it",
    "TF-10": "an allow list keeps out a global registered after it unless it names it; a named "
             "tool removed and registered again is visible again",
    "TF-11": "unregistering a global takes it out of every view immediately; restrictions that "
             "named it remain installed and valid",
    "TF-12": "schemas, lookup, execution and the run_code SDK come from the same set; a call "
             "to a tool missing from the schemas gets UNKNOWN_TOOL without running it, and the "
             "turn continues",
    "TF-13": "whatever one scope installs leaves every other scope's view as it was",
    "TF-14": "disposing a restriction removes exactly that restriction, and disposing it "
             "again does no harm",
    "TF-15": "mutating the caller's lists (or the object holding them) after installation has "
             "no effect on the restriction",
    "TF-16": "a section explaining a tool is left out where that tool is hidden, while "
             "unrelated prose stays untouched",
    "CA-01": "a start asking a provider for a control it does not advertise fails with "
             "UNSUPPORTED_CAPABILITY naming the capability, never silently downgraded",
    "CA-02": "the UNSUPPORTED_CAPABILITY failure happens before the provider is called: no run, "
             "no lifecycle event, no child, no model request",
    "CA-03": "the capability check should come before any check of the value",
    "CA-04": "each capability a provider advertises must pass every rule of its family",
    "CA-05": "a start on a provider name that is not registered fails with NO_PROVIDER, and "
             "nothing is created",
}


def said(rule: str, what: str) -> str:
    """``what`` happened, then the words of ``rule`` it did not meet."""
    clause = CLAUSES.get(rule)
    return f"{what} (the rule: {clause})" if clause else what
