"""Command-line helpers shared by the tools of tools/ (not a tool itself)."""


def refuse_unknown_options(ap, argv):
    """An option the parser does not know is refused naming it (exit 2), before argparse
    would complain about a missing argument instead."""
    known = set(ap._option_string_actions)
    for a in argv:
        if a == "--":
            break
        if len(a) > 1 and a[0] == "-" and not (a[1].isdigit() or a[1] == "."):
            name = a.split("=", 1)[0]
            if name in known or (not a.startswith("--") and a[:2] in known):
                continue
            if a.startswith("--") and len([k for k in known if k.startswith(name)]) == 1:
                continue  # an unambiguous abbreviation, as argparse takes it
            ap.error("unknown option '%s'" % name)
