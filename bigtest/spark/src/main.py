

def main(argv=None):
    import argparse
    import os
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="a directory with one file per source, named as coco-bigtest "
        "generate writes them: " + ", ".join(sorted(SOURCE_FILES.values())),
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="SOURCE=PATH",
        help="where one source's records are (any path Spark reads); "
        "overrides --data",
    )
    parser.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="where each sink is saved, as DIR/<sink file>/part-*; Spark "
        "refuses to write into a sink directory that exists",
    )
    args = parser.parse_args(argv)
    inputs = {}
    if args.data:
        for name, file in SOURCE_FILES.items():
            inputs[name] = os.path.join(args.data, file)
    for item in args.input:
        name, sep, path = item.partition("=")
        if not sep or name not in SOURCE_FILES:
            parser.error(
                "--input %s: expected SOURCE=PATH with SOURCE one of %s"
                % (item, ", ".join(sorted(SOURCE_FILES)))
            )
        inputs[name] = path

    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName(__doc__.splitlines()[0])
    if not conf.contains("spark.master"):
        # Run with plain `python`: Spark in this process, and its Python
        # workers this interpreter (not whatever `python3` is on PATH).
        conf.setMaster("local[*]")
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    sc = SparkContext.getOrCreate(conf)
    try:
        sinks, unread = build(sc, inputs)
        for _, directory, lines in sinks:
            lines.saveAsTextFile(os.path.join(args.output, directory))
        for dataset in unread:
            dataset.count()
    finally:
        sc.stop()


if __name__ == "__main__":
    main()
