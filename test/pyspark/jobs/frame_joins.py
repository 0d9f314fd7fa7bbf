"""DataFrame subset: joins on a column name; NULL keys match nothing, a
left join keeps them with the other side NULL, a semi join keeps a row
once however many match, an anti join keeps unmatched and NULL-key rows
(frame_outer_joins.py: right and full joins)."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

ORDERS_SCHEMA = "order_id STRING, customer BIGINT, amount DOUBLE"
CUSTOMERS_SCHEMA = "customer BIGINT, name STRING"


def join_kinds(orders: DataFrame, customers: DataFrame):
    inner = orders.join(customers, "customer")
    left = orders.join(customers, on=["customer"], how="left")
    known = orders.join(customers, "customer", "left_semi")
    unknown = orders.join(customers, on="customer", how="left_anti")
    return inner, left, known, unknown.select("order_id", F.col("amount") > 10.0)

