def main(argv=None):
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_input_args(parser, datasets=True)
    parser.add_argument(
        "--k",
        type=int,
        default=2,
        help="records an operator combines on an enumerated path (coco-bigtest's --k); "
        "a fold of more is beyond k",
    )
    parser.add_argument(
        "--histogram",
        required=True,
        metavar="FILE",
        help="where the driver writes the path histogram (JSON) that "
        "coco-bigtest coverage --histogram reads",
    )
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--k %d: at least 1" % args.k)
    if args.input and len(args.data) > 1:
        parser.error("--input names one dataset's sources; give at most one --data with it")
    datasets = [inputs_of(parser, d, args.input) for d in args.data or [None]]
    sc = spark_context()
    try:
        results = []
        for inputs in datasets:
            ends, reduces, persisted = build_paths(sc, inputs, args.k)
            histogram = path_histogram(sc.union(ends)) if ends else []
            empty = [op for op, rdd in reduces if rdd.isEmpty()]
            results.append(
                {
                    "paths": sorted([path, op, failed, n] for (path, op, failed), n in histogram),
                    "empty_reduces": empty,
                }
            )
            for rdd in persisted:
                rdd.unpersist()
    finally:
        sc.stop()
    with open(args.histogram, "w", encoding="utf-8") as out:
        json.dump({"program": PROGRAM, "k": args.k, "datasets": results}, out)
        out.write("\n")


if __name__ == "__main__":
    main()
