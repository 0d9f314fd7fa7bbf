"""A script whose command line is read by argparse: the positional
arguments are its files, the options keep their defaults, and an `if` on
one of them is decided by its default."""
import argparse

from pyspark.sql import SparkSession

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Count the long words of a text.")
    parser.add_argument("input", help="a text file")
    parser.add_argument("output", help="the folder to save the counts to")
    parser.add_argument("--min-length", type=int, default=4)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    spark = SparkSession.builder.appName("script_args").getOrCreate()
    sc = spark.sparkContext
    min_length = args.min_length
    words = sc.textFile(args.input).flatMap(lambda line: line.split())
    counts = (
        words.filter(lambda word: len(word) >= min_length)
        .map(lambda word: (word.lower(), 1))
        .reduceByKey(lambda a, b: a + b)
    )
    counts.saveAsTextFile(args.output)
    if args.verbose:
        print("saved", counts.count(), "words")
    spark.stop()
