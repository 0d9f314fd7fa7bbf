"""FLOAT columns (32-bit), Spark's round (HALF_UP on the double's decimal
text) and bround (HALF_EVEN), also over an aggregate inside agg()."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("round-float").getOrCreate()
items = spark.read.csv(
    sys.argv[1], schema="item STRING, price FLOAT, quantity INT", sep="|", header=True
)
priced = (
    items.where("price > 0.5 AND quantity BETWEEN 1 AND 100")
    .withColumn("cost", F.round(F.col("price").cast("double") * 1.05, 1))
    .withColumn("half", F.round(F.lit(2.675), 2))
    .withColumn("even", F.bround(F.lit(2.5), 0))
)
totals = priced.groupBy("item").agg(
    F.round(F.sum("price"), 1).alias("revenue"),
    F.max("price").alias("top"),
    F.bround(F.avg("cost"), 2).alias("mean_cost"),
    F.max("half").alias("half"),
    F.min("even").alias("even"),
)
totals.write.option("header", True).csv(sys.argv[2])
