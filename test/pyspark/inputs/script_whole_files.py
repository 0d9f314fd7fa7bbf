import sys

from pyspark import SparkContext

sc = SparkContext(appName="script_whole_files")
files = sc.wholeTextFiles(sys.argv[1])
files.keys().saveAsTextFile(sys.argv[2])
