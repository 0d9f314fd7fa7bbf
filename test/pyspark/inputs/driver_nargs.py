import argparse

from pyspark import SparkContext

parser = argparse.ArgumentParser()
parser.add_argument("inputs", nargs="+")
args = parser.parse_args()
sc = SparkContext(appName="driver_nargs")
sc.textFile(args.inputs[0]).saveAsTextFile("copy")
