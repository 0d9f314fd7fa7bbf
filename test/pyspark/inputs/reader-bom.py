def words(lines): return lines.flatMap(lambda l: l.split())
