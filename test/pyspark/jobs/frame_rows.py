"""DataFrame subset: union by position and by name, distinct and
dropDuplicates of whole rows, na.drop and na.fill, drop, rename and
select *."""
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

CURRENT_SCHEMA = StructType(
    [
        StructField("item", StringType(), False),
        StructField("stock", LongType(), True),
        StructField("cost", DoubleType()),
    ]
)
ARCHIVE_SCHEMA = "cost DOUBLE, stock BIGINT, item STRING NOT NULL"


def row_operators(current: DataFrame, archive: DataFrame):
    both = current.union(archive.select("item", "stock", "cost")).distinct()
    named = current.unionByName(archive).dropDuplicates()
    complete = both.na.drop(subset=["stock"]).fillna(0.0)
    renamed = (
        named.withColumnRenamed("stock", "units")
        .drop("cost")
        .na.fill("none")
        .select("*", (F.col("units") * 10).alias("tens"))
    )
    return complete, renamed
