"""DataFrame subset: joins on an equality condition of differently named
columns (`orders.customer_id == customers.id`, and a `&` of two), inner,
left and left_anti: the rows are the left side's columns, then the right
side's, with both key columns kept; a NULL key matches nothing."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDERS_SCHEMA = "order_id STRING NOT NULL, customer_id STRING, region STRING, amount BIGINT"
CUSTOMERS_SCHEMA = "id STRING, home STRING, tier STRING"


def enriched(orders: DataFrame, customers: DataFrame) -> tuple:
    known = orders.join(customers, orders.customer_id == customers.id, "left")
    local = orders.join(
        customers,
        (F.col("customer_id") == customers["id"]) & (orders.region == customers.home),
    )
    unknown = orders.join(customers, orders["customer_id"] == customers.id, how="left_anti")
    return known.withColumn("gold", F.col("tier") == "gold"), local, unknown
