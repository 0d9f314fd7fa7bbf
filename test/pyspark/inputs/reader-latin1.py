# -*- coding: latin-1 -*-
"""A job saved as Latin-1, as its declaration says: CPython reads é as é."""


def accents(lines):
    return lines.filter(lambda l: l.startswith("café") and len(l) > 4)
