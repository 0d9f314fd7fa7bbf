"""Revenue per customer country: orders joined with customers, where an
order of a customer missing from the table counts as "unknown" and an
order without a price counts nothing.

    python revenue_by_country.py data/df_orders.csv data/df_customers.csv /tmp/out
"""
import sys

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

ORDERS_SCHEMA = "order_id STRING, customer_id BIGINT, quantity BIGINT, unit_price DOUBLE"
CUSTOMERS_SCHEMA = "customer_id BIGINT, name STRING, country STRING"


def revenue_by_country(orders: DataFrame, customers: DataFrame) -> DataFrame:
    priced = orders.filter(F.col("quantity") > 0).withColumn(
        "revenue", F.col("quantity") * F.col("unit_price")
    )
    located = priced.join(customers, on="customer_id", how="left").withColumn(
        "country", F.coalesce(F.upper("country"), F.lit("unknown"))
    )
    return located.groupBy("country").agg(
        F.sum("revenue").alias("revenue"),
        F.count("order_id").alias("orders"),
    )


if __name__ == "__main__":
    spark = SparkSession.builder.appName("revenue_by_country").getOrCreate()
    orders = spark.read.csv(sys.argv[1], schema=ORDERS_SCHEMA, header=True)
    customers = spark.read.csv(sys.argv[2], schema=CUSTOMERS_SCHEMA, header=True)
    revenue_by_country(orders, customers).write.mode("overwrite").csv(sys.argv[3])
    spark.stop()
