name = "y"
print(name.upper())
