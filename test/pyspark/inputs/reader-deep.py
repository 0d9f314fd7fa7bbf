"""Deep code CPython reads: a UDF concatenating 70 fields, 60 chained
operators and 60 nested ifs (the tree nests deeper than serde_json's
default 128 levels)."""


def concat70(line):
    f = line.split(",")
    return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8] + f[9] + f[10] + f[11] + f[12] + f[13] + f[14] + f[15] + f[16] + f[17] + f[18] + f[19] + f[20] + f[21] + f[22] + f[23] + f[24] + f[25] + f[26] + f[27] + f[28] + f[29] + f[30] + f[31] + f[32] + f[33] + f[34] + f[35] + f[36] + f[37] + f[38] + f[39] + f[40] + f[41] + f[42] + f[43] + f[44] + f[45] + f[46] + f[47] + f[48] + f[49] + f[50] + f[51] + f[52] + f[53] + f[54] + f[55] + f[56] + f[57] + f[58] + f[59] + f[60] + f[61] + f[62] + f[63] + f[64] + f[65] + f[66] + f[67] + f[68] + f[69]


def depth(line):
    n = len(line)
    if n > 0:
        if n > 1:
            if n > 2:
                if n > 3:
                    if n > 4:
                        if n > 5:
                            if n > 6:
                                if n > 7:
                                    if n > 8:
                                        if n > 9:
                                            if n > 10:
                                                if n > 11:
                                                    if n > 12:
                                                        if n > 13:
                                                            if n > 14:
                                                                if n > 15:
                                                                    if n > 16:
                                                                        if n > 17:
                                                                            if n > 18:
                                                                                if n > 19:
                                                                                    if n > 20:
                                                                                        if n > 21:
                                                                                            if n > 22:
                                                                                                if n > 23:
                                                                                                    if n > 24:
                                                                                                        if n > 25:
                                                                                                            if n > 26:
                                                                                                                if n > 27:
                                                                                                                    if n > 28:
                                                                                                                        if n > 29:
                                                                                                                            if n > 30:
                                                                                                                                if n > 31:
                                                                                                                                    if n > 32:
                                                                                                                                        if n > 33:
                                                                                                                                            if n > 34:
                                                                                                                                                if n > 35:
                                                                                                                                                    if n > 36:
                                                                                                                                                        if n > 37:
                                                                                                                                                            if n > 38:
                                                                                                                                                                if n > 39:
                                                                                                                                                                    if n > 40:
                                                                                                                                                                        if n > 41:
                                                                                                                                                                            if n > 42:
                                                                                                                                                                                if n > 43:
                                                                                                                                                                                    if n > 44:
                                                                                                                                                                                        if n > 45:
                                                                                                                                                                                            if n > 46:
                                                                                                                                                                                                if n > 47:
                                                                                                                                                                                                    if n > 48:
                                                                                                                                                                                                        if n > 49:
                                                                                                                                                                                                            if n > 50:
                                                                                                                                                                                                                if n > 51:
                                                                                                                                                                                                                    if n > 52:
                                                                                                                                                                                                                        if n > 53:
                                                                                                                                                                                                                            if n > 54:
                                                                                                                                                                                                                                if n > 55:
                                                                                                                                                                                                                                    if n > 56:
                                                                                                                                                                                                                                        if n > 57:
                                                                                                                                                                                                                                            if n > 58:
                                                                                                                                                                                                                                                if n > 59:
                                                                                                                                                                                                                                                    return 60
    return 0


def deep(lines):
    joined = lines.map(concat70)
    levels = lines.map(depth)
    chained = (lines
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0)
        .map(lambda l: l + "x")
        .filter(lambda l: len(l) > 0))
    return joined, levels, chained
