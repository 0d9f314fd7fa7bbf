from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDERS_SCHEMA = "day STRING, amount DOUBLE NOT NULL, status STRING"


def paid_per_day(orders: DataFrame) -> DataFrame:
    paid = orders.filter(F.col("status") == "paid")
    return paid.groupBy("day").agg(F.sum("amount").alias("total"))
