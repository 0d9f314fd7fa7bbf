
# --- paths: the JDU path every record follows, as coco's interpreter ----------
# renders it (bigtest/dataflow/src/lineage.rs and interp.rs). A record is
# (fields, lineage, position): the lineage is its rendered steps, the
# position a tuple that sorts as the interpreter orders its dataset (file
# order, a union's left side first, a join's matches per left record), so
# the records a fold combines are combined in the interpreter's order. An
# operator that ends records (a sink, a filter, a UDF that may fail, a join)
# outputs live records and ends: ("end", steps, op, failed),
# a record that reached a sink, was dropped or failed. A fold of more than k
# records is beyond k: Spark combines it in its own order, without the
# trace, and its step reads `fold{more than k records}`.

LIVE, END = "live", "end"

_TRACE = []
_AT = [None]


def traced(prefix, udf, args):
    """Calls `udf` on `args`: its results (None when it fails) and the steps
    it took, each prefixed with the operator's label."""
    del _TRACE[:]
    try:
        out = udf(*args)
    except UdfFailure:
        _TRACE.append(_AT[0] + "=fail")
        out = None
    return out, tuple(prefix + step for step in _TRACE)


def merged(label, lineages):
    """The step of an operator that combines records: `join#3=both{a, b | c}`."""
    return label + "{" + " | ".join(", ".join(l) for l in lineages) + "}"


def beyond(label, k):
    return label + "{more than %d records}" % k


def end(steps, op, failed):
    return (END, steps, op, failed)


def is_live(item):
    return item[0] == LIVE


def is_end(item):
    return item[0] == END


def live_record(item):
    return item[1:]


def source_records(sc, inputs, name, inline, delimiter, kinds, label):
    """A source's records, each at its line's index."""
    lines = source_lines(sc, inputs, name, inline).zipWithIndex()
    return lines.map(
        lambda li: (parse_record(name, li[0], delimiter, kinds), (label,), (li[1],))
    )


def map_step(op, label, udf):
    def step(r):
        fields, lineage, pos = r
        out, steps = traced(label, udf, fields)
        if out is None:
            return [end(lineage + steps, op, True)]
        return [(LIVE, out, lineage + steps, pos)]

    return step


def filter_step(op, label, udf):
    def step(r):
        fields, lineage, pos = r
        out, steps = traced(label, udf, fields)
        if out is None:
            return [end(lineage + steps, op, True)]
        if out[0] is True:
            return [(LIVE, fields, lineage + steps + (label + "=pass",), pos)]
        return [end(lineage + steps + (label + "=drop",), op, False)]

    return step


def flat_map_step(op, label, udf):
    def step(r):
        fields, lineage, pos = r
        out, steps = traced(label, udf, fields)
        if out is None:
            return [end(lineage + steps, op, True)]
        head, items = out[:-1], out[-1]
        if not items:
            return [end(lineage + steps + (label + "=empty",), op, False)]
        return [
            (LIVE, head + (x,), lineage + steps + (label + "=elem%d" % j,), pos + (j,))
            for j, x in enumerate(items)
        ]

    return step


def union_step(side, label):
    return lambda r: (r[0], r[1] + (label + "=" + ("lhs", "rhs")[side],), (side, r[2]))


def sink_step(op, label):
    return lambda r: end(r[1] + (label,), op, False)


# A group while it holds at most k records: the records; beyond: a Wide.
class Wide:
    __slots__ = ("fields", "pos", "failed")

    def __init__(self, fields, pos, failed):
        self.fields, self.pos, self.failed = fields, pos, failed


def group_combiner(k, fold):
    """combineByKey's three functions for groups of records: a list of at
    most k records, then a Wide whose fields `fold(a, b)` combines (in
    Spark's order; None for distinct, which keeps the first record's)."""

    def widen(group):
        if isinstance(group, Wide):
            return group
        group = sorted(group, key=lambda r: r[2])
        fields, failed = group[0][0], False
        if fold is not None:
            for r in group[1:]:
                try:
                    fields = fold(fields, r[0])
                except UdfFailure:
                    failed = True
                    break
        return Wide(fields, group[0][2], failed)

    def merge(a, b):
        if isinstance(a, list) and isinstance(b, list) and len(a) + len(b) <= k:
            return a + b
        a, b = widen(a), widen(b)
        if a.pos > b.pos:
            a, b = b, a
        if a.failed or b.failed:
            return Wide(None, a.pos, True)
        fields = a.fields
        if fold is not None:
            try:
                fields = fold(a.fields, b.fields)
            except UdfFailure:
                return Wide(None, a.pos, True)
        return Wide(fields, a.pos, False)

    return (lambda r: [r]), (lambda group, r: merge(group, [r])), merge


def fold_values(keyed):
    return (lambda fields: fields[1:]) if keyed else (lambda fields: fields)


def fold_rdd(records, op, label, udf, keyed, key, k):
    """reduce_by_key (keyed) or reduce: the folded record per key."""
    values = fold_values(keyed)

    def fold(a, b):
        out = udf(*(values(a) + values(b)))
        return (a[0],) + out if keyed else out

    create, add, merge = group_combiner(k, fold)

    def finish(group):
        if isinstance(group, Wide):
            steps = (beyond(label + "=fold", k),)
            if group.failed:
                return [end(steps, op, True)]
            return [(LIVE, group.fields, steps, group.pos)]
        group = sorted(group, key=lambda r: r[2])
        first = group[0]
        if len(group) == 1:
            return [(LIVE, first[0], first[1] + (label + "=single",), first[2])]
        lineage = (merged(label + "=fold", [r[1] for r in group]),)
        acc = values(first[0])
        for r in group[1:]:
            out, steps = traced(label, udf, acc + values(r[0]))
            lineage += steps
            if out is None:
                return [end(lineage, op, True)]
            acc = out
        fields = (first[0][0],) + acc if keyed else acc
        return [(LIVE, fields, lineage, first[2])]

    keyed_records = records.map(lambda r: (key(r[0][0]) if keyed else 0, r))
    return keyed_records.combineByKey(create, add, merge).values().flatMap(finish)


def distinct_rdd(records, label, key, k):
    create, add, merge = group_combiner(k, None)

    def finish(group):
        if isinstance(group, Wide):
            return (group.fields, (beyond(label + "=duplicate", k),), group.pos)
        group = sorted(group, key=lambda r: r[2])
        first = group[0]
        if len(group) == 1:
            return (first[0], first[1] + (label + "=unique",), first[2])
        return (first[0], (merged(label + "=duplicate", [r[1] for r in group]),), first[2])

    return records.map(lambda r: (key(r[0]), r)).combineByKey(create, add, merge).values().map(finish)


def group_rdd(records, label, key, k):
    """group_by_key: the whole group, as the program needs it."""

    def finish(group):
        group = sorted(group, key=lambda r: r[2])
        first = group[0]
        values = sorted((r[0][1] for r in group), key=sort_key)
        fields = (first[0][0], tuple(values))
        if len(group) == 1:
            lineage = first[1] + (label + "=single",)
        elif len(group) > k:
            lineage = (beyond(label + "=group", k),)
        else:
            lineage = (merged(label + "=group", [r[1] for r in group]),)
        return (fields, lineage, first[2])

    return records.map(lambda r: (key(r[0][0]), r)).groupByKey().values().map(finish)


def join_rdd(left, right, op, label, key, keeps_left, keeps_right, left_wraps, right_wraps):
    """A join with every record's class: matched pairs (`both`), and the
    records of one side whose key the other lacks (`left-only`,
    `right-only`), kept by an outer join or ended here."""

    def finish(sides):
        ls = sorted(sides[0], key=lambda r: r[2])
        rs = sorted(sides[1], key=lambda r: r[2])
        if ls and rs:
            return [
                (
                    LIVE,
                    joined((l[0], r[0]), left_wraps, right_wraps),
                    (merged(label + "=both", [l[1], r[1]]),),
                    (0, l[2], r[2]),
                )
                for l in ls
                for r in rs
            ]
        out = []
        for r in ls:
            steps = r[1] + (label + "=left-only",)
            if keeps_left:
                out.append((LIVE, joined((r[0], None), left_wraps, right_wraps), steps, (0, r[2])))
            else:
                out.append(end(steps, op, False))
        for r in rs:
            steps = r[1] + (label + "=right-only",)
            if keeps_right:
                out.append((LIVE, joined((None, r[0]), left_wraps, right_wraps), steps, (1, r[2])))
            else:
                out.append(end(steps, op, False))
        return out

    keyed = lambda rdd: rdd.map(lambda r: (key(r[0][0]), r))
    return keyed(left).cogroup(keyed(right)).values().flatMap(finish)


def path_histogram(ends):
    """(path, op, failed) -> records, over the ends of every operator."""
    return (
        ends.map(lambda e: ((" ; ".join(e[1]), e[2], e[3]), 1))
        .reduceByKey(lambda a, b: a + b)
        .collect()
    )


def same(value):
    return value
