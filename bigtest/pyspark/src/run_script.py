# Each test runs the script in this test process, on the one Spark context
# every test of the session shares: starting Spark would otherwise be most
# of a test's time. While a script runs, its SparkContext(...) and
# SparkSession.builder.getOrCreate() give that context (each script gets a
# SparkSession of its own: SQL settings and temporary views start afresh),
# and stop() leaves it running. COCO_SPARK_SUBMIT=1 runs each script in a
# process of its own instead, as spark-submit would.
#
# Where the script reads or saves a path coco knows (a fixed path, an
# argument), the test gives it the case's file: SparkContext.textFile,
# DataFrameReader's text, csv and load, DataFrameWriter's csv, json, parquet,
# text and save, and RDD.saveAsTextFile see the case's absolute path; the
# script's code is unchanged.
SPARK_SUBMIT = os.environ.get("COCO_SPARK_SUBMIT") == "1"

MOVE_PATHS = """
import json, os, runpy, sys
from pyspark import RDD, SparkContext
from pyspark.sql import DataFrameReader, DataFrameWriter
moved = json.loads(os.environ["COCO_MOVED_PATHS"])
def move(cls, name):
    original = getattr(cls, name)
    def call(self, path=None, *args, **kwargs):
        if isinstance(path, str):
            path = moved.get(path, path)
        return original(self, path, *args, **kwargs)
    setattr(cls, name, call)
move(SparkContext, "textFile")
for name in ("text", "csv", "load"):
    move(DataFrameReader, name)
for name in ("csv", "json", "parquet", "text", "save"):
    move(DataFrameWriter, name)
move(RDD, "saveAsTextFile")
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class Finished:
    """How a script ended: its exit status and what it wrote."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def run_job(folder, inputs, outputs):
    """Writes each input's lines where the script reads them, runs it with
    `folder` as its working directory, and returns how it finished and
    each output's folder."""
    argv = [None] * ARGC
    for n, text in ARGUMENTS.items():
        argv[n - 1] = text
    moved = {}

    def place(where, default):
        kind, value = where
        path = folder / (value if kind == "path" else default)
        assert path.resolve().is_relative_to(folder.resolve()), path
        if kind == "argv":
            argv[value - 1] = str(path)
        else:
            # A relative path too: Spark reads it from the JVM's folder,
            # which a shared context does not change.
            moved[value] = str(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    for i, (where, lines) in enumerate(inputs):
        text = "".join(line + "\n" for line in lines)
        place(where, f"input_{i}.txt").write_text(text, encoding="utf-8")
    saved = [place(where, f"output_{i}") for i, where in enumerate(outputs)]
    if SPARK_SUBMIT:
        return spark_submit(folder, argv, moved), saved
    return in_this_process(folder, argv, moved), saved


def spark_submit(folder, argv, moved):
    """The script in a process of its own, with a Spark of its own."""
    env = dict(
        os.environ,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_SUBMIT_ARGS="--master local[2] pyspark-shell",
        PYTHONIOENCODING="utf-8",
        COCO_MOVED_PATHS=json.dumps(moved),
    )
    command = [sys.executable, "-c", MOVE_PATHS, str(JOB_FILE), *argv]
    process = subprocess.run(command, cwd=folder, env=env, capture_output=True)
    # Decoded here, not by text=True: universal newlines would read a
    # printed "\r" as a line break.
    return Finished(
        process.returncode,
        process.stdout.decode("utf-8", "surrogateescape"),
        process.stderr.decode("utf-8", "replace"),
    )


def shared_context():
    """The session's Spark context (Spark 3.5's defaults, local[2])."""
    from pyspark import SparkConf, SparkContext

    os.environ["PYSPARK_PYTHON"] = sys.executable
    conf = (
        SparkConf()
        .setMaster("local[2]")
        .setAppName("coco-bigtest scripts")
        .set("spark.ui.enabled", "false")
    )
    context = SparkContext.getOrCreate(conf)
    context.setLogLevel("ERROR")
    return context


def in_this_process(folder, argv, moved):
    """The script run as `python JOB ARGS...` would run it, on the shared
    context, with what it prints captured."""
    from pyspark import RDD, SparkContext
    from pyspark.sql import DataFrameReader, DataFrameWriter, SparkSession

    context = shared_context()
    # A SparkSession of the script's own on the shared context.
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    context._jvm.SparkSession.clearDefaultSession()
    context._jvm.SparkSession.clearActiveSession()

    def moving(original):
        def call(self, path=None, *args, **kwargs):
            if isinstance(path, str):
                path = moved.get(path, path)
            return original(self, path, *args, **kwargs)

        return call

    replacements = [
        (SparkContext, "__new__", lambda cls, *args, **kwargs: context),
        (SparkContext, "__init__", lambda self, *args, **kwargs: None),
        (SparkContext, "stop", lambda self: None),
        (SparkSession, "stop", lambda self: None),
        (SparkContext, "textFile", moving(SparkContext.textFile)),
        (DataFrameReader, "text", moving(DataFrameReader.text)),
        (DataFrameReader, "csv", moving(DataFrameReader.csv)),
        (DataFrameReader, "load", moving(DataFrameReader.load)),
        (DataFrameWriter, "csv", moving(DataFrameWriter.csv)),
        (DataFrameWriter, "json", moving(DataFrameWriter.json)),
        (DataFrameWriter, "parquet", moving(DataFrameWriter.parquet)),
        (DataFrameWriter, "text", moving(DataFrameWriter.text)),
        (DataFrameWriter, "save", moving(DataFrameWriter.save)),
        (RDD, "saveAsTextFile", moving(RDD.saveAsTextFile)),
    ]
    originals = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in replacements]
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    stdout, stderr = io.StringIO(), io.StringIO()
    returncode = 0
    try:
        for owner, name, value in replacements:
            setattr(owner, name, value)
        sys.argv = [str(JOB_FILE), *argv]
        sys.path.insert(0, str(JOB_FILE.parent))
        os.chdir(folder)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                runpy.run_path(str(JOB_FILE), run_name="__main__")
            except SystemExit as end:
                # As the interpreter ends on sys.exit(code).
                if end.code is None:
                    returncode = 0
                elif isinstance(end.code, int):
                    returncode = end.code
                else:
                    print(end.code, file=sys.stderr)
                    returncode = 1
            except BaseException:
                traceback.print_exc()
                returncode = 1
    finally:
        for owner, name, original in originals:
            if name == "__new__" and original is None:
                # Not deleted: CPython would then refuse SparkContext's
                # arguments in object.__new__.
                original = staticmethod(lambda cls, *args, **kwargs: object.__new__(cls))
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        sys.argv, sys.path[:] = saved_argv, saved_path
        os.chdir(saved_cwd)
    return Finished(returncode, stdout.getvalue(), stderr.getvalue())
