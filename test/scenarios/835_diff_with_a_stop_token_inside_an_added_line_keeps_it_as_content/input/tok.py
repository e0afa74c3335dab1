SEP = None
print(SEP)
