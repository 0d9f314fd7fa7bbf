"""A DataFrame script with a Python UDF made at module level (name =
F.udf(f, type)), a tab-separated read and show(n) of fewer rows than a case
may have (then only the number of lines printed is checked)."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as func
from pyspark.sql.types import StringType

spark = SparkSession.builder.getOrCreate()
movies = spark.read.option("sep", "\t").schema("userID INT, movieID INT, rating INT, ts LONG").csv(sys.argv[1])


def label(movie_id):
    return "movie-" + str(movie_id)


label_udf = func.udf(label, StringType())
counts = movies.groupBy("movieID").count()
counts.withColumn("title", label_udf(func.col("movieID"))).orderBy(func.desc("count")).show(10)
