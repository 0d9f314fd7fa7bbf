import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
taxi = spark.read.option("inferSchema", "true").option("header", "true").csv(sys.argv[1])
taxi.write.parquet(sys.argv[2])
