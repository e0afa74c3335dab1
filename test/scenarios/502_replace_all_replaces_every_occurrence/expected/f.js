qux()
bar(qux)
qux = 1
