name = "x"
print(name)
