"""A DataFrame script reading a CSV by its header, without a schema (as
published jobs often do): its columns are strings, named where the script
uses them (`open_ones.state`, `col("city")`)."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import col

if __name__ == "__main__":
    spark = SparkSession.builder.appName("state-count").getOrCreate()
    business = spark.read.csv(sys.argv[1], header=True, quote='"', escape='"')
    open_ones = business.where(col("city") != "closed")
    counts = open_ones.groupBy(open_ones.state).count()
    counts.sort("count", ascending=False).write.csv(sys.argv[2])
    spark.stop()
