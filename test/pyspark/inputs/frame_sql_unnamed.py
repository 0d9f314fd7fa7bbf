import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
orders = spark.read.csv(sys.argv[1], schema="amount DOUBLE, status STRING")
orders.selectExpr("amount * 2").write.csv(sys.argv[2])
