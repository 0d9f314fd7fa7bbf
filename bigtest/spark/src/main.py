def main(argv=None):
    import argparse
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_input_args(parser)
    parser.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="where each sink is saved, as DIR/<sink file>/part-*; Spark "
        "refuses to write into a sink directory that exists",
    )
    args = parser.parse_args(argv)
    inputs = inputs_of(parser, args.data, args.input)
    sc = spark_context()
    try:
        sinks, unread = build(sc, inputs)
        for name, directory, lines in sinks:
            if not plain_name(directory):
                raise SystemExit("sink %r: %r is not a plain file name" % (name, directory))
            lines.saveAsTextFile(hadoop_path(os.path.join(args.output, directory)))
        for dataset in unread:
            dataset.count()
    finally:
        sc.stop()


if __name__ == "__main__":
    main()
