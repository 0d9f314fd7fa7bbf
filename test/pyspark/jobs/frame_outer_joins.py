"""DataFrame subset: right and full outer joins on a column name keep each
kept side's unmatched rows, NULL-key rows among them, with the other side
NULL; the key of a full join's row is whichever side has it."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDERS_SCHEMA = "order_id STRING, customer BIGINT, amount DOUBLE"
CUSTOMERS_SCHEMA = "customer BIGINT, name STRING"


def outer_joins(orders: DataFrame, customers: DataFrame):
    right = orders.join(customers, "customer", "right")
    full = orders.join(customers, on="customer", how="full_outer")
    return right, full.filter(F.col("amount").isNull() | F.col("name").isNull())
