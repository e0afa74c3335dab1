SEP = "<|endoftext|>"
DOC = "a<|endoftext|>"
print(SEP)
