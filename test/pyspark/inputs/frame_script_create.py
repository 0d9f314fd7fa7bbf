from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
rows = spark.createDataFrame([("a",)], "a STRING")
