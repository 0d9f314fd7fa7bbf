import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
business = spark.read.csv(sys.argv[1])
business.groupBy(business.state).count().write.csv(sys.argv[2])
