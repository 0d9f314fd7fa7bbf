"""A DataFrame script as jobs are published: its reads and writes at module
level, the files on the command line, a StructType schema, reader options
and writer options."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, IntegerType, StringType, StructField, StructType

spark = SparkSession.builder.appName("frame-script").getOrCreate()

ORDERS = StructType(
    [
        StructField("order_id", IntegerType(), True),
        StructField("customer", StringType(), True),
        StructField("amount", DoubleType(), True),
    ]
)

orders = spark.read.schema(ORDERS).option("sep", ";").csv(sys.argv[1])
customers = spark.read.csv(
    sys.argv[2], schema="customer STRING, country STRING", header=True, quote='"', escape='"'
)

large = orders.where(F.col("amount") >= 100.0)
joined = large.join(customers, "customer")
by_country = joined.groupBy("country").agg(
    F.count("order_id").alias("orders"), F.sum("amount").alias("total")
)
by_country.write.mode("overwrite").option("header", True).csv(sys.argv[3])

names = customers.select(F.upper(F.col("customer")).alias("name")).where(F.col("name").isNotNull())
names.write.text(sys.argv[4])

spark.stop()
