

# The scheme and authority of a Hadoop URL (hdfs://namenode:8020/x,
# file:/x, s3a://bucket/x); a path without them is one of the default file
# system.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(//[^/]*)?(?=/)")


def hadoop_path(path):
    """`path` as Hadoop's Path reads it: a relative path whose first
    component holds a colon would be a URL with that scheme, so it starts
    with `./`."""
    if not _URL.match(path) and ":" in path.split("/", 1)[0]:
        return "./" + path
    return path


def literal_input(path):
    """`path` as textFile reads it literally.

    textFile expands globs (`case[1]` would read `case1`), so every glob
    character is escaped. It also splits its argument at commas, and Hadoop
    cannot read below a name holding a colon (`a:b` is a URL to it); no
    escape avoids either without a glob that lists the parent folder, so
    both are refused here rather than read wrongly or failed inside Spark."""
    url = _URL.match(path)
    for c, why in ((",", "splits its argument at commas"), (":", "takes a:b for a URL")):
        if c in path[url.end() if url else 0 :]:
            raise SystemExit(
                "%s: Spark's textFile %s, so it cannot read this path; rename "
                "the folder or file" % (path, why)
            )
    return "".join("\\" + c if c in "\\*?[]{}" else c for c in path)


def plain_name(name):
    """Whether `name` is one file name, so that OUT/name stays under OUT
    (coco's verifier requires it of sink names; the job checks again)."""
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name and "\0" not in name


def add_input_args(parser, datasets=False):
    """--data (repeatable with `datasets`: each a dataset of its own) and
    --input."""
    parser.add_argument(
        "--data",
        action="append" if datasets else "store",
        default=[] if datasets else None,
        metavar="DIR",
        help="a directory with one file per source, named as coco-bigtest "
        "generate writes them: " + ", ".join(sorted(SOURCE_FILES.values()))
        + ("; repeat it for several datasets, each a job of its own" if datasets else ""),
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="SOURCE=PATH",
        help="where one source's records are: a path as textFile reads it "
        "(globs and commas expand, as in Spark); overrides --data",
    )


def inputs_of(parser, data, items):
    """Source name -> path, from --data DIR and --input SOURCE=PATH."""
    import os

    inputs = {}
    if data:
        for name, file in SOURCE_FILES.items():
            inputs[name] = literal_input(os.path.join(data, file))
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or name not in SOURCE_FILES:
            parser.error(
                "--input %s: expected SOURCE=PATH with SOURCE one of %s"
                % (item, ", ".join(sorted(SOURCE_FILES)))
            )
        inputs[name] = path
    return inputs


def spark_context():
    import os
    import sys

    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName(__doc__.splitlines()[0])
    if not conf.contains("spark.master"):
        # Run with plain `python`: Spark in this process, and its Python
        # workers this interpreter (not whatever `python3` is on PATH).
        conf.setMaster("local[*]")
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return SparkContext.getOrCreate(conf)


