foo()
bar(foo)
foo = 1
