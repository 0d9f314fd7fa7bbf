import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
lines = spark.read.text(sys.argv[1]).rdd.map(lambda r: r[1])
for line in lines.collect():
    print(line)
