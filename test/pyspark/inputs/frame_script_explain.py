from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
rows = spark.read.csv("in.csv", schema="a STRING")
rows.explain()
