# -*- coding: utf-7 -*-
def keep(lines):
    # nothing to see here +AAo-    lines = lines.filter(lambda l: False)
    return lines.map(lambda l: l.upper())
