"""RDD subset: parameters named as what a generated pytest module uses
(the imported `job`, its `same_records`, `pytest`, the `sc` fixture before
the last parameter, the builtins `tuple` and `Exception`): the module binds
no parameter's name, so each test still builds every input and calls the
job."""


def shadowing(job, same_records, sc, pytest, tuple, Exception):
    words = job.union(same_records).union(sc).union(pytest).union(tuple).union(Exception)
    return words.filter(lambda w: w.startswith("a")).map(lambda w: (w, 1)).reduceByKey(
        lambda a, b: a + b
    )
