"""Negative indices into a split: the last segments of a path."""


def file_and_folder(line):
    """'/srv/logs/app.log' -> ('app.log', 'logs'); a bare name has no folder."""
    parts = line.split("/")
    name = parts[-1]
    try:
        folder = parts[-2]
    except IndexError:
        folder = ""
    return (name, folder)


def extension(line):
    """The text after the last dot of the line's last word; IndexError on
    a blank line."""
    word = line.split()[-1]
    return word.split(".")[-1]


def paths(path_lines, word_lines):
    return path_lines.map(file_and_folder), word_lines.map(extension)
