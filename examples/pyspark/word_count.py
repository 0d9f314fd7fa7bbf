"""Word frequencies of a text, ignoring case, punctuation and short words.

Lines starting with "#" are comments of the corpus format and are skipped.
Hashtags count as the word they tag ("#Spark" counts as "spark"); words
shorter than MIN_LENGTH letters after clean-up are dropped.

Usage: word_count.py <text> <counts_out>
"""
import sys

from pyspark import SparkContext

MIN_LENGTH = 3


def clean_word(token):
    """Lower-case a token and remove surrounding punctuation and quotes."""
    word = token.lower()
    word = word.replace(",", "").replace(".", "").replace(";", "").replace(":", "")
    word = word.replace("!", "").replace("?", "").replace('"', "").replace("(", "").replace(")", "")
    if word.startswith("#"):
        word = word[1:]
    return word.strip()


def is_word(word):
    return len(word) >= MIN_LENGTH


def word_count(text_lines):
    """(word, count) for every word of at least MIN_LENGTH letters."""
    words = (text_lines
             .filter(lambda line: not line.startswith("#"))
             .flatMap(lambda line: line.split())
             .map(clean_word)
             .filter(is_word))
    return words.map(lambda w: (w, 1)).reduceByKey(lambda a, b: a + b)


if __name__ == "__main__":
    sc = SparkContext(appName="word_count")
    text = sc.textFile(sys.argv[1])
    word_count(text).saveAsTextFile(sys.argv[2])
    sc.stop()
