from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
rows = spark.read.json("in.json")
