import csv
from csv import reader


def tab_separated(lines):
    return lines.map(lambda line: next(csv.reader([line], delimiter="\t"))[0])


def rows_of_list(lines):
    return lines.map(lambda line: list(reader([line]))[0][0])
