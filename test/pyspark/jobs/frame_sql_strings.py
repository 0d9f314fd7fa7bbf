"""Spark SQL written as strings, as published jobs write it: a filter's
condition, selectExpr with aliases, F.expr; and a join condition naming the
DataFrame a filtered one came from (`orders["order_id"]`)."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("sql-strings").getOrCreate()
orders = spark.read.csv(
    sys.argv[1], schema="order_id INT, order_date STRING, status STRING", header=True
)
items = spark.read.csv(sys.argv[2], schema="item_order_id INT, subtotal DOUBLE")

daily = (
    orders.filter("status IN ('COMPLETE', 'CLOSED')")
    .join(items, orders["order_id"] == items["item_order_id"])
    .where("subtotal BETWEEN 10 AND 1000.5 AND NOT order_date IS NULL")
    .selectExpr("order_date", "subtotal * 2 AS doubled", "upper(status) status")
    .where(F.expr("doubled >= 100 OR status <> 'CLOSED'"))
    .groupBy("order_date")
    .agg(F.sum("doubled").alias("revenue"))
)
daily.write.csv(sys.argv[3])
