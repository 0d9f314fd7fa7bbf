"""Runs exported PySpark jobs on test cases in one Spark session.

Usage: python check.py MANIFEST.json

MANIFEST: {"jobs": [{"job": "path/to/job.py", "cases": ["data/dir", ...]}]}.
Prints one JSON object: {"results": [{"job", "data", "outcome":
"succeeded" | "failed", "sinks": {name: [sorted lines]}, "error": text}]},
one result per case, in manifest order. Each case is a Spark job of its own
(every sink saved, every unread dataset counted); it fails when any of its
Spark jobs does, which is what a test case means on Spark.
"""

import json
import os
import re
import runpy
import sys

from pyspark import SparkConf, SparkContext

# The exception a job raised, from the text of the Py4J error that carries it.
_RAISED = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Failure|Record|Exception)): (.*)$", re.M)


def reason(error):
    text = str(error)
    found = _RAISED.findall(text)
    # The Python worker's exception is the last one in Spark's report.
    for name, message in reversed(found):
        if name not in ("Py4JJavaError", "SparkException", "PythonException"):
            return "%s: %s" % (name, message.strip())
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def run_case(sc, job, data):
    inputs = {name: "%s/%s" % (data, file) for name, file in job["SOURCE_FILES"].items()}
    try:
        sinks, unread = job["build"](sc, inputs)
        lines = {name: sorted(rdd.collect()) for name, _, rdd in sinks}
        for dataset in unread:
            dataset.count()
    except Exception as error:  # a failed Spark job, whatever raised it
        return {"outcome": "failed", "sinks": {}, "error": reason(error)}
    return {"outcome": "succeeded", "sinks": lines, "error": None}


def main():
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    # The Python workers are this interpreter, not whatever `python3` is
    # first on PATH (a different version fails every task).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    conf = (
        SparkConf()
        .setMaster("local[2]")
        .setAppName("coco spark check")
        .set("spark.ui.enabled", "false")
        .set("spark.ui.showConsoleProgress", "false")
        # A failed task fails its job at once, as tests expect.
        .set("spark.task.maxFailures", "1")
    )
    sc = SparkContext(conf=conf)
    sc.setLogLevel("OFF")
    results = []
    try:
        for entry in manifest["jobs"]:
            # run_path under a name no module has: cloudpickle then ships
            # the job's functions to the Python workers by value.
            job = runpy.run_path(entry["job"], run_name="coco_exported_job")
            for data in entry["cases"]:
                result = run_case(sc, job, data)
                result.update(job=entry["job"], data=data)
                results.append(result)
    finally:
        sc.stop()
    json.dump({"results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
